// The graph store contract on both stores, over the same projects: imported once through the gateway (configured
// with Neo4j), copied to Neo4j by the outbox, then asked of PostgresGraphStore and Neo4jGraphStore alike.
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, expect } from 'vitest';
import { Neo4jGraphStore } from '../../src/core/relationships/neo4jGraphStore.ts';
import { PostgresGraphStore } from '../../src/core/relationships/postgresGraphStore.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { startNeo4j, type TestNeo4j } from '../support/neo4j.ts';
import { test } from '../support/neo4jTests.ts';
import { randomGraph, smallGraph, starGraph } from './fixtures.ts';
import { graphStoreContract, type ContractFixtures } from './graphStoreContract.ts';
import { drained, importGraph } from './helpers.ts';

let neo: TestNeo4j;
let gw: TestGateway;
let fixtures: ContractFixtures;

beforeAll(async () => {
  neo = await startNeo4j();
  gw = await startTestGateway(neo.env);
  const { key } = await gw.createKey('pro');
  const first = await importGraph(gw, key, smallGraph());
  // A second import renames hub and re-weights hub -> b2: the stores must show the later values.
  const small = await importGraph(gw, key, smallGraph('Graph: small', { hubName: 'Hub the Renamed', hubB2Weight: 7.25 }), first.projectId);
  fixtures = {
    small,
    smallElsewhere: await importGraph(gw, key, smallGraph('Graph: small, elsewhere')),
    star: await importGraph(gw, key, starGraph()),
    random: await importGraph(gw, key, randomGraph('Graph: random', { entities: 300, relationships: 1_200 })),
  };
  await drained(gw);
});

afterAll(async () => {
  await gw?.close();
  await neo?.close();
});

const services = () => gw.gateway.runtime.services;
graphStoreContract('PostgreSQL', () => new PostgresGraphStore(services().prisma), () => fixtures);
graphStoreContract('Neo4j', () => new Neo4jGraphStore(services().neo4j!), () => fixtures);

test('when both stores are asked the same question about any node at any depth, then their answers are identical', async () => {
  const postgres = new PostgresGraphStore(services().prisma);
  const neo4j = new Neo4jGraphStore(services().neo4j!);
  let compared = 0;
  for (const graph of Object.values(fixtures)) {
    const ids = [...graph.idOf.values()];
    const step = Math.max(1, Math.floor(ids.length / 25));
    const questions = [undefined, ...ids.filter((_, i) => i % step === 0)];
    for (const root of questions) {
      for (const depth of root ? [1, 2, 3] : [1]) {
        const query = { projectId: graph.projectId, root, depth };
        const [a, b] = await Promise.all([postgres.subset(query), neo4j.subset(query)]);
        if (!isDeepStrictEqual(a, b)) expect(b, JSON.stringify(query)).toEqual(a);
        compared++;
      }
    }
  }
  expect(compared).toBeGreaterThan(150);
}, 300_000);
