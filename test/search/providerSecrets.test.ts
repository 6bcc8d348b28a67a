// An embedding provider that echoes the key it was given in its error message ("Incorrect API key provided: sk-…",
// as OpenAI's 401 does): the key reaches neither the unauthenticated GET /health nor the gateway's log. The gateway
// runs as users run it (`lore serve` on the embedded store, whose PGlite has pgvector, so the worker calls the provider).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lore, serve, type ServeProcess } from '../support/cli.ts';
import { startFakeEmbeddings, type FakeEmbeddings } from '../support/fakeEmbeddings.ts';
import { apiRequest } from '../support/processes.ts';
import { waitFor } from '../support/wait.ts';
import { seaBundle } from './fixtures.ts';
import { drained, embeddingEnv, health } from './helpers.ts';

const providerKey = 'sk-emb-SECRET-7qT4wLx9';

let dataDir: string;
let fake: FakeEmbeddings;
let gateway: ServeProcess;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'lore-provider-secrets-'));
  fake = await startFakeEmbeddings();
  gateway = await serve({ PORT: '0', LORE_DATA_DIR: dataDir, LORE_LOG_LEVEL: 'warn', ...embeddingEnv(fake.url), LORE_EMBEDDINGS_KEY: providerKey });
}, 120_000);

afterAll(async () => {
  await gateway?.stop();
  await fake?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('a provider error that echoes its key', () => {
  it('when the embedding provider answers 401 quoting the key, then GET /health shows a status and a code only, and the log has the message with the key redacted', async () => {
    const created = await lore(['keys', 'create', '--tier', 'studio', '--json'], { LORE_DATA_DIR: dataDir });
    expect(created.code, created.stderr).toBe(0);
    const { key } = JSON.parse(created.stdout) as { key: string };
    const request = apiRequest(`${gateway.url}/api/v1`);
    const importSea = async (name: string) => {
      const imported = await request(`${gateway.url}/graphql`, {
        method: 'POST',
        key,
        json: { query: 'mutation ($b: JSON!) { importBundle(bundle: $b) { projectId } }', variables: { b: seaBundle(name) } },
      });
      expect(imported.body.errors).toBeUndefined();
      return imported.body.data.importBundle.projectId as string;
    };
    // A project with vectors, so that a search asks the provider for its query's vector.
    const projectId = await importSea('The Saltmarsh Deeps');
    await drained({ url: gateway.url, request });

    fake.failing = 401;
    fake.echoKey = true;
    expect((await request(`/projects/${projectId}/search?q=deep%20water`, { key })).headers.get('lore-search-ranking')).toBe('lexical');
    await importSea('Another book');
    const embeddings = await waitFor('the worker to meet the refusal', async () => {
      const h = (await health({ url: gateway.url, request })).embeddings;
      return h?.provider === 'unreachable' ? h : undefined;
    }, 30_000);
    expect(embeddings.last_error).toBe('provider_http_401');
    const healthText = await (await fetch(`${gateway.url}/health`)).text();
    expect(healthText).not.toContain('SECRET');
    expect(healthText).not.toContain('Incorrect API key');

    const log = await waitFor('both failures in the log', async () => {
      const text = gateway.output();
      return /embedding provider unavailable/.test(text) && /embedding a search query failed/.test(text) ? text : undefined;
    }, 10_000);
    expect(log).toContain('HTTP 401: Incorrect API key provided: [redacted]');
    expect(log).not.toContain('SECRET');
  });
});
