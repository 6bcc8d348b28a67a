// Issue 28, item 5: the embedded store runs in a thread of its own, so a long statement on it does not hold up the
// thread that serves HTTP: a request that needs no store is answered while the statement runs, and one that needs the
// store is answered once the statement is done. A real `lore serve`; the long statement comes through the store's
// socket as psql's would.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serve, type ServeProcess } from '../support/cli.ts';

let dataDir: string;
let running: ServeProcess;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'lore-thread-'));
  // A generous bound: a new store's first start (PGlite's initdb and the migrations) is slow on a loaded machine.
  running = await serve({ LORE_DATA_DIR: dataDir, PORT: '0' }, 180_000);
});
afterAll(async () => {
  await running?.stop('SIGTERM');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it('when the embedded store runs a long statement, then a request that needs no store is answered before it ends, and the health check after it', async () => {
  const socketDir = JSON.parse(await readFile(path.join(dataDir, 'owner.json'), 'utf8')).socket;
  const secret = (await readFile(path.join(dataDir, 'pglite.secret'), 'utf8')).trim();
  const client = new pg.Client({ host: socketDir, database: 'postgres', user: 'lore', password: secret });
  await client.connect();
  try {
    let statementDone = false;
    const statement = client.query('SELECT pg_sleep(4)').then(() => (statementDone = true));
    // The health check needs the store: it waits for the statement.
    const health = fetch(`${running.url}/health`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const openapi = await fetch(`${running.url}/api/v1/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(statementDone).toBe(false);
    await statement;
    expect((await health).status).toBe(200);
  } finally {
    await client.end();
  }
});
