// The migration that makes chapter ordinals unique, on a store that holds ties from before it: on PostgreSQL through
// the gateway's own migrator (src/db/migrate.ts), and on PGlite, which the embedded store runs the same files on.
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { applyMigrations } from '../../src/db/migrate.ts';
import { adminUrl, databaseUrl } from '../support/env.ts';

const migrationsDir = fileURLToPath(new URL('../../prisma/migrations/', import.meta.url));
const target = '20261126000000_chapter_source_unique_ordinals';

async function migrationsBefore(): Promise<{ name: string; sql: string }[]> {
  const names = (await readdir(migrationsDir, { withFileTypes: true })).filter((d) => d.isDirectory() && d.name < target).map((d) => d.name).sort();
  return Promise.all(names.map(async (name) => ({ name, sql: await readFile(path.join(migrationsDir, name, 'migration.sql'), 'utf8') })));
}

// Two sources with ordinals 1..3 each (the tie the old import made), a chapter far on, and a project with no tie.
const seed = `
  INSERT INTO "Account"(id, name) VALUES ('acc_1', 'a');
  INSERT INTO "Project"(id, "accountId", name, "updatedAt") VALUES ('prj_tied', 'acc_1', 'tied', now()), ('prj_clean', 'acc_1', 'clean', now());
  INSERT INTO "Chapter"(id, "projectId", "externalId", ordinal, "createdAt") VALUES
    ('chp_a1', 'prj_tied', 'ch-01', 1, '2026-01-01'), ('chp_a2', 'prj_tied', 'ch-02', 2, '2026-01-01'), ('chp_a3', 'prj_tied', 'ch-03', 3, '2026-01-01'),
    ('chp_b1', 'prj_tied', 'ch1', 1, '2026-02-01'), ('chp_b2', 'prj_tied', 'ch2', 2, '2026-02-01'), ('chp_b3', 'prj_tied', 'ch3', 3, '2026-02-01'),
    ('chp_far', 'prj_tied', 'ch-61', 61, '2026-01-01'),
    ('chp_c1', 'prj_clean', 'a', 5, '2026-01-01'), ('chp_c2', 'prj_clean', 'b', 10, '2026-01-01');
  INSERT INTO "Entity"(id, "projectId", key, type, name, "updatedAt") VALUES ('ent_1', 'prj_tied', 'ilse', 'character', 'Ilse', now());
  INSERT INTO "Mention"(id, "projectId", "entityId", "chapterId", line, "column", snippet, "sortKey") VALUES
    ('men_1', 'prj_tied', 'ent_1', 'chp_b2', 3, 7, 'Ilse', '00000002:00000003:000007:men_1');
`;
const chaptersQuery = `SELECT "projectId", "externalId", ordinal, source FROM "Chapter" ORDER BY "projectId", ordinal`;
const expected = [
  ['prj_clean', 'a', 5, 'unknown'], ['prj_clean', 'b', 10, 'unknown'],
  ['prj_tied', 'ch-01', 1, 'unknown'], ['prj_tied', 'ch1', 2, 'unknown'], ['prj_tied', 'ch-02', 3, 'unknown'], ['prj_tied', 'ch2', 4, 'unknown'],
  ['prj_tied', 'ch-03', 5, 'unknown'], ['prj_tied', 'ch3', 6, 'unknown'], ['prj_tied', 'ch-61', 61, 'unknown'],
];
const asRows = (rows: Record<string, unknown>[]) => rows.map((r) => [r.projectId, r.externalId, r.ordinal, r.source]);

describe('the unique-ordinal migration', () => {
  it('when a PostgreSQL store holds tied ordinals, then they are renumbered in (ordinal, creation, id) order, mentions follow, and a tie can no longer be written', async () => {
    const name = `${inject('templateDatabase')}_ordinals_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = databaseUrl(name);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`CREATE TABLE "_prisma_migrations" (id VARCHAR(36) PRIMARY KEY, checksum VARCHAR(64) NOT NULL, finished_at TIMESTAMPTZ, migration_name VARCHAR(255) NOT NULL,
        logs TEXT, rolled_back_at TIMESTAMPTZ, started_at TIMESTAMPTZ NOT NULL DEFAULT now(), applied_steps_count INTEGER NOT NULL DEFAULT 0)`);
      for (const m of await migrationsBefore()) {
        await client.query(m.sql);
        await client.query(`INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name) VALUES ($1, '', now(), $2)`, [randomBytes(8).toString('hex'), m.name]);
      }
      await client.query(seed);
      expect(await applyMigrations(url)).toContain(target);
      expect(asRows((await client.query(chaptersQuery)).rows)).toEqual(expected);
      expect((await client.query(`SELECT "sortKey" FROM "Mention"`)).rows).toEqual([{ sortKey: '00000004:00000003:000007:men_1' }]);
      await expect(client.query(`INSERT INTO "Chapter"(id, "projectId", "externalId", ordinal) VALUES ('chp_x', 'prj_tied', 'x', 61)`)).rejects.toThrow(/Chapter_projectId_ordinal_key/);
      await client.query(`INSERT INTO "Chapter"(id, "projectId", "externalId", ordinal) VALUES ('chp_y', 'prj_tied', 'y', 62)`);
      expect((await client.query(`SELECT source FROM "Chapter" WHERE id = 'chp_y'`)).rows).toEqual([{ source: 'api' }]);
    } finally {
      await client.end();
    }
  });

  it('when the embedded PGlite store holds tied ordinals, then the same files renumber them the same way', async () => {
    const db = await PGlite.create({ extensions: { pg_trgm, vector } });
    try {
      for (const m of await migrationsBefore()) await db.exec(m.sql);
      await db.exec(seed);
      await db.exec(await readFile(path.join(migrationsDir, target, 'migration.sql'), 'utf8'));
      expect(asRows((await db.query<Record<string, unknown>>(chaptersQuery)).rows)).toEqual(expected);
      expect((await db.query(`SELECT "sortKey" FROM "Mention"`)).rows).toEqual([{ sortKey: '00000004:00000003:000007:men_1' }]);
    } finally {
      await db.close();
    }
  });
});
