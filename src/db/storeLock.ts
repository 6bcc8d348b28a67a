// The embedded store has one owner at a time: PGlite opens its directory in one process only. The long-lived owner is
// the gateway; a CLI command or the embedded MCP server owns the store only while no gateway runs, and lets it go when
// done. Ownership is a lock the kernel drops when its holder ends, however it ends (kill -9, a container's PID 1
// restarting): on Linux a Unix socket bound in the abstract namespace under a name drawn from the directory's real
// path; elsewhere a socket file in the data directory, taken over when nothing answers on it. No pid is trusted.
// The holder answers whoever connects with one line saying who it is, so that a gateway refuses to start beside
// another, and a command either goes through the gateway or waits for another command to finish (asking it to let go).
// What a gateway's clients need (its URL, its admin socket) is in owner.json, in the data directory only its user can
// write (dataDir.ts); the lock's answer is only believed when that record names the same process.
import { createHash } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export type Role = 'gateway' | 'command';
/** `command`: what the holder is, for the line others print while they wait (`lore import`, `lore serve`). */
export type Holder = { role: Role; pid: number; command: string };
/** What the owner records in the data directory: where the store's socket is, and a gateway's URL and admin socket. */
export type OwnerRecord = Holder & { socket?: string; url?: string; admin?: string };

export type StoreLock = {
  /** Called when another process asks for the store: a holder that can, finishes what it runs and releases it. */
  onReleaseRequest(listener: () => void): void;
  release(): Promise<void>;
};

/** The store is held by a gateway: a second gateway refuses to start. */
export class StoreHeldError extends Error {}

export type Claim = { kind: 'owner'; lock: StoreLock } | { kind: 'gateway'; gateway: OwnerRecord & { url: string } };

export const ownerRecordFile = (dataDir: string) => path.join(dataDir, 'owner.json');

/** The lock's address for a data directory, given by its real path. */
export function lockAddress(realDataDir: string): string {
  if (process.platform === 'linux') return `\0lore-store-${createHash('sha256').update(realDataDir).digest('hex')}`;
  return path.join(realDataDir, 'store.lock');
}

function listen(server: net.Server, address: string): Promise<'listening' | 'taken'> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve('taken') : reject(error)));
    server.listen(address, () => resolve('listening'));
  });
}

/** Asks the holder who it is (and, with `release`, to let go when it can). Undefined: nothing answers there. */
function askHolder(address: string, release: boolean): Promise<Holder | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const socket = net.connect({ path: address });
    const done = (holder?: Holder) => {
      socket.destroy();
      resolve(holder);
    };
    socket.setTimeout(2_000, () => done());
    socket.on('error', () => done());
    socket.on('connect', () => release && socket.write('release\n'));
    socket.on('data', (chunk) => {
      text += chunk.toString();
      const end = text.indexOf('\n');
      if (end < 0) return;
      try {
        const holder = JSON.parse(text.slice(0, end)) as Holder;
        done(holder && (holder.role === 'gateway' || holder.role === 'command') && Number.isInteger(holder.pid) ? holder : undefined);
      } catch {
        done();
      }
    });
    socket.on('end', () => done());
  });
}

async function tryLock(address: string, holder: Holder): Promise<StoreLock | undefined> {
  const listeners: (() => void)[] = [];
  const server = net.createServer((socket) => {
    socket.on('error', () => socket.destroy());
    socket.setTimeout(5_000, () => socket.destroy());
    socket.end(`${JSON.stringify(holder)}\n`);
    socket.on('data', (data) => {
      if (data.toString().startsWith('release')) for (const listener of listeners) listener();
    });
  });
  let state = await listen(server, address);
  // A socket file (not Linux) outlives its process: one nothing answers on is taken over.
  if (state === 'taken' && !address.startsWith('\0') && !(await askHolder(address, false))) {
    await rm(address, { force: true });
    state = await listen(server, address);
  }
  if (state === 'taken') return undefined;
  // The lock must not keep a process alive that has nothing else to do.
  server.unref();
  return {
    onReleaseRequest: (listener) => void listeners.push(listener),
    release: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if (!address.startsWith('\0')) void rm(address, { force: true });
      }),
  };
}

export async function readOwnerRecord(dataDir: string): Promise<OwnerRecord | undefined> {
  try {
    return JSON.parse(await readFile(ownerRecordFile(dataDir), 'utf8')) as OwnerRecord;
  } catch {
    return undefined;
  }
}

/** Written whole (a rename), so a reader never sees half a record; owner-only. */
export async function writeOwnerRecord(dataDir: string, record: OwnerRecord): Promise<void> {
  const file = ownerRecordFile(dataDir);
  const temporary = `${file}.${process.pid}`;
  await writeFile(temporary, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

export const removeOwnerRecord = (dataDir: string) => rm(ownerRecordFile(dataDir), { force: true });

const describe = (holder: Holder) => `${holder.command} (pid ${holder.pid})`;

/**
 * Takes the store of `realDataDir` for `me`, or finds the gateway that holds it. A gateway that finds another gateway
 * refuses (StoreHeldError); anyone that finds a command holding it asks it to let go and waits (saying so through
 * `onWait`, once) for up to `waitMs`.
 */
export async function claimStore(realDataDir: string, me: Holder, options: { waitMs?: number; onWait?: (line: string) => void } = {}): Promise<Claim> {
  const address = lockAddress(realDataDir);
  const deadline = Date.now() + (options.waitMs ?? 600_000);
  let told = false;
  for (;;) {
    const lock = await tryLock(address, me);
    if (lock) {
      // A record left by an owner that was killed names nothing that runs.
      await removeOwnerRecord(realDataDir);
      return { kind: 'owner', lock };
    }
    // A command holding the store lets go when it is done with what it runs; a gateway does not.
    const holder = await askHolder(address, true);
    let waitingFor: string | undefined;
    if (holder?.role === 'gateway') {
      const record = await readOwnerRecord(realDataDir);
      const started = record?.role === 'gateway' && record.pid === holder.pid && record.url;
      if (me.role === 'gateway') {
        throw new StoreHeldError(`the data directory ${realDataDir} is already served by ${started ? `the gateway at ${record.url}` : 'another gateway'} (pid ${holder.pid}): stop it first, or set LORE_DATA_DIR to another directory`);
      }
      if (started) return { kind: 'gateway', gateway: { ...record, url: record.url! } };
      waitingFor = `the gateway ${describe(holder)} to start`;
    } else if (holder) {
      waitingFor = `${describe(holder)} to finish with the store`;
    }
    if (Date.now() > deadline) {
      throw new StoreHeldError(`gave up waiting for ${waitingFor ?? 'the process holding the store'} in ${realDataDir}: try again when it is done`);
    }
    if (waitingFor && !told) {
      options.onWait?.(`waiting for ${waitingFor} in ${realDataDir}`);
      told = true;
    }
    await sleep(150);
  }
}
