// The transactional outbox against a real Neo4j that stops and starts again in the middle of an import: writes keep
// succeeding, reads keep answering (from PostgreSQL), nothing is lost, and Neo4j ends up with the same graph.
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, expect } from 'vitest';
import { Neo4jGraphStore } from '../../src/core/relationships/neo4jGraphStore.ts';
import { PostgresGraphStore } from '../../src/core/relationships/postgresGraphStore.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { startNeo4j, type TestNeo4j } from '../support/neo4j.ts';
import { test } from '../support/neo4jTests.ts';
import { waitFor } from '../support/wait.ts';
import { randomGraph, type Bundle } from './fixtures.ts';
import { drained, graphSync, importGraph } from './helpers.ts';

let neo: TestNeo4j;
let gw: TestGateway;
let key: string;

beforeAll(async () => {
  neo = await startNeo4j();
  gw = await startTestGateway({ ...neo.env, LORE_MAX_BODY_BYTES: String(16 * 1024 * 1024) });
  key = (await gw.createKey('pro')).key;
});

afterAll(async () => {
  await gw?.close();
  await neo?.close();
});

/** The same project grown: more entities and relationships, a tenth of the first ones renamed, weights changed. */
function grown(base: Bundle, extra: Bundle, round: number): Bundle {
  return {
    project: base.project,
    entities: [...base.entities.map((e, i) => (i % 10 === round ? { ...e, name: `${e.name} (renamed ${round})` } : e)), ...extra.entities],
    relationships: [...base.relationships.map((r, i) => (i % 7 === round ? { ...r, weight: r.weight + round } : r)), ...extra.relationships],
  };
}

async function expectStoresAgree(projectId: string, roots: string[]) {
  const postgres = new PostgresGraphStore(gw.gateway.runtime.services.prisma);
  const neo4j = new Neo4jGraphStore(gw.gateway.runtime.services.neo4j!);
  for (const root of [undefined, ...roots]) {
    for (const depth of root ? [1, 2, 3] : [1]) {
      const query = { projectId, root, depth };
      const [a, b] = await Promise.all([postgres.subset(query), neo4j.subset(query)]);
      if (!isDeepStrictEqual(a, b)) expect(b, JSON.stringify(query)).toEqual(a);
    }
  }
}

test('when Neo4j stops during an import and starts again, then writes and reads carry on and the outbox catches up with nothing lost', async () => {
  const base = randomGraph('Outbox: grown while Neo4j is down', { entities: 1_500, relationships: 6_000 });
  const first = await importGraph(gw, key, base);
  await drained(gw);

  // Neo4j stops while the next import is running (and while the worker may be copying it).
  const second = grown(base, randomGraph('', { entities: 1_500, relationships: 6_000 }, 43, 'f'), 1);
  const [imported] = await Promise.all([importGraph(gw, key, second, first.projectId), neo.stop()]);
  expect(imported.projectId).toBe(first.projectId);

  // While it is down: another import succeeds, the lag shows in /health, and reads answer from PostgreSQL.
  const third = grown(second, randomGraph('', { entities: 500, relationships: 3_000 }, 44, 'g'), 2);
  const final = await importGraph(gw, key, third, first.projectId);
  const down = await waitFor('/health to report Neo4j unreachable', async () => {
    const sync = await graphSync(gw);
    return sync.neo4j === 'unreachable' && sync.last_error ? sync : undefined;
  });
  expect(down.outbox_pending).toBeGreaterThan(0);
  expect(down.oldest_pending_age_seconds).toBeGreaterThanOrEqual(0);
  const postgres = new PostgresGraphStore(gw.gateway.runtime.services.prisma);
  const renamed = final.idOf.get('e2')!;
  const whileDown = await gw.request(`/projects/${first.projectId}/graph?root=${renamed}&depth=2`, { key });
  expect(whileDown.status).toBe(200);
  expect(whileDown.body).toEqual(await postgres.subset({ projectId: first.projectId, root: renamed, depth: 2 }));
  expect(whileDown.body.nodes[0].label).toBe('E 2 (renamed 2)');

  await neo.start();
  const caughtUp = await drained(gw, 180_000);
  expect(caughtUp).toMatchObject({ outbox_pending: 0, last_error: null, oldest_pending_age_seconds: null });

  // Neo4j holds exactly PostgreSQL's graph: every node and relationship, with the latest labels and weights.
  const { prisma } = gw.gateway.runtime.services;
  const [counts] = (
    await neo.driver.executeQuery(
      'MATCH (n:Entity {projectId: $projectId}) RETURN count(n) AS nodes, sum(COUNT { (n)-[:REL]->() }) AS edges',
      { projectId: first.projectId },
    )
  ).records.map((r) => r.toObject());
  expect(counts).toEqual({
    nodes: await prisma.entity.count({ where: { projectId: first.projectId } }),
    edges: await prisma.relationship.count({ where: { projectId: first.projectId } }),
  });
  expect(counts.nodes).toBe(3_500);
  const labels = await neo.driver.executeQuery('MATCH (n:Entity {projectId: $projectId}) WHERE n.label ENDS WITH $suffix RETURN count(n) AS n', {
    projectId: first.projectId,
    suffix: '(renamed 2)',
  });
  expect(labels.records[0].get('n')).toBe(third.entities.filter((e) => e.name.endsWith('(renamed 2)')).length);
  const ids = [...final.idOf.values()];
  await expectStoresAgree(first.projectId, ids.filter((_, i) => i % Math.floor(ids.length / 30) === 0));
}, 600_000);

test('when a row of one project cannot be applied, then /health shows the error, other projects still drain, and a rebuild clears it', async () => {
  const stuck = await importGraph(gw, key, randomGraph('Outbox: stuck', { entities: 20, relationships: 40 }));
  await drained(gw);
  const { prisma } = gw.gateway.runtime.services;
  await prisma.graphOutbox.create({ data: { projectId: stuck.projectId, op: 'nodes', payload: { items: 'not a list' } } });
  const failing = await waitFor('/health to show the failing row', async () => {
    const sync = await graphSync(gw);
    return sync.last_error ? sync : undefined;
  });
  expect(failing.outbox_pending).toBe(1);

  const other = await importGraph(gw, key, randomGraph('Outbox: flowing', { entities: 20, relationships: 40 }, 9));
  await waitFor('the other project to drain', async () => ((await prisma.graphOutbox.count({ where: { projectId: other.projectId } })) === 0 ? true : undefined));
  expect((await prisma.graphOutbox.findFirst({ where: { projectId: stuck.projectId } }))?.attempts).toBeGreaterThan(0);

  await gw.gateway.runtime.services.graphSync!.rebuild(stuck.projectId);
  await drained(gw);
  await expectStoresAgree(stuck.projectId, [...stuck.idOf.values()].slice(0, 5));
}, 300_000);
