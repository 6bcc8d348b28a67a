// `lore serve` (node bin/lore.mjs serve, as a process manager starts it) on SIGTERM and SIGINT: it stops accepting,
// lets the requests in flight finish, closes the store and exits 0 soon after; a request that outlasts
// LORE_SHUTDOWN_TIMEOUT_MS is cut off and the process exits 1; with LORE_WORKERS the supervisor passes the signal on.
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyService } from '../../src/core/access/keys.ts';
import { openDatabase } from '../../src/db/database.ts';
import { serve } from '../support/cli.ts';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { createTestDatabase } from '../support/gateway.ts';
import { childProcesses, httpRequest, spawnGateway, type GatewayProcess } from '../support/processes.ts';
import { waitFor } from '../support/wait.ts';

const llmDelayMs = 8_000;
let fake: FakeLlm;
let databaseUrl: string;
let key: string;
let projectId: string;

beforeAll(async () => {
  fake = await startFakeLlm();
  databaseUrl = await createTestDatabase();
  const db = await openDatabase({ databaseUrl, dataDir: '' });
  try {
    ({ key } = await new KeyService(db.prisma, db.sql).create({ tier: 'pro' }));
  } finally {
    await db.close();
  }
  const gateway = await spawnGateway(databaseUrl);
  try {
    projectId = await importSaltmarsh(gateway.url);
  } finally {
    await gateway.stop();
  }
}, 180_000);
afterAll(async () => {
  await fake?.close();
});

async function importSaltmarsh(url: string): Promise<string> {
  const res = await httpRequest(`${url}/graphql`, {
    method: 'POST',
    key,
    json: { query: 'mutation ($bundle: JSON!) { importBundle(bundle: $bundle) { projectId } }', variables: { bundle: saltmarshBundle() } },
  });
  if (!res.body?.data) throw new Error(`import failed: ${res.text}`);
  return res.body.data.importBundle.projectId;
}

const llmEnv = () => ({ LORE_OPENAI_BASE_URL: fake.url, LORE_LLM_TIMEOUT_MS: '30000' });

/** A conflict check whose LLM call answers after `delayMs`; resolves once the gateway is waiting on it. */
async function slowCheck(url: string, delayMs = llmDelayMs): Promise<{ response: ReturnType<typeof httpRequest> }> {
  fake.script({ delayMs, object: { conflicts: [] } });
  const sent = fake.requests.length;
  const response = httpRequest(`${url}/api/v1/projects/${projectId}/conflicts/check`, {
    method: 'POST',
    key,
    headers: { 'X-LLM-Provider': 'openai', 'X-LLM-Key': 'sk-provider-key', 'X-LLM-Model': 'test-model' },
    json: { text: 'Mara Voss watched the tide.' },
  });
  // The test awaits it later; a failure before then must not also surface as an unhandled rejection.
  response.catch(() => undefined);
  await waitFor('the check to reach the LLM', async () => (fake.requests.length > sent ? true : undefined), 30_000);
  return { response };
}

/** The exit code (or signal) of a child, and how long after `since` it came. */
function exitOf(child: GatewayProcess['child'], since: () => number) {
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; afterMs: number }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode, afterMs: 0 });
    else child.once('exit', (code, signal) => resolve({ code, signal, afterMs: Date.now() - since() }));
  });
}

/** Before the slow request ends (a busy machine may take seconds to get there), a new request to the port is refused. */
const portClosed = (url: string) => waitFor('the port to close', async () => ((await refused(url)) === 'ECONNREFUSED' ? true : undefined), llmDelayMs - 2_000);

const refused = (url: string) =>
  httpRequest(`${url}/health`).then(
    (res) => `answered ${res.status}`,
    (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
  );

describe('lore serve on a signal', { timeout: 120_000 }, () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('when %s arrives during a slow request, then new connections are refused, the request completes with 200 and the process exits 0 soon after', async (signal) => {
    const gateway = await spawnGateway(databaseUrl, llmEnv());
    try {
      const { response } = await slowCheck(gateway.url);
      let answeredAt = 0;
      const exit = exitOf(gateway.child, () => answeredAt);
      const signalledAt = Date.now();
      gateway.child.kill(signal);
      // While the request is still waiting on the LLM, the port no longer takes connections.
      await portClosed(gateway.url);
      const res = await response;
      answeredAt = Date.now();
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ conflicts: [] });
      // Its connection is not kept alive for more requests, so nothing holds the process once it is answered.
      expect(res.headers.get('connection')).toBe('close');
      expect(answeredAt - signalledAt).toBeGreaterThan(llmDelayMs / 2);
      const { code, signal: killedBy, afterMs } = await exit;
      expect({ code, killedBy }).toEqual({ code: 0, killedBy: null });
      expect(afterMs).toBeLessThan(3_000);
    } finally {
      await gateway.stop();
    }
  });

  it('when a request outlasts LORE_SHUTDOWN_TIMEOUT_MS, then it is cut off and the process exits 1 at that bound', async () => {
    const gateway = await spawnGateway(databaseUrl, { ...llmEnv(), LORE_SHUTDOWN_TIMEOUT_MS: '1000' });
    try {
      const { response } = await slowCheck(gateway.url, 20_000);
      const signalledAt = Date.now();
      const exit = exitOf(gateway.child, () => signalledAt);
      gateway.child.kill('SIGTERM');
      const cutOff = await response.then((res) => `answered ${res.status}`, () => 'cut off');
      expect(cutOff).toBe('cut off');
      const { code, afterMs } = await exit;
      expect(code).toBe(1);
      expect(afterMs).toBeGreaterThanOrEqual(900);
      expect(afterMs).toBeLessThan(5_000);
    } finally {
      await gateway.stop();
    }
  });

  it('when LORE_WORKERS=2 and the supervisor gets SIGTERM during a slow request, then it passes the signal on, the request completes with 200, and all exit 0', async () => {
    const gateway = await spawnGateway(databaseUrl, { ...llmEnv(), LORE_WORKERS: '2', LORE_LOG_LEVEL: 'info' });
    let logs = '';
    gateway.child.stderr!.on('data', (chunk: string) => (logs += chunk));
    try {
      const workers = childProcesses(gateway.child.pid!);
      expect(workers).toHaveLength(2);
      const { response } = await slowCheck(gateway.url);
      let answeredAt = 0;
      const exit = exitOf(gateway.child, () => answeredAt);
      gateway.child.kill('SIGTERM');
      // node:cluster's primary strands a connection it accepts in the very instant its workers close (until it exits),
      // so the port is tried once both workers have begun to shut down.
      await waitFor('both workers to begin shutting down', async () => (logs.match(/"shutting down/g)?.length === 2 ? true : undefined), 10_000);
      await portClosed(gateway.url);
      const res = await response;
      answeredAt = Date.now();
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('connection')).toBe('close');
      const { code, signal, afterMs } = await exit;
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      expect(afterMs).toBeLessThan(3_000);
      expect(workers.filter((pid) => readdirSync('/proc').includes(String(pid)))).toEqual([]);
    } finally {
      await gateway.stop();
    }
  });

  it('when the embedded store serves and SIGTERM arrives, then the process closes it and exits 0, and the next start opens it again', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'lore-shutdown-'));
    try {
      for (let round = 0; round < 2; round++) {
        const server = await serve({ LORE_DATA_DIR: dataDir, PORT: '0' });
        const health = await httpRequest(`${server.url}/health`);
        expect(health.body).toMatchObject({ status: 'ok', database: 'pglite' });
        expect(await server.stop('SIGTERM')).toBe(0);
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
