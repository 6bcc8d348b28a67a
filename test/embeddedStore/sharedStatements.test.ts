// The embedded store's socket prepares each statement text of the owner's connections once in the shared session
// (src/db/embeddedSocket.ts), except statements that spell out a list of values as parameters, whose generic plan
// is made for the list's length, not its values. Checked from the session itself: pg_prepared_statements.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serveEmbeddedSocket, type EmbeddedSocket } from '../../src/db/embeddedSocket.ts';

let db: PGlite;
let socket: EmbeddedSocket;
let socketDir: string;
const secret = randomBytes(16).toString('hex');
const ownerToken = randomBytes(16).toString('hex');

beforeAll(async () => {
  socketDir = await mkdtemp(path.join(tmpdir(), 'lore-shared-'));
  db = await PGlite.create();
  socket = await serveEmbeddedSocket(db, { socketDir, secret, ownerToken });
});
afterAll(async () => {
  await socket?.close();
  await db?.close();
  if (socketDir) await rm(socketDir, { recursive: true, force: true });
});

it('when the owner runs a statement twice and a statement with an IN list of parameters twice, then only the first is prepared in the session', async () => {
  const client = new pg.Client({ host: socketDir, user: 'lore', password: secret, database: 'postgres', application_name: ownerToken });
  await client.connect();
  try {
    const single = 'SELECT $1::int + 1 AS n';
    const list = 'SELECT n FROM generate_series(1, 5) AS n WHERE n IN ($1, $2)';
    for (let i = 0; i < 2; i++) {
      expect((await client.query(single, [i])).rows).toEqual([{ n: i + 1 }]);
      expect((await client.query(list, [2, 4])).rows).toEqual([{ n: 2 }, { n: 4 }]);
    }
    const prepared = (await client.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements')).rows.map((r) => r.statement);
    expect(prepared).toContain(single);
    expect(prepared).not.toContain(list);
  } finally {
    await client.end();
  }
});
