// The embedded default: PGlite persisted in the data directory. PGlite is single-process: only the store's owner
// (storeLock.ts: the gateway, or a command while no gateway runs) opens it. The owner runs it in a worker thread of its
// own (storeThread.ts), so its statements never block the thread that serves HTTP, and serves it to its own pg pool
// (and to psql for debugging) through a Unix socket in an owner-only directory that admits only clients knowing a
// secret drawn at each start and kept in an owner-only file of the data directory (src/db/embeddedSocket.ts); no TCP
// port is opened, and no client can change the session the owner's queries run in.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker, type MessagePort } from 'node:worker_threads';
import { socketFileName } from './embeddedSocket.ts';
import { PortStream } from './portStream.ts';
import { applyMigrations } from './migrate.ts';
import type { FromStoreThread, StoreThreadData, ToStoreThread } from './storeThread.ts';
import { removeOwnerRecord, writeOwnerRecord, type Holder, type StoreLock } from './storeLock.ts';

export type EmbeddedPostgres = {
  connectionString: string;
  /** the owner-only directory of the store's socket, where the gateway puts its admin socket too */
  socketDir: string;
  /** A new connection of this process to the store, for pg's `stream`: a message port to its thread (portStream.ts). */
  stream(): PortStream;
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

/** How long a store's thread that ended waits before it starts again. */
const restartPauseMs = 1_000;

// Unix socket paths are limited to 107 bytes on Linux (103 on macOS).
const maxSocketPath = 100;

/** pg takes a directory as host and connects to its .s.PGSQL.5432. The owner's token marks its own connections. */
const connectionStringFor = (socketDir: string, secret: string, ownerToken: string) =>
  `postgresql://lore:${encodeURIComponent(secret)}@localhost/postgres?host=${encodeURIComponent(socketDir)}&application_name=${ownerToken}`;

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
  let thread: StoreThread | undefined;
  let socketDir: { dir: string; temporary: boolean } | undefined;
  const release = async () => {
    await thread?.close();
    if (socketDir?.temporary) await rm(socketDir.dir, { recursive: true, force: true });
    await rm(files.secret, { force: true });
    await removeOwnerRecord(dataDir);
    await lock.release();
  };
  const secret = randomBytes(32).toString('base64url');
  const ownerToken = randomBytes(24).toString('hex');
  try {
    await rm(files.legacyLock, { force: true });
    await mkdir(files.pgdata, { recursive: true, mode: 0o700 });
    await chmod(files.pgdata, 0o700);
    await rm(files.secret, { force: true });
    await writeFile(files.secret, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    socketDir = await socketDirectory(files.socketDir);
    thread = await startStoreThread({ pgdata: files.pgdata, socketDir: socketDir.dir, secret, ownerToken });
  } catch (error) {
    await release().catch(() => undefined);
    throw new Error(`cannot open the embedded database in ${files.pgdata}: ${(error as Error).message}`);
  }
  const connectionString = connectionStringFor(socketDir.dir, secret, ownerToken);
  try {
    await applyMigrations(connectionString);
    await writeOwnerRecord(dataDir, { ...holder, socket: socketDir.dir });
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
  const served = thread;
  return {
    connectionString,
    socketDir: socketDir.dir,
    stream: () => new PortStream((port) => served.connect(port)),
    yieldStore: (sliceMs) => served.quiet(quietMs, yieldFor(sliceMs)),
    close: release,
  };
}

type StoreThread = { quiet(quietMs: number, maxMs: number): Promise<void>; connect(port: MessagePort): void; close(): Promise<void> };

/** One worker thread running PGlite and its socket (storeThread.ts), from its start to its exit. */
class StoreThreadRun {
  readonly exited: Promise<number>;
  private readonly worker: Worker;
  private readonly quieting = new Map<number, () => void>();
  private nextId = 0;
  private closed?: (error?: string) => void;
  private ended = false;

  constructor(data: StoreThreadData, ready: (error?: Error) => void) {
    this.worker = new Worker(new URL('./storeThread.mjs', import.meta.url), { workerData: data });
    this.exited = new Promise((resolve) => this.worker.once('exit', resolve));
    this.worker.on('message', (message: FromStoreThread) => {
      if (message.type === 'ready') ready();
      else if (message.type === 'failed') ready(new Error(message.message));
      else if (message.type === 'quiet') this.endQuiet(message.id);
      else this.closed?.(message.error);
    });
    // An error the thread did not catch ends it; what follows is the exit's.
    this.worker.on('error', (error) => ready(error));
    void this.exited.then((code) => {
      this.ended = true;
      ready(new Error(`the store's thread ended (exit code ${code})`));
      // A quiet asked of a thread that has gone has nothing to wait for.
      for (const id of [...this.quieting.keys()]) this.endQuiet(id);
    });
  }

  private endQuiet(id: number) {
    this.quieting.get(id)?.();
    this.quieting.delete(id);
  }

  quiet(quietMs: number, maxMs: number): Promise<void> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.quieting.set(id, resolve);
      this.worker.postMessage({ type: 'quiet', id, quietMs, maxMs } satisfies ToStoreThread);
    });
  }

  /**
   * Hands the store's thread one end of a channel, which it serves as a connection. A port posted to a thread that has
   * ended is never closed: closed here, the connection fails at once, as one to the socket of a store gone would.
   */
  connect(port: MessagePort) {
    if (this.ended) return port.close();
    this.worker.postMessage({ type: 'connect', port } satisfies ToStoreThread, [port]);
  }

  /** Closes the socket, then PGlite (which checkpoints), and waits for the thread to end. */
  async close(): Promise<void> {
    const answer = new Promise<string | undefined>((resolve) => (this.closed = resolve));
    this.worker.postMessage({ type: 'close' } satisfies ToStoreThread);
    const error = await Promise.race([answer, this.exited.then(() => undefined)]);
    await this.exited;
    if (error) throw new Error(`closing the embedded database: ${error}`);
  }
}

/**
 * Starts the store's thread; resolves once its socket takes connections. Should the thread end while the store is open
 * (PGlite failed beyond a statement), its clients are answered store_unavailable until a new thread, started after a
 * pause, has recovered the data directory as after a crash; the socket's path and secret stay the same.
 */
async function startStoreThread(data: StoreThreadData): Promise<StoreThread> {
  const start = () =>
    new Promise<StoreThreadRun>((resolve, reject) => {
      const run: StoreThreadRun = new StoreThreadRun(data, (error) => (error ? reject(error) : resolve(run)));
    });
  let current = await start();
  let closing: Promise<void> | undefined;
  const watch = (run: StoreThreadRun) =>
    void run.exited.then(async (code) => {
      if (!closing) process.stderr.write(`lore: the embedded store's thread ended (exit code ${code}); starting it again\n`);
      while (!closing) {
        await sleep(restartPauseMs);
        if (closing) return;
        const run = await start().catch(() => undefined); // failed again: another try after the pause
        if (!run) continue;
        current = run;
        // closed while this one started: it goes too
        if (closing) return void run.close();
        return watch(run);
      }
    });
  watch(current);
  return {
    quiet: (quietMs, maxMs) => current.quiet(quietMs, maxMs),
    connect: (port) => current.connect(port),
    close: () => (closing ??= current.close()),
  };
}
