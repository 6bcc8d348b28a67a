// One way to reach the store: the pg driver adapter under Prisma, pointed at PostgreSQL (DATABASE_URL) or at the
// embedded PGlite served on loopback.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { Config } from '../config.ts';
import { applyMigrations } from './migrate.ts';
import { openEmbeddedPostgres } from './pglite.ts';

export type Database = {
  prisma: PrismaClient;
  mode: 'postgres' | 'pglite';
  connectionString: string;
  close(): Promise<void>;
};

export class DatabaseUnavailableError extends Error {}

export async function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>, options: { poolSize?: number } = {}): Promise<Database> {
  const embedded = config.databaseUrl ? undefined : await openEmbeddedPostgres(config.dataDir);
  const connectionString = config.databaseUrl ?? embedded!.connectionString;
  try {
    if (!embedded) {
      await probe(connectionString);
      await applyMigrations(connectionString);
    }
  } catch (error) {
    await embedded?.close();
    throw error;
  }
  // PGlite runs one statement at a time; a single connection per process avoids pool reconnect churn.
  const adapter = new PrismaPg({ connectionString, max: embedded ? 1 : (options.poolSize ?? 10) });
  const prisma = new PrismaClient({ adapter });
  return {
    prisma,
    mode: embedded ? 'pglite' : 'postgres',
    connectionString,
    async close() {
      await prisma.$disconnect();
      await embedded?.close();
    },
  };
}

async function probe(connectionString: string): Promise<void> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    const where = new URL(connectionString);
    throw new DatabaseUnavailableError(
      `cannot reach PostgreSQL at ${where.hostname}:${where.port || 5432}/${where.pathname.slice(1)}: ${(error as Error).message}`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}
