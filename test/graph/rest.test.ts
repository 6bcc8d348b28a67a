// GET /projects/{id}/graph (and the GraphQL graph field) on a gateway configured with a real Neo4j.
import { afterAll, beforeAll, expect } from 'vitest';
import { PostgresGraphStore } from '../../src/core/relationships/postgresGraphStore.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { startNeo4j, type TestNeo4j } from '../support/neo4j.ts';
import { describe, it } from '../support/neo4jTests.ts';
import { smallGraph } from './fixtures.ts';
import type { ImportedGraph } from './graphStoreContract.ts';
import { drained, graphSync, importGraph } from './helpers.ts';

let neo: TestNeo4j;
let gw: TestGateway;
let key: string;
let graph: ImportedGraph;

beforeAll(async () => {
  neo = await startNeo4j();
  gw = await startTestGateway(neo.env);
  key = (await gw.createKey('pro')).key;
  graph = await importGraph(gw, key, smallGraph('Graph over REST'));
  await drained(gw);
});

afterAll(async () => {
  await gw?.close();
  await neo?.close();
});

const id = (k: string) => graph.idOf.get(k)!;
const postgresAnswer = (root?: string, depth = 1) =>
  new PostgresGraphStore(gw.gateway.runtime.services.prisma).subset({ projectId: graph.projectId, root, depth });

describe('GET /projects/{id}/graph with Neo4j', () => {
  it('when the gateway has Neo4j configured, then /health names it and shows an empty outbox once drained', async () => {
    const health = await gw.request(`${gw.url}/health`);
    expect(health.body).toMatchObject({ status: 'ok', graph: 'neo4j' });
    expect(await graphSync(gw)).toEqual({ neo4j: 'reachable', outbox_pending: 0, oldest_pending_age_seconds: null, last_error: null });
  });

  it('when a root and a depth are given, then the neighbourhood comes back as PostgreSQL has it', async () => {
    for (const depth of [1, 2, 3]) {
      const res = await gw.request(`/projects/${graph.projectId}/graph?root=${id('d1')}&depth=${depth}`, { key });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(await postgresAnswer(id('d1'), depth));
    }
    const res = await gw.request(`/projects/${graph.projectId}/graph?root=${id('hub')}`, { key });
    expect(res.body.nodes.map((n: { id: string }) => n.id).slice(0, 2)).toEqual([id('hub'), id('b1')]);
    expect(res.body.edges).toContainEqual({ from: id('hub'), to: id('hub'), kind: 'mirrors', weight: 1 });
  });

  it('when no root is given, then the most connected nodes come back', async () => {
    const res = await gw.request(`/projects/${graph.projectId}/graph`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(await postgresAnswer());
    expect(res.body.nodes[0]).toEqual({ id: id('hub'), label: 'Hub', type: 'character' });
  });

  it('when Neo4j holds the project, then Neo4j answers (a label changed only in Neo4j shows)', async () => {
    await neo.driver.executeQuery('MATCH (n:Entity {id: $id}) SET n.label = $label', { id: id('iso'), label: 'changed in Neo4j only' });
    try {
      const res = await gw.request(`/projects/${graph.projectId}/graph?root=${id('iso')}`, { key });
      expect(res.body.nodes).toEqual([{ id: id('iso'), label: 'changed in Neo4j only', type: 'promise' }]);
    } finally {
      await neo.driver.executeQuery('MATCH (n:Entity {id: $id}) SET n.label = $label', { id: id('iso'), label: 'iso' });
    }
  });

  it('when the GraphQL graph field is asked, then it answers the same as REST', async () => {
    const rest = await gw.request(`/projects/${graph.projectId}/graph?root=${id('b1')}&depth=2`, { key });
    const gql = await gw.graphql(
      'query ($p: ID!, $r: ID) { graph(projectId: $p, root: $r, depth: 2) { nodes { id label type } edges { from to kind weight } } }',
      { p: graph.projectId, r: id('b1') },
      key,
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data.graph).toEqual(rest.body);
  });

  it('when the root is unknown or belongs to another project, then 404 not_found', async () => {
    const other = await importGraph(gw, key, smallGraph('Graph over REST, other project'));
    await drained(gw);
    for (const root of ['ent_unknown', other.idOf.get('hub')!]) {
      const res = await gw.request(`/projects/${graph.projectId}/graph?root=${root}`, { key });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'not_found', status: 404 });
    }
  });

  it('when the root carries an injection attempt, then 400 validation_error and the graph is unchanged', async () => {
    const before = await gw.request(`/projects/${graph.projectId}/graph`, { key });
    for (const root of ["x' OR 1=1 --", "x'}) MATCH (n) DETACH DELETE n //", '$projectId']) {
      const res = await gw.request(`/projects/${graph.projectId}/graph?root=${encodeURIComponent(root)}`, { key });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_error');
    }
    expect((await gw.request(`/projects/${graph.projectId}/graph`, { key })).body).toEqual(before.body);
  });

  it('when depth is outside 1..3, then 400 validation_error', async () => {
    for (const depth of ['0', '4', 'two']) {
      const res = await gw.request(`/projects/${graph.projectId}/graph?root=${id('hub')}&depth=${depth}`, { key });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_error');
    }
  });

  it("when another account asks for the project's graph, then 404", async () => {
    const stranger = (await gw.createKey('pro')).key;
    expect((await gw.request(`/projects/${graph.projectId}/graph`, { key: stranger })).status).toBe(404);
  });
});
