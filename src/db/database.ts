// One way to reach the store: the pg driver adapter under Prisma, pointed at PostgreSQL (DATABASE_URL) or at the
// embedded PGlite served on a Unix socket by its own thread (pglite.ts).
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { Config } from '../config.ts';
import { sqlTransaction, unprepared, type SqlClient, type SqlTransaction } from './sql.ts';
import { applyMigrations } from './migrate.ts';
import { prepareDataDir } from './dataDir.ts';
import { openEmbeddedPostgres, type EmbeddedPostgres } from './pglite.ts';
import { claimStore, StoreHeldError, type Holder, type StoreLock } from './storeLock.ts';

/** The embedded store's lock, taken by the caller (storeLock.ts), for the data directory's real path. */
export type EmbeddedClaim = { dataDir: string; lock: StoreLock; holder: Holder };

export type Database = {
  prisma: PrismaClient;
  /** the pool under Prisma, for the few statements on every request's path (see src/db/sql.ts) */
  sql: SqlClient;
  /** a transaction on that pool, for the hottest writes (see src/db/sql.ts) */
  sqlTransaction: SqlTransaction;
  /**
   * Quota and rate-limit counters: rows every request of a key updates. On PostgreSQL their own connections commit
   * asynchronously (synchronous_commit=off), so a request does not wait for a WAL flush while it holds the key's row;
   * a crash can forget the last fraction of a second of counting, never canon. PGlite: the one shared connection.
   */
  meteringSql: SqlClient;
  mode: 'postgres' | 'pglite';
  /** PGlite: the owner-only directory of the store's socket */
  socketDir?: string;
  /**
   * On PGlite, where every tenant's statements run one at a time: a long writer calls it between short slices to let
   * the others' statements through. Absent on PostgreSQL.
   */
  yieldStore?: (sliceMs: number) => Promise<void>;
  connectionString: string;
  close(): Promise<void>;
};

export class DatabaseUnavailableError extends Error {}

const embeddedPoolSize = 4;
const idleConnectionMs = 300_000;

/** Takes the embedded store for a command; a gateway holding it is an error here (callers that can use it check first). */
async function claimForCommand(dataDir: string): Promise<EmbeddedClaim> {
  const real = await prepareDataDir(dataDir);
  const holder: Holder = { role: 'command', pid: process.pid, command: 'lore' };
  const claim = await claimStore(real, holder);
  if (claim.kind === 'gateway') throw new StoreHeldError(`the data directory ${real} is served by the gateway at ${claim.gateway.url}: go through its API`);
  return { dataDir: real, lock: claim.lock, holder };
}

export async function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>, options: { poolSize?: number; embedded?: EmbeddedClaim } = {}): Promise<Database> {
  let embedded: EmbeddedPostgres | undefined;
  if (!config.databaseUrl) {
    const claim = options.embedded ?? (await claimForCommand(config.dataDir));
    embedded = await openEmbeddedPostgres(claim.dataDir, claim.lock, claim.holder);
  }
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
  // PGlite runs one statement at a time; a few connections keep the next statement queued at the store's thread while
  // this one works on the last answer (they share one session: see ownerToken in embeddedSocket.ts). They reach that
  // thread through message ports, not its socket (portStream.ts).
  // A connection is kept through pauses of minutes (pg's default closes it after 10 s idle): a new one prepares and
  // plans each statement again, and the first five runs of the hybrid search's ranking are each planned anew (4-6 ms
  // of PostgreSQL's CPU apiece) before the generic plan is kept.
  const pool = new pg.Pool({
    connectionString,
    max: embedded ? embeddedPoolSize : (options.poolSize ?? 10),
    idleTimeoutMillis: embedded ? 0 : idleConnectionMs,
    ...(embedded && { stream: () => embedded.stream() }),
  });
  const meteringPool = embedded ? pool : new pg.Pool({ connectionString, max: 4, options: '-c synchronous_commit=off' });
  for (const p of new Set([pool, meteringPool])) p.on('error', () => undefined); // an idle client lost; the pool reconnects
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    prisma,
    sql: embedded ? unprepared(pool) : pool,
    sqlTransaction: sqlTransaction(pool, !embedded),
    meteringSql: embedded ? unprepared(pool) : meteringPool,
    mode: embedded ? 'pglite' : 'postgres',
    socketDir: embedded?.socketDir,
    yieldStore: embedded?.yieldStore,
    connectionString,
    async close() {
      await prisma.$disconnect();
      await Promise.all([...new Set([pool, meteringPool])].map((p) => p.end().catch(() => undefined)));
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
