// The embedded default: PGlite persisted in the data directory, served to Lore's own processes (the gateway, the CLI,
// the embedded MCP server) through the same pg driver as a real PostgreSQL.
// PGlite is single-process: the process that opens the directory serves it and records where in a lock file; any other
// process connects there instead of opening the directory itself. The door is a Unix socket in an owner-only directory
// that admits only clients knowing a secret drawn at each start and kept in an owner-only file of the data directory
// (src/db/embeddedSocket.ts); no TCP port is opened, and no client can change the session the others run in.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile, access, constants } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { serveEmbeddedSocket, socketFileName, type EmbeddedSocket } from './embeddedSocket.ts';
import { applyMigrations } from './migrate.ts';

/** `socket`: the directory of the Unix socket, empty while the store is still opening. */
type LockInfo = { pid: number; socket: string };

export type EmbeddedPostgres = {
  connectionString: string;
  owned: boolean;
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
/**
 * In a process that reaches another's store, the owner's queue cannot be seen from here: a pause of half the slice,
 * in which the owner runs what queued behind it.
 */
const pauseAfter = (sliceMs: number) => sleep(Math.min(25, Math.max(5, sliceMs / 2)));

// Unix socket paths are limited to 107 bytes on Linux (103 on macOS).
const maxSocketPath = 100;

/** pg takes a directory as host and connects to its .s.PGSQL.5432. */
const connectionStringFor = (socketDir: string, secret: string) =>
  `postgresql://lore:${encodeURIComponent(secret)}@localhost/postgres?host=${encodeURIComponent(socketDir)}`;

export const embeddedFiles = (dataDir: string) => ({
  lock: path.join(dataDir, 'pglite.lock.json'),
  /** the secret of the running store: owner-only (0600), replaced at every start */
  secret: path.join(dataDir, 'pglite.secret'),
  socketDir: path.join(dataDir, 'socket'),
  pgdata: path.join(dataDir, 'pgdata'),
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function canConnect(socketDir: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ path: path.join(socketDir, socketFileName) }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/**
 * Takes the data directory for this process, or finds the process that holds it. The lock file is created exclusively
 * before PGlite opens the directory, so two processes starting at once cannot both open it.
 */
async function acquire(lockFile: string): Promise<'owner' | LockInfo> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await writeFile(lockFile, JSON.stringify({ pid: process.pid, socket: '' } satisfies LockInfo), { flag: 'wx' });
      return 'owner';
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let info: LockInfo | undefined;
    try {
      info = JSON.parse(await readFile(lockFile, 'utf8')) as LockInfo;
    } catch {
      // being written right now
    }
    if (info && !isAlive(info.pid)) {
      await rm(lockFile, { force: true });
      continue;
    }
    if (info?.socket && (await canConnect(info.socket))) return info;
    if (Date.now() > deadline) throw new Error(`data directory ${path.dirname(lockFile)} is held by process ${info?.pid ?? '?'}, which does not answer`);
    await sleep(200);
  }
}

/** An owner-only directory for the socket: in the data directory, or a private one in tmp when that path is too long. */
async function socketDirectory(preferred: string): Promise<{ dir: string; temporary: boolean }> {
  if (path.resolve(preferred, socketFileName).length <= maxSocketPath) {
    await mkdir(preferred, { recursive: true, mode: 0o700 });
    await chmod(preferred, 0o700);
    return { dir: path.resolve(preferred), temporary: false };
  }
  return { dir: await mkdtemp(path.join(tmpdir(), 'lore-')), temporary: true };
}

async function readSecret(file: string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    throw new Error(`cannot read the embedded store's secret ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): run Lore as the user that started the gateway`);
  }
}

export async function openEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const files = embeddedFiles(dataDir);
  try {
    await mkdir(files.pgdata, { recursive: true, mode: 0o700 });
    await chmod(files.pgdata, 0o700);
    await access(dataDir, constants.R_OK | constants.W_OK);
  } catch (error) {
    throw new Error(`data directory ${dataDir} is not usable: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const holder = await acquire(files.lock);
  if (holder !== 'owner') {
    return {
      connectionString: connectionStringFor(holder.socket, await readSecret(files.secret)),
      owned: false,
      yieldStore: pauseAfter,
      close: async () => undefined,
    };
  }
  let db: PGlite | undefined;
  let door: EmbeddedSocket | undefined;
  let socketDir: { dir: string; temporary: boolean } | undefined;
  const release = async () => {
    await door?.close();
    await db?.close();
    if (socketDir?.temporary) await rm(socketDir.dir, { recursive: true, force: true });
    await rm(files.secret, { force: true });
    await rm(files.lock, { force: true });
  };
  const secret = randomBytes(32).toString('base64url');
  try {
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
    // Other processes connect only once the socket is in the lock file, so they never see a half-migrated store.
    await applyMigrations(connectionString);
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
  await writeFile(files.lock, JSON.stringify({ pid: process.pid, socket: socketDir.dir } satisfies LockInfo));
  const served = door;
  return { connectionString, owned: true, yieldStore: (sliceMs) => served.quiet(quietMs, yieldFor(sliceMs)), close: release };
}
