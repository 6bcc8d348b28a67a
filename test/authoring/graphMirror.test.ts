// Authoring against a real Neo4j: entity and relationship writes, deletes and a project delete reach Neo4j through the
// outbox, so Neo4j holds exactly PostgreSQL's graph afterwards, and nothing of another project is touched.
import { afterAll, beforeAll, expect } from 'vitest';
import { saltmarshBundle } from '../support/fixtures.ts';
import { entityIdsByName, importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { startNeo4j, type TestNeo4j } from '../support/neo4j.ts';
import { test } from '../support/neo4jTests.ts';
import { waitFor } from '../support/wait.ts';
import { drained, graphSync } from '../graph/helpers.ts';

let neo: TestNeo4j;
let gw: TestGateway;
let key: string;

beforeAll(async () => {
  neo = await startNeo4j();
  gw = await startTestGateway(neo.env);
  ({ key } = await gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 }));
});
afterAll(async () => {
  await gw?.close();
  await neo?.close();
});

const db = () => gw.gateway.runtime.services.prisma;

async function importBook(name: string) {
  const bundle = saltmarshBundle();
  bundle.project.name = name;
  const projectId = (await importBundle(gw, key, bundle)).projectId;
  return { projectId, ids: await entityIdsByName(gw, key, projectId) };
}

/** The project's graph as Neo4j holds it. */
async function inNeo4j(projectId: string) {
  const nodes = await neo.driver.executeQuery('MATCH (n:Entity {projectId: $projectId}) RETURN n.id AS id, n.label AS label, n.type AS type ORDER BY id', { projectId });
  const edges = await neo.driver.executeQuery(
    'MATCH (a:Entity {projectId: $projectId})-[r:REL]->(b:Entity) RETURN r.id AS id, a.id AS from, b.id AS to, r.kind AS kind, r.weight AS weight ORDER BY id',
    { projectId },
  );
  return { nodes: nodes.records.map((r) => r.toObject()), edges: edges.records.map((r) => r.toObject()) };
}

/** The project's graph as PostgreSQL holds it, in Neo4j's shape. */
async function inPostgres(projectId: string) {
  const entities = await db().entity.findMany({ where: { projectId }, select: { id: true, name: true, type: true }, orderBy: { id: 'asc' } });
  const relationships = await db().relationship.findMany({ where: { projectId }, orderBy: { id: 'asc' } });
  return {
    nodes: entities.map((e) => ({ id: e.id, label: e.name, type: e.type })),
    edges: relationships.map((r) => ({ id: r.id, from: r.fromId, to: r.toId, kind: r.kind, weight: r.weight })),
  };
}

test('when entities and relationships are created, changed and deleted, then Neo4j ends up with exactly PostgreSQL\'s graph, and another project\'s stays', async () => {
  const { projectId, ids } = await importBook('Mirror: edits');
  const other = await importBook('Mirror: bystander');
  await drained(gw);
  const bystander = await inNeo4j(other.projectId);
  expect(bystander.nodes).toHaveLength(6);

  const created = await gw.request(`/projects/${projectId}/entities`, { method: 'POST', key, json: { type: 'event', name: 'The Storm', aliases: ['storm'] } });
  expect(created.status, created.text).toBe(201);
  const storm = created.body.id;
  const fears = (await gw.request(`/projects/${projectId}/relationships`, { method: 'POST', key, json: { from: ids['Mara Voss'], to: storm, kind: 'fears', weight: 2 } })).body;
  expect((await gw.request(`/projects/${projectId}/entities/${storm}`, { method: 'PATCH', key, json: { name: 'The Great Storm', type: 'rule' } })).status).toBe(200);
  expect((await gw.request(`/projects/${projectId}/relationships/${fears.id}`, { method: 'PATCH', key, json: { kind: 'dreads', weight: 3 } })).status).toBe(200);
  const captains = await db().relationship.findFirstOrThrow({ where: { projectId, kind: 'captains' } });
  expect((await gw.request(`/projects/${projectId}/relationships/${captains.id}`, { method: 'DELETE', key })).status).toBe(200);
  // Keth has two relationships (sibling_of from Mara, died_at to Gull Point): they go with the node.
  expect((await gw.request(`/projects/${projectId}/entities/${ids['Keth Voss']}`, { method: 'DELETE', key })).status).toBe(200);

  await drained(gw);
  const mirror = await inNeo4j(projectId);
  expect(mirror).toEqual(await inPostgres(projectId));
  expect(mirror.nodes.map((n) => n.id)).not.toContain(ids['Keth Voss']);
  expect(mirror.nodes).toContainEqual({ id: storm, label: 'The Great Storm', type: 'rule' });
  expect(mirror.edges).toEqual([{ id: fears.id, from: ids['Mara Voss'], to: storm, kind: 'dreads', weight: 3 }]);
  expect(await inNeo4j(other.projectId)).toEqual(bystander);
  // The graph endpoint now answers from Neo4j, the same as PostgreSQL.
  const graph = await gw.request(`/projects/${projectId}/graph?root=${ids['Mara Voss']}`, { key });
  expect(graph.body.edges).toEqual([{ from: ids['Mara Voss'], to: storm, kind: 'dreads', weight: 3 }]);
}, 300_000);

test('when a project is deleted, then its nodes leave Neo4j, even behind a row that keeps failing, and another project\'s stay', async () => {
  const doomed = await importBook('Mirror: doomed');
  const kept = await importBook('Mirror: kept');
  await drained(gw);
  const keptBefore = await inNeo4j(kept.projectId);
  expect((await inNeo4j(doomed.projectId)).nodes).toHaveLength(6);

  // A row of the doomed project that cannot be applied holds its project up...
  await db().graphOutbox.create({ data: { projectId: doomed.projectId, op: 'nodes', payload: { items: 'not a list' } } });
  await waitFor('/health to show the failing row', async () => ((await graphSync(gw)).last_error ? true : undefined));

  // ...until the project is deleted: its waiting rows go with it, and one row removes its nodes.
  const res = await gw.request(`/projects/${doomed.projectId}`, { method: 'DELETE', key });
  expect(res.status, res.text).toBe(200);
  const sync = await drained(gw);
  expect(sync.outbox_pending).toBe(0);
  expect(await inNeo4j(doomed.projectId)).toEqual({ nodes: [], edges: [] });
  expect(await inNeo4j(kept.projectId)).toEqual(keptBefore);
  expect(await inNeo4j(kept.projectId)).toEqual(await inPostgres(kept.projectId));
}, 300_000);
