// A gateway just started holds no project's names: new entities of one project arriving together need them all, and
// one read of them is in flight at a time (src/core/names/projectNames.ts), the others waiting for it, not each
// reading every name. Seen in PostgreSQL: the reads waiting there while the test holds a lock they need.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { spawnGateways } from '../support/processes.ts';
import { waitFor } from '../support/wait.ts';

const entityCount = 200;
let databaseUrl: string;
let here: TestGateway;
let key: string;
let projectId: string;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  here = await startTestGateway({ DATABASE_URL: databaseUrl });
  ({ key } = await here.createKey('enterprise', { customRate: 1_000_000, customQuota: 1_000_000 }));
  const entities = Array.from({ length: entityCount }, (_, i) => ({ key: `e${i}`, type: 'character', name: `Orlen${i.toString(36)}vask` }));
  projectId = (await importBundle(here, key, { project: { name: 'The Crowded Hall' }, entities })).projectId;
  await here.close();
}, 180_000);

afterAll(() => here?.close());

describe('a project\'s names read once at a time', () => {
  it('when new entities of one project arrive together at a gateway just started, then one read of its names is in flight, not one each', async () => {
    const [gateway] = await spawnGateways(1, databaseUrl);
    const holder = new pg.Client({ connectionString: databaseUrl });
    await holder.connect();
    try {
      // The names' read names the names log: with the log locked, each read of the names in flight waits in PostgreSQL.
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE "NameChange" IN ACCESS EXCLUSIVE MODE');
      const waiting = async () => (await holder.query(
        `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'NameChange' AND NOT l.granted`)).rows[0].n as number;
      const names = Array.from({ length: 8 }, (_, i) => `Tamsin${i.toString(36)}quell`);
      const created = Promise.all(names.map((name) => gateway.request(`/projects/${projectId}/entities`, { method: 'POST', key, json: { type: 'character', name } })));
      await waitFor('a read of the names to wait', async () => ((await waiting()) > 0 ? true : undefined), 30_000);
      // Time for the others to arrive and, if each read the names, to wait too.
      await new Promise((r) => setTimeout(r, 2_000));
      const reads = await waiting();
      await holder.query('COMMIT');
      for (const res of await created) expect(res.status, res.text).toBe(201);
      expect(reads).toBe(1);
      // Exact all the same: a recall after them finds every one.
      const recall = await gateway.request(`/projects/${projectId}/recall?q=tamsin&limit=100`, { key });
      expect(recall.body.entities.map((e: { canonicalName: string }) => e.canonicalName).sort()).toEqual(names.sort());
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
      await gateway.stop();
    }
  }, 120_000);
});
