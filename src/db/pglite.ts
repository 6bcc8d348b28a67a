// The embedded default: PGlite persisted in the data directory. PGlite is single-process: only the store's owner
// (storeLock.ts: the gateway, or a command while no gateway runs) opens it. The owner serves it to its own pg pool
// (and to psql for debugging) through a Unix socket in an owner-only directory that admits only clients knowing a
// secret drawn at each start and kept in an owner-only file of the data directory (src/db/embeddedSocket.ts); no TCP
// port is opened, and no client can change the session the owner's queries run in.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { serveEmbeddedSocket, socketFileName, type EmbeddedSocket } from './embeddedSocket.ts';
import { applyMigrations } from './migrate.ts';
import { removeOwnerRecord, writeOwnerRecord, type Holder, type StoreLock } from './storeLock.ts';

export type EmbeddedPostgres = {
  connectionString: string;
  /** the owner-only directory of the store's socket, where the gateway puts its admin socket too */
  socketDir: string;
  /** Called by a long writer between slices of `sliceMs`: gives the store to the others waiting for it (stagedImport.ts). */
  yieldStore(sliceMs: number): Promise<void>;
  close(): Promise<void>;
};

/** No statement for this long: the requests that queued behind a slice have run all theirs. */
const quietMs = 8;
/**
 * A writer waits at most twice its slice (within these bounds) between slices, so that while others keep the store
 * busy it still advances, with a third of the store's time: with a fifth, a 20,000-entity import into an existing
 * project took up to 290 s in CI beside another test file, near an HTTP client's 300 s wait for an answer. Others wait
 * for one slice at most either way.
 */
const minYieldMs = 40;
const maxYieldMs = 250;
const yieldFor = (sliceMs: number) => Math.min(maxYieldMs, Math.max(minYieldMs, 2 * sliceMs));

// Unix socket paths are limited to 107 bytes on Linux (103 on macOS).
const maxSocketPath = 100;

/** pg takes a directory as host and connects to its .s.PGSQL.5432. */
const connectionStringFor = (socketDir: string, secret: string) =>
  `postgresql://lore:${encodeURIComponent(secret)}@localhost/postgres?host=${encodeURIComponent(socketDir)}`;

export const embeddedFiles = (dataDir: string) => ({
  /** the pid lock of earlier versions: a pid is not a lock (storeLock.ts); removed when found */
  legacyLock: path.join(dataDir, 'pglite.lock.json'),
  /** the secret of the running store: owner-only (0600), replaced at every start */
  secret: path.join(dataDir, 'pglite.secret'),
  socketDir: path.join(dataDir, 'socket'),
  pgdata: path.join(dataDir, 'pgdata'),
});

/** An owner-only directory for the socket: in the data directory, or a private one in tmp when that path is too long. */
async function socketDirectory(preferred: string): Promise<{ dir: string; temporary: boolean }> {
  if (path.resolve(preferred, socketFileName).length <= maxSocketPath) {
    await mkdir(preferred, { recursive: true, mode: 0o700 });
    await chmod(preferred, 0o700);
    return { dir: path.resolve(preferred), temporary: false };
  }
  return { dir: await mkdtemp(path.join(tmpdir(), 'lore-')), temporary: true };
}

/** Opens the store of `dataDir` (a real path, checked by prepareDataDir) for the holder of its lock, which it releases on close. */
export async function openEmbeddedPostgres(dataDir: string, lock: StoreLock, holder: Holder): Promise<EmbeddedPostgres> {
  const files = embeddedFiles(dataDir);
  let db: PGlite | undefined;
  let door: EmbeddedSocket | undefined;
  let socketDir: { dir: string; temporary: boolean } | undefined;
  const release = async () => {
    await door?.close();
    await db?.close();
    if (socketDir?.temporary) await rm(socketDir.dir, { recursive: true, force: true });
    await rm(files.secret, { force: true });
    await removeOwnerRecord(dataDir);
    await lock.release();
  };
  const secret = randomBytes(32).toString('base64url');
  try {
    await rm(files.legacyLock, { force: true });
    await mkdir(files.pgdata, { recursive: true, mode: 0o700 });
    await chmod(files.pgdata, 0o700);
    db = await PGlite.create({ dataDir: files.pgdata, extensions: { pg_trgm, vector } });
    await rm(files.secret, { force: true });
    await writeFile(files.secret, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    socketDir = await socketDirectory(files.socketDir);
    door = await serveEmbeddedSocket(db, { socketDir: socketDir.dir, secret });
  } catch (error) {
    await release().catch(() => undefined);
    throw new Error(`cannot open the embedded database in ${files.pgdata}: ${(error as Error).message}`);
  }
  const connectionString = connectionStringFor(socketDir.dir, secret);
  try {
    await applyMigrations(connectionString);
    await writeOwnerRecord(dataDir, { ...holder, socket: socketDir.dir });
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
  const served = door;
  return { connectionString, socketDir: socketDir.dir, yieldStore: (sliceMs) => served.quiet(quietMs, yieldFor(sliceMs)), close: release };
}
