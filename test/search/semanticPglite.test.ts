// Semantic search on the embedded default (PGlite in LORE_DATA_DIR, with its bundled pgvector): the same schema and
// code path as on PostgreSQL: vectors after a provider outage, the fused ranking, pagination and the fallback.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../../app/gateway.ts';
import { loadConfig } from '../../src/config.ts';
import { startFakeEmbeddings, type FakeEmbeddings } from '../support/fakeEmbeddings.ts';
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
    const imported = await gw.request(`${gateway.url}/graphql`, {
      method: 'POST',
      key,
      json: { query: 'mutation ($b: JSON!) { importBundle(bundle: $b) { projectId } }', variables: { b: seaBundle() } },
    });
    expect(imported.body.errors).toBeUndefined();
    projectId = imported.body.data.importBundle.projectId;
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

  it('when results are fused, then they page as on PostgreSQL', async () => {
    const all = await search(gw, key, projectId, "the sailor's fear of deep water", { limit: '100' });
    expect(await walk(gw, key, projectId, "the sailor's fear of deep water", 1)).toEqual(all.names);
  });

  it('when the provider fails at query time, then search answers lexically, and ranks by meaning again once it is back', async () => {
    fake.failing = 502;
    expect(await search(gw, key, projectId, 'water deep')).toMatchObject({ ranking: 'lexical', names: ['Tobin Reed'] });
    fake.failing = false;
    await waitFor('a hybrid answer again', async () => ((await search(gw, key, projectId, 'water deep')).ranking === 'hybrid' ? true : undefined), 20_000);
  });
});
