// `lore graph rebuild` as a child process: copies PostgreSQL's graph into Neo4j (here after a gateway that ran
// without Neo4j recorded the changes), for one project or all, and says clearly when it cannot.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, expect } from 'vitest';
import { openNeo4j, type Neo4jClient } from '../../src/db/neo4j.ts';
import { Neo4jGraphStore } from '../../src/core/relationships/neo4jGraphStore.ts';
import { PostgresGraphStore } from '../../src/core/relationships/postgresGraphStore.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { startNeo4j, type TestNeo4j } from '../support/neo4j.ts';
import { describe, it } from '../support/neo4jTests.ts';
import { randomGraph, smallGraph } from './fixtures.ts';
import type { ImportedGraph } from './graphStoreContract.ts';
import { importGraph } from './helpers.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

let neo: TestNeo4j;
let client: Neo4jClient;
let gw: TestGateway;
let first: ImportedGraph;
let second: ImportedGraph;

function lore(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/lore.mjs', ...args],
      { cwd: repoRoot, env: { ...process.env, LORE_LOG_LEVEL: 'silent', NEO4J_URL: '', NEO4J_USER: '', NEO4J_PASSWORD: '', ...env, DATABASE_URL: gw.databaseUrl } },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function nodesOf(projectId: string): Promise<number> {
  const result = await neo.driver.executeQuery('MATCH (n:Entity {projectId: $projectId}) RETURN count(n) AS n', { projectId });
  return result.records[0].get('n');
}

async function expectSameGraph(graph: ImportedGraph) {
  const postgres = new PostgresGraphStore(gw.gateway.runtime.services.prisma);
  const neo4j = new Neo4jGraphStore(client);
  for (const root of [undefined, ...[...graph.idOf.values()].slice(0, 12)]) {
    for (const depth of root ? [1, 3] : [1]) {
      const query = { projectId: graph.projectId, root, depth };
      const [a, b] = await Promise.all([postgres.subset(query), neo4j.subset(query)]);
      if (!isDeepStrictEqual(a, b)) expect(b, JSON.stringify(query)).toEqual(a);
    }
  }
}

beforeAll(async () => {
  neo = await startNeo4j();
  client = openNeo4j({ url: neo.url, user: neo.env.NEO4J_USER, password: neo.env.NEO4J_PASSWORD });
  // A gateway without Neo4j: it only marks the projects it changes, for a later copy.
  gw = await startTestGateway();
  const { key } = await gw.createKey('pro');
  first = await importGraph(gw, key, smallGraph('Rebuild: first'));
  const secondBundle = randomGraph('Rebuild: second', { entities: 200, relationships: 600 });
  await importGraph(gw, key, { ...secondBundle, entities: secondBundle.entities.map((e) => ({ ...e, name: `${e.name} (draft)` })) });
  // Imported again with the final names: without Neo4j the project still has a single mark in the outbox.
  second = await importGraph(gw, key, secondBundle);
  // Leftovers in Neo4j: a stale label of the first project and the nodes of a project PostgreSQL does not have.
  await neo.driver.executeQuery('CREATE (:Entity {id: $id, projectId: $projectId, label: "stale", type: "character"})', {
    id: first.idOf.get('hub'),
    projectId: first.projectId,
  });
  await neo.driver.executeQuery('CREATE (:Entity {id: "ent_gone", projectId: "prj_gone", label: "gone", type: "rule"})');
});

afterAll(async () => {
  await client?.close();
  await gw?.close();
  await neo?.close();
});

describe('lore graph rebuild', () => {
  it('when run for one project, then Neo4j holds exactly that project as PostgreSQL has it, and nothing else changes', async () => {
    const run = await lore(['graph', 'rebuild', '--project', first.projectId, '--json'], neo.env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ projects: [{ projectId: first.projectId, nodes: 7, edges: 7 }] });
    await expectSameGraph(first);
    expect(await nodesOf(second.projectId)).toBe(0);
    expect(await nodesOf('prj_gone')).toBe(1);
    // The project's rows are consumed; the other project's mark is still waiting.
    const { prisma } = gw.gateway.runtime.services;
    expect(await prisma.graphOutbox.count({ where: { projectId: first.projectId } })).toBe(0);
    expect(await prisma.graphOutbox.count({ where: { projectId: second.projectId } })).toBe(1);
  });

  it('when run for every project, then all are copied and nodes of unknown projects are removed', async () => {
    const run = await lore(['graph', 'rebuild'], neo.env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`rebuilt ${second.projectId}: 200 nodes, ${second.bundle.relationships.length} relationships`);
    expect(run.stdout).toMatch(/\b2 projects rebuilt in Neo4j/);
    await expectSameGraph(first);
    await expectSameGraph(second);
    expect(await nodesOf('prj_gone')).toBe(0);
    expect(await gw.gateway.runtime.services.prisma.graphOutbox.count()).toBe(0);
  });

  it('when Neo4j is not configured, then it fails with a message saying what to set', async () => {
    const run = await lore(['graph', 'rebuild'], {});
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('graph rebuild needs Neo4j: set NEO4J_URL, NEO4J_USER and NEO4J_PASSWORD');
  });

  it('when the project does not exist, then it fails with not_found', async () => {
    const run = await lore(['graph', 'rebuild', '--project', 'prj_missing'], neo.env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('not_found: Project prj_missing not found.');
  });

  it('when Neo4j cannot be reached, then it fails saying so', async () => {
    const run = await lore(['graph', 'rebuild'], { ...neo.env, NEO4J_URL: 'bolt://127.0.0.1:1' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Neo4j at bolt://127.0.0.1:1 is unavailable');
  });
});
