// Issue 15, item 1: the embedded store (PGlite in LORE_DATA_DIR) admits only Lore's own processes, and no client can
// change the session the gateway runs in. A real `lore serve` owns the data directory; other clients reach its store
// the way anything on the machine could: through the socket its owner record (owner.json) names.
import { mkdtemp, readFile, readdir, readlink, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { lore, serve, type ServeProcess } from '../support/cli.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { callTool, connectMcp, textOf } from '../mcp/harness.ts';

let dataDir: string;
let running: ServeProcess;
let socketDir: string;
let secret: string;
const env = () => ({ LORE_DATA_DIR: dataDir });

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'lore-access-'));
  // A generous bound: a new store's first start (PGlite's initdb and the migrations) is slow on a loaded machine.
  running = await serve({ ...env(), PORT: '0' }, 180_000);
  socketDir = JSON.parse(await readFile(path.join(dataDir, 'owner.json'), 'utf8')).socket;
  // Each test fails on its own when the file is missing: the first one names it.
  secret = (await readFile(path.join(dataDir, 'pglite.secret'), 'utf8').catch(() => '')).trim();
});
afterAll(async () => {
  await running?.stop('SIGTERM');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

function client(password?: string, user = 'intruder', host = socketDir): pg.Client {
  // Without a socket directory pg would connect to TCP localhost:5432: another server altogether.
  if (typeof host !== 'string' || !host.startsWith('/')) throw new Error(`owner.json names no socket directory: ${host}`);
  return new pg.Client({ host, database: 'postgres', user, password, connectionTimeoutMillis: 10_000 });
}

/** The TCP ports a process listens on (Linux): its sockets' inodes in /proc/<pid>/fd, in LISTEN rows of /proc/net/tcp{,6}. */
async function listeningTcpPorts(pid: number): Promise<number[]> {
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode) inodes.add(inode);
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const row of (await readFile(table, 'utf8').catch(() => '')).split('\n').slice(1)) {
      const columns = row.trim().split(/\s+/);
      if (columns[3] === '0A' && inodes.has(columns[9])) ports.push(Number.parseInt(columns[1].split(':')[1], 16));
    }
  }
  return ports;
}

async function get(pathname: string, key?: string) {
  const res = await fetch(`${running.url}${pathname}`, { headers: key ? { Authorization: `Bearer ${key}` } : {} });
  return { status: res.status, body: await res.json() };
}

async function createKey(tier = 'pro'): Promise<{ key: string; account: string }> {
  const created = await lore(['keys', 'create', '--tier', tier, '--json'], env());
  expect(created.code, created.stderr).toBe(0);
  return JSON.parse(created.stdout);
}

/** A write and reads through the gateway, each answered as on a fresh store. */
async function expectGatewayAnswers(key: string, name: string) {
  const created = await fetch(`${running.url}/api/v1/projects`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const projects = await get('/api/v1/projects', key);
  expect(projects.status).toBe(200);
  expect(projects.body.data.map((p: any) => p.name)).toContain(name);
  expect((await get('/api/v1/usage', key)).status).toBe(200);
}

describe('who may reach the embedded store', () => {
  it('when the gateway serves the data directory, then the store listens on an owner-only Unix socket, with its secret in an owner-only file, and on no TCP port', async () => {
    const owner = JSON.parse(await readFile(path.join(dataDir, 'owner.json'), 'utf8'));
    expect(owner).toMatchObject({ role: 'gateway', pid: running.child.pid, socket: path.join(dataDir, 'socket') });
    const mode = async (file: string) => (await stat(file)).mode & 0o777;
    expect(await mode(path.join(dataDir, 'pglite.secret'))).toBe(0o600);
    expect(await mode(socketDir)).toBe(0o700);
    expect(await mode(path.join(socketDir, '.s.PGSQL.5432'))).toBe(0o600);
    expect(await mode(path.join(socketDir, 'lore-admin.sock'))).toBe(0o600);
    expect(await mode(path.join(dataDir, 'owner.json'))).toBe(0o600);
    expect(await mode(path.join(dataDir, 'pgdata'))).toBe(0o700);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it.runIf(process.platform === 'linux')('when the gateway serves the data directory, then the only TCP port it listens on is its HTTP port', async () => {
    expect(await listeningTcpPorts(running.child.pid!)).toEqual([Number(new URL(running.url).port)]);
  });

  it('when a client connects without the secret, or with a wrong one, under any user name, then it is refused before any statement runs', async () => {
    for (const user of ['intruder', 'postgres', 'lore']) {
      for (const password of [undefined, '', 'postgres', `${secret.slice(0, -1)}x`]) {
        const intruder = client(password, user);
        const error = await intruder.connect().then(
          () => undefined,
          (e: Error & { code?: string }) => e,
        );
        await intruder.end().catch(() => undefined);
        expect(error, `user ${user}, password ${password}`).toBeInstanceOf(Error);
        if (password) expect(error!.code, `user ${user}, password ${password}`).toBe('28P01');
      }
    }
  });

  it('when a raw client skips the password exchange and sends a query, then it gets a fatal error and no answer to the query', async () => {
    const received = await new Promise<Buffer>((resolve, reject) => {
      const socket = net.connect({ path: path.join(socketDir, '.s.PGSQL.5432') });
      const chunks: Buffer[] = [];
      socket.on('data', (d) => chunks.push(d));
      socket.on('close', () => resolve(Buffer.concat(chunks)));
      socket.on('error', reject);
      const params = Buffer.from('user\0postgres\0database\0postgres\0\0');
      const startup = Buffer.alloc(8 + params.length);
      startup.writeInt32BE(startup.length, 0);
      startup.writeInt32BE(196608, 4);
      params.copy(startup, 8);
      const sql = Buffer.from("SET search_path = ''; SELECT 'leaked'\0");
      const query = Buffer.alloc(5 + sql.length);
      query.write('Q', 0);
      query.writeInt32BE(4 + sql.length, 1);
      sql.copy(query, 5);
      socket.write(Buffer.concat([startup, query]));
    });
    // The server asked for SCRAM-SHA-256 (AuthenticationSASL), then ended the connection with a FATAL error.
    expect(received[0]).toBe('R'.charCodeAt(0));
    expect(received.readInt32BE(5)).toBe(10);
    expect(received.toString('latin1')).toContain('SCRAM-SHA-256');
    expect(received.toString('latin1')).toMatch(/SFATAL.*C28000/);
    expect(received.toString('latin1')).not.toContain('leaked');
  });

  it('when a client without the secret attempts the hostile SETs, then the gateway goes on answering reads and writes', async () => {
    const intruder = client('guess');
    await expect(intruder.connect().then(() => intruder.query("SET search_path = ''; SET default_transaction_read_only = on"))).rejects.toMatchObject({ code: '28P01' });
    await intruder.end().catch(() => undefined);
    const { key } = await createKey();
    await expectGatewayAnswers(key, 'After a refused intruder');
  });
});

describe('no client changes the session the gateway runs in', () => {
  it('when a client holding the secret (pg_dump, psql) changes its session and stays connected, then the gateway, the CLI and the embedded MCP server still answer', async () => {
    const tool = client(secret);
    await tool.connect();
    try {
      await tool.query("SET search_path = ''");
      await tool.query('SET default_transaction_read_only = on');
      await tool.query("SET client_encoding = 'LATIN1'");
      await tool.query('PREPARE lore_statement AS SELECT 1');
      expect((await tool.query('SHOW search_path')).rows[0].search_path).toBe('""');
      await tool.query("SET statement_timeout = '1ms'");

      const { key } = await createKey();
      await expectGatewayAnswers(key, 'Still written after hostile SETs');

      const file = path.join(dataDir, 'saltmarsh.json');
      await writeFile(file, JSON.stringify(saltmarshBundle()));
      const imported = await lore(['import', file, '--key', key, '--json'], env());
      expect(imported.code, imported.stderr).toBe(0);
      const { projectId } = JSON.parse(imported.stdout);
      const exported = await lore(['export', '--project', projectId, '--key', key, '--json'], env());
      expect(exported.code, exported.stderr).toBe(0);
      expect(JSON.parse(exported.stdout).entities.length).toBe(saltmarshBundle().entities.length);

      const mcp = await connectMcp(
        { LORE_DATA_DIR: dataDir, LORE_API_KEY: key, LORE_PROJECT_ID: projectId, LORE_API_URL: 'http://127.0.0.1:9', LORE_LOG_LEVEL: 'warn' },
        ['bin/lore.mjs', 'mcp', '--embedded'],
      );
      try {
        const recall = await callTool(mcp, 'lore_author_recall', { query: saltmarshBundle().entities[0].name });
        expect(recall.isError, textOf(recall)).toBeFalsy();
        expect(textOf(recall)).toContain(saltmarshBundle().entities[0].name);
      } finally {
        await mcp.close();
      }
      const recall = await get(`/api/v1/projects/${projectId}/recall?limit=100`, key);
      expect(recall.status).toBe(200);
      expect(recall.body.entities.length).toBe(saltmarshBundle().entities.length);
    } finally {
      await tool.end().catch(() => undefined);
    }
  }, 300_000);

  it('when a client opens a transaction and then sends nothing while others wait, then it is cut off after 10 seconds and the gateway answers', async () => {
    const { key } = await createKey();
    const tool = client(secret);
    await tool.connect();
    // The FATAL error, then the connection's end.
    const errors: Error[] = [];
    tool.on('error', (error) => errors.push(error));
    await tool.query('BEGIN');
    await tool.query("SET LOCAL search_path = ''");
    const started = Date.now();
    const usage = await get('/api/v1/usage', key);
    const waited = Date.now() - started;
    expect(usage.status).toBe(200);
    expect(waited).toBeGreaterThanOrEqual(9_000);
    expect(waited).toBeLessThan(30_000);
    await vi.waitFor(() => expect(errors[0]).toMatchObject({ code: '25P03' }));
    await tool.end().catch(() => undefined);
    await expectGatewayAnswers(key, 'After an idle transaction was cut off');
  }, 120_000);
});

describe('a gateway killed with SIGKILL', () => {
  it('when it is started again, then it takes over the stale record and secret, draws a new secret, and the old one opens nothing', async () => {
    const killedDir = await mkdtemp(path.join(tmpdir(), 'lore-killed-'));
    let gateway = await serve({ LORE_DATA_DIR: killedDir, PORT: '0' });
    try {
      const created = await lore(['keys', 'create', '--tier', 'indie', '--json'], { LORE_DATA_DIR: killedDir });
      expect(created.code, created.stderr).toBe(0);
      const { key } = JSON.parse(created.stdout);
      const oldSecret = (await readFile(path.join(killedDir, 'pglite.secret'), 'utf8')).trim();
      const oldSocket = JSON.parse(await readFile(path.join(killedDir, 'owner.json'), 'utf8')).socket;
      await gateway.stop('SIGKILL');
      // Nothing could clean up: the record, the secret and the socket file stay behind (the lock went with the process).
      expect(JSON.parse(await readFile(path.join(killedDir, 'owner.json'), 'utf8')).pid).toBe(gateway.child.pid);
      await stat(path.join(killedDir, 'pglite.secret'));

      gateway = await serve({ LORE_DATA_DIR: killedDir, PORT: '0' });
      expect(JSON.parse(await readFile(path.join(killedDir, 'owner.json'), 'utf8'))).toMatchObject({ pid: gateway.child.pid, socket: oldSocket });
      const newSecret = (await readFile(path.join(killedDir, 'pglite.secret'), 'utf8')).trim();
      expect(newSecret).not.toBe(oldSecret);
      expect((await stat(path.join(killedDir, 'pglite.secret'))).mode & 0o777).toBe(0o600);
      const stale = client(oldSecret, 'lore', oldSocket);
      await expect(stale.connect()).rejects.toMatchObject({ code: '28P01' });
      await stale.end().catch(() => undefined);

      const usage = await fetch(`${gateway.url}/api/v1/usage`, { headers: { Authorization: `Bearer ${key}` } });
      expect(usage.status).toBe(200);
      const listed = await lore(['keys', 'list', '--json'], { LORE_DATA_DIR: killedDir });
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout)).toHaveLength(1);
    } finally {
      await gateway.stop('SIGKILL');
      await rm(killedDir, { recursive: true, force: true });
    }
  }, 300_000);
});

describe('a data directory whose path is too long for a Unix socket', () => {
  it('when the gateway serves it, then the socket lives in a private directory in tmp and the CLI reaches it', async () => {
    const deep = path.join(await mkdtemp(path.join(tmpdir(), 'lore-long-')), 'a-data-directory-whose-path-is-far-too-long'.repeat(2));
    await mkdir(deep, { recursive: true });
    const gateway = await serve({ LORE_DATA_DIR: deep, PORT: '0' });
    try {
      const lock = JSON.parse(await readFile(path.join(deep, 'owner.json'), 'utf8'));
      expect(lock.socket.startsWith(tmpdir())).toBe(true);
      expect((await stat(lock.socket)).mode & 0o777).toBe(0o700);
      const created = await lore(['keys', 'create', '--tier', 'indie', '--json'], { LORE_DATA_DIR: deep });
      expect(created.code, created.stderr).toBe(0);
      const res = await fetch(`${gateway.url}/api/v1/usage`, { headers: { Authorization: `Bearer ${JSON.parse(created.stdout).key}` } });
      expect(res.status).toBe(200);
      expect(await gateway.stop('SIGTERM')).toBe(0);
      await expect(stat(lock.socket)).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await gateway.stop('SIGKILL');
      await rm(path.dirname(deep), { recursive: true, force: true });
    }
  }, 300_000);
});
