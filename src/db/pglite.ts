// The embedded default: PGlite persisted in the data directory, served on a loopback port so that the gateway, the
// CLI and the embedded MCP server all reach it through the same pg driver as a real PostgreSQL.
// PGlite is single-process: the process that opens the directory serves it and records its port in a lock file;
// any other process connects through that port instead of opening the directory itself.
import { mkdir, readFile, rm, writeFile, access, constants } from 'node:fs/promises';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { applyMigrations } from './migrate.ts';

type LockInfo = { pid: number; port: number };

export type EmbeddedPostgres = { connectionString: string; owned: boolean; close(): Promise<void> };

const connectionStringFor = (port: number) => `postgresql://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=disable`;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
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
      await writeFile(lockFile, JSON.stringify({ pid: process.pid, port: 0 } satisfies LockInfo), { flag: 'wx' });
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
    if (info && info.port > 0 && (await canConnect(info.port))) return info;
    if (Date.now() > deadline) throw new Error(`data directory ${path.dirname(lockFile)} is held by process ${info?.pid ?? '?'}, which does not answer`);
    await sleep(200);
  }
}

export async function openEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const lockFile = path.join(dataDir, 'pglite.lock.json');
  const pgdata = path.join(dataDir, 'pgdata');
  try {
    await mkdir(pgdata, { recursive: true });
    await access(dataDir, constants.R_OK | constants.W_OK);
  } catch (error) {
    throw new Error(`data directory ${dataDir} is not usable: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const holder = await acquire(lockFile);
  if (holder !== 'owner') {
    return { connectionString: connectionStringFor(holder.port), owned: false, close: async () => undefined };
  }
  let db: PGlite;
  let server: PGLiteSocketServer;
  try {
    db = await PGlite.create({ dataDir: pgdata, extensions: { pg_trgm } });
    server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 16 });
    await server.start();
  } catch (error) {
    await rm(lockFile, { force: true });
    throw new Error(`cannot open the embedded database in ${pgdata}: ${(error as Error).message}`);
  }
  const port = Number(server.getServerConn().split(':').pop());
  try {
    // Other processes connect only once the port is in the lock file, so they never see a half-migrated store.
    await applyMigrations(connectionStringFor(port));
  } catch (error) {
    await server.stop();
    await db.close();
    await rm(lockFile, { force: true });
    throw error;
  }
  await writeFile(lockFile, JSON.stringify({ pid: process.pid, port } satisfies LockInfo));
  return {
    connectionString: connectionStringFor(port),
    owned: true,
    async close() {
      await server.stop();
      await db.close();
      await rm(lockFile, { force: true });
    },
  };
}
