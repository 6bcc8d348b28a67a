// Migrates one template database per run; each test file clones it (CREATE DATABASE … TEMPLATE), which takes ~100 ms.
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { applyMigrations } from '../../src/db/migrate.ts';
import { adminUrl, databaseUrl } from './env.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string;
  }
}

export default async function setup(project: TestProject) {
  const template = `lore_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(`The tests need PostgreSQL at ${adminUrl} (set TEST_DATABASE_URL, or run .ci/run): ${(error as Error).message}`);
  }
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  await applyMigrations(databaseUrl(template));
  project.provide('templateDatabase', template);
  return async () => {
    // Only this run's databases: other runs may share the server (and `_` is a LIKE wildcard, so no pattern here).
    const stale = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname = $1 OR starts_with(datname, $1 || '_')`, [template]);
    for (const { datname } of stale.rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    await admin.end();
  };
}
