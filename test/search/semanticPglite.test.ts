// Semantic search on the embedded default (PGlite in LORE_DATA_DIR, with its bundled pgvector): the same schema and
// code path as on PostgreSQL: vectors after a provider outage, the fused ranking over REST, GraphQL and MCP,
// pagination, the fallback, tenant isolation and `lore embeddings rebuild` reaching the running gateway's store.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../../app/gateway.ts';
import { loadConfig } from '../../src/config.ts';
import { callTool, connectMcp } from '../mcp/harness.ts';
import { lore } from '../support/cli.ts';
import { startFakeEmbeddings, type FakeEmbeddings } from '../support/fakeEmbeddings.ts';
import { expectProblem } from '../support/problem.ts';
import { apiRequest } from '../support/processes.ts';
import { waitFor } from '../support/wait.ts';
import { seaBundle, seaVectorCount } from './fixtures.ts';
import { drained, embeddingEnv, health, search, walk, type Surface } from './helpers.ts';

let dataDir: string;
let fake: FakeEmbeddings;
let gateway: Gateway;
let gw: Surface;
let key: string;
let projectId: string;

async function importSea(bundle: unknown, apiKey = key): Promise<string> {
  const imported = await gw.request(`${gateway.url}/graphql`, {
    method: 'POST',
    key: apiKey,
    json: { query: 'mutation ($b: JSON!) { importBundle(bundle: $b) { projectId } }', variables: { b: bundle } },
  });
  expect(imported.body.errors).toBeUndefined();
  return imported.body.data.importBundle.projectId;
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'lore-semantic-'));
  fake = await startFakeEmbeddings();
  gateway = await startGateway(loadConfig({ PORT: '0', HOST: '127.0.0.1', LORE_LOG_LEVEL: 'silent', LORE_DATA_DIR: dataDir, ...embeddingEnv(fake.url) }));
  expect(gateway.runtime.db.mode).toBe('pglite');
  gw = { url: gateway.url, request: apiRequest(`${gateway.url}/api/v1`) };
  ({ key } = await gateway.runtime.services.keys.create({ tier: 'studio' }));
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await fake?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('semantic search on PGlite (the embedded default)', () => {
  it('when an import lands while the provider is down, then search answers lexically until the provider is back, and then every vector arrives and the rankings are fused', async () => {
    fake.failing = 503;
    projectId = await importSea(seaBundle());
    const waiting = await waitFor('the worker to meet the outage', async () => {
      const h = (await health(gw)).embeddings;
      return h?.provider === 'unreachable' ? h : undefined;
    }, 30_000);
    expect(waiting).toMatchObject({ vectors: 'pgvector', outbox_pending: seaVectorCount });
    expect(await search(gw, key, projectId, 'deep water')).toMatchObject({ ranking: 'lexical', names: ['Tobin Reed'] });

    fake.failing = false;
    await drained(gw);
    expect(await search(gw, key, projectId, 'deep water')).toMatchObject({ ranking: 'hybrid', names: ['Tobin Reed', 'Oren Hale', 'Keth Voss'] });
    expect((await search(gw, key, projectId, "the sailor's fear of deep water")).names).toEqual(['Oren Hale', 'Tobin Reed', 'Keth Voss']);
  });

  it('when results are fused, then they page as on PostgreSQL, and GraphQL and MCP rank as REST does', async () => {
    const all = await search(gw, key, projectId, "the sailor's fear of deep water", { limit: '100' });
    expect(await walk(gw, key, projectId, "the sailor's fear of deep water", 1)).toEqual(all.names);
    expectProblem(await gw.request(`/projects/${projectId}/search?q=deep&starting_after=ent_elsewhere`, { key }), 400, 'invalid_cursor');

    const graphql = await gw.request(`${gateway.url}/graphql`, {
      method: 'POST',
      key,
      json: { query: 'query ($p: ID!) { search(projectId: $p, q: "deep water") { ranking data { canonicalName } } }', variables: { p: projectId } },
    });
    expect(graphql.body.data.search).toEqual({ ranking: 'hybrid', data: [{ canonicalName: 'Tobin Reed' }, { canonicalName: 'Oren Hale' }, { canonicalName: 'Keth Voss' }] });
    const session = await connectMcp({ LORE_API_URL: gateway.url, LORE_API_KEY: key, LORE_PROJECT_ID: projectId });
    try {
      const result = await callTool(session, 'lore_author_search', { query: 'deep water' });
      expect(result.structuredContent).toMatchObject({ ranking: 'hybrid', entities: [{ canonicalName: 'Tobin Reed' }, { canonicalName: 'Oren Hale' }, { canonicalName: 'Keth Voss' }] });
    } finally {
      await session.close();
    }
  });

  it("when another account's project holds nearer vectors, then they never rank here", async () => {
    const before = await search(gw, key, projectId, 'deep water', { limit: '100' });
    const other = await gateway.runtime.services.keys.create({ tier: 'studio' });
    const otherProject = await importSea({
      project: { name: 'Another book' },
      entities: [{ key: 'marlow', type: 'character', name: 'Marlow', facts: ['Marlow swims the deep sea water.'] }],
    }, other.key);
    await drained(gw);
    expect((await search(gw, key, projectId, 'deep water', { limit: '100' })).res.body).toEqual(before.res.body);
    expect(await search(gw, other.key, otherProject, 'deep water')).toMatchObject({ ranking: 'hybrid', names: ['Marlow'] });
    expectProblem(await gw.request(`/projects/${otherProject}/search?q=deep`, { key }), 404, 'not_found');
  });

  it('when `lore embeddings rebuild --project` runs beside the gateway, then every item of that project is embedded again, and no other', async () => {
    const sent = fake.requests.length;
    const rebuilt = await lore(['embeddings', 'rebuild', '--project', projectId, '--json'], { LORE_DATA_DIR: dataDir, ...embeddingEnv(fake.url) });
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(JSON.parse(rebuilt.stdout)).toEqual({ projectId, queued: seaVectorCount, waiting: 0 });
    // The gateway's worker may embed some of them too: PGlite's one session does not exclude two drainers.
    const texts = new Set(fake.requests.slice(sent).flatMap((r) => r.input));
    expect(texts.size).toBe(seaVectorCount);
    expect(texts).toContain('Keth never learned to swim.');
    expect([...texts].some((t) => t.includes('Marlow'))).toBe(false);
    expect(await search(gw, key, projectId, 'deep water')).toMatchObject({ ranking: 'hybrid', names: ['Tobin Reed', 'Oren Hale', 'Keth Voss'] });
  });

  it('when the provider fails at query time, then search answers lexically, and ranks by meaning again once it is back, embedding each query text once', async () => {
    fake.failing = 502;
    expect(await search(gw, key, projectId, 'water deep')).toMatchObject({ ranking: 'lexical', names: ['Tobin Reed'] });
    fake.failing = false;
    await waitFor('a hybrid answer again', async () => ((await search(gw, key, projectId, 'water deep')).ranking === 'hybrid' ? true : undefined), 20_000);
    // The query's vector is kept: other pages of the same text ask the provider nothing.
    const asked = () => fake.requests.filter((r) => r.input.includes('water deep')).length;
    const before = asked();
    await search(gw, key, projectId, 'water deep', { limit: '2' });
    await search(gw, key, projectId, 'water deep', { limit: '3' });
    expect(asked()).toBe(before);
  });
});
