// `lore serve` with LORE_WORKERS: several gateway processes on one port, sharing rate limits through the database,
// replacing a worker that dies, and all stopping with the primary.
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyService } from '../../src/core/access/keys.ts';
import { openDatabase } from '../../src/db/database.ts';
import { expectCleanFailure, lore } from '../support/cli.ts';
import { createTestDatabase } from '../support/gateway.ts';
import { childProcesses, spawnGateway, type GatewayProcess } from '../support/processes.ts';
import { waitFor } from '../support/wait.ts';

let databaseUrl: string;
let gateway: GatewayProcess;
let key: string;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  const db = await openDatabase({ databaseUrl, dataDir: '' });
  try {
    ({ key } = await new KeyService(db.prisma, db.sql).create({ tier: 'pro' }));
  } finally {
    await db.close();
  }
  gateway = await spawnGateway(databaseUrl, { LORE_WORKERS: '2' });
}, 180_000);

afterAll(async () => {
  await gateway?.stop();
});

describe('LORE_WORKERS', { timeout: 180_000 }, () => {
  it('when two workers serve one port, then they share one rate limit', async () => {
    expect(childProcesses(gateway.child.pid!)).toHaveLength(2);
    // pro: 60 requests a minute; listing projects costs no quota, so only the rate limit applies.
    const statuses = await Promise.all(Array.from({ length: 90 }, () => gateway.request('/projects', { key }).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
  });

  it('when a worker dies, then another takes its place and the port keeps answering', async () => {
    const [victim] = childProcesses(gateway.child.pid!);
    process.kill(victim, 'SIGKILL');
    await waitFor('a replacement worker', async () => {
      const workers = childProcesses(gateway.child.pid!);
      return workers.length === 2 && !workers.includes(victim) ? workers : undefined;
    }, 60_000);
    const health = await gateway.request(`${gateway.url}/health`);
    expect(health.status).toBe(200);
  });

  it('when the primary is stopped, then every worker exits with it', async () => {
    const workers = childProcesses(gateway.child.pid!);
    await gateway.stop();
    await waitFor('the workers to exit', async () => (workers.every((pid) => !readdirSync('/proc').includes(String(pid))) ? true : undefined), 15_000);
  });

  it('when LORE_WORKERS is above 1 without DATABASE_URL, then serve says the embedded store serves one process', async () => {
    const result = await lore(['serve'], { LORE_WORKERS: '2', PORT: '0' });
    expectCleanFailure(result, /LORE_WORKERS above 1 needs DATABASE_URL/);
  });
});
