// Issue 25, item 1: the embedded store has one long-lived owner, the gateway. The CLI and the embedded MCP server go
// through a running gateway and open the store themselves only while none runs, letting it go when done; a second
// gateway refuses to start; the lock is the kernel's, so it cannot outlive its holder; the data directory is found as
// git finds its repository and refused when other users can write to it. Real processes throughout.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, expectCleanFailure, lore, repoRoot, serve, type ServeProcess } from '../support/cli.ts';
import { callTool, connectMcp, textOf } from '../mcp/harness.ts';
import { waitFor } from '../support/wait.ts';

const dirs: string[] = [];
const gateways: ServeProcess[] = [];
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop('SIGKILL')));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function dataDirectory(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'lore-owner-'));
  dirs.push(dir);
  return path.join(dir, 'data');
}

async function started(env: Record<string, string>): Promise<ServeProcess> {
  // A generous bound: PGlite's start-up takes long on a loaded machine.
  const gateway = await serve({ ...env, PORT: '0' }, 180_000);
  gateways.push(gateway);
  return gateway;
}

async function createKey(env: Record<string, string>): Promise<string> {
  const created = await lore(['keys', 'create', '--tier', 'pro', '--json'], env);
  expect(created.code, created.stderr).toBe(0);
  return JSON.parse(created.stdout).key;
}

const projects = (gateway: ServeProcess, key: string) => fetch(`${gateway.url}/api/v1/projects`, { headers: { Authorization: `Bearer ${key}` } });

describe('one owner for the embedded store', { timeout: 300_000 }, () => {
  it('when a gateway serves a data directory, then a second `lore serve` on it refuses with one line, and the first keeps serving', async () => {
    const env = { LORE_DATA_DIR: await dataDirectory() };
    const first = await started(env);
    const key = await createKey(env);
    const second = await lore(['serve'], { ...env, PORT: '0' }, 60_000);
    expectCleanFailure(second, /already served by the gateway at http:\/\/127\.0\.0\.1:\d+/);
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    expect((await projects(first, key)).status).toBe(200);
  });

  it('when the gateway was killed with SIGKILL, leaving a pid lock that names a live process (a container whose gateway is PID 1), then a new gateway starts at once with the data', async () => {
    const dataDir = await dataDirectory();
    const env = { LORE_DATA_DIR: dataDir };
    const first = await started(env);
    const key = await createKey(env);
    await first.stop('SIGKILL');
    // What an earlier version left behind, naming a process that is alive: this test's own.
    await writeFile(path.join(dataDir, 'pglite.lock.json'), JSON.stringify({ pid: process.pid, socket: path.join(dataDir, 'socket') }));
    const again = await started(env);
    expect((await projects(again, key)).status).toBe(200);
  });

  it('when `lore sync --watch` started before the gateway, then the gateway starts, the watcher syncs through it, and the gateway keeps answering after the watcher stops', async () => {
    const dataDir = await dataDirectory();
    const env = { LORE_DATA_DIR: dataDir };
    const key = await createKey(env);
    const book = path.join(path.dirname(dataDir), 'book.md');
    await writeFile(book, '# The Tide\n\nMara Vell walked the salt marsh.\n\n# The Lantern\n\nThe lantern went out.\n');
    const imported = await lore(['import', book, '--key', key, '--json'], env);
    expect(imported.code, imported.stderr).toBe(0);
    const { projectId } = JSON.parse(imported.stdout);

    const watcher = spawn(process.execPath, ['bin/lore.mjs', 'sync', book, '--project', projectId, '--key', key, '--watch'], { cwd: repoRoot, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    watcher.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    watcher.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => watcher.once('exit', (code) => resolve(code)));
    try {
      await waitFor('the watcher', async () => (/watching/.test(output) ? true : undefined));
      const gateway = await started(env);
      await appendFile(book, '\n# The Harbour\n\nA new chapter.\n');
      await waitFor('a sync through the gateway', async () => (/1 added/.test(output) ? true : undefined));
      watcher.kill('SIGINT');
      expect(await exited, output).toBe(0);
      const res = await projects(gateway, key);
      expect(res.status).toBe(200);
      const chapters = await fetch(`${gateway.url}/api/v1/projects/${projectId}/chapters`, { headers: { Authorization: `Bearer ${key}` } });
      expect(chapters.status).toBe(200);
      expect(((await chapters.json()).data as { title: string }[]).map((c) => c.title)).toContain('The Harbour');
    } finally {
      watcher.kill('SIGKILL');
    }
  });

  it('when `lore mcp --embedded` runs beside the gateway and the gateway stops, then starts again, then its tools answer throughout: through the gateway, in-process, through the new gateway', async () => {
    const env = { LORE_DATA_DIR: await dataDirectory() };
    let gateway = await started(env);
    const key = await createKey(env);
    const mcp = await connectMcp({ ...env, LORE_API_KEY: key, LORE_LOG_LEVEL: 'warn' }, ['bin/lore.mjs', 'mcp', '--embedded']);
    const answers = async () => {
      const result = await callTool(mcp, 'lore_author_recall', { project: 'prj_00000000000000000000000000' });
      // A project no key owns: not_found, as the store answers it; never a scope or key error.
      expect(textOf(result)).toMatch(/^Lore error not_found/);
    };
    try {
      await answers();
      expect(await gateway.stop('SIGTERM')).toBe(0);
      await answers();
      // The MCP server holds the store now: the new gateway asks for it and gets it.
      gateway = await started(env);
      await answers();
      expect((await projects(gateway, key)).status).toBe(200);
    } finally {
      await mcp.close();
    }
  });
});

describe('the data directory', { timeout: 300_000 }, () => {
  it('when commands run in a subfolder of a checkout, then they reach the store at the checkout root, as git finds its repository', async () => {
    const root = path.dirname(await dataDirectory());
    await mkdir(path.join(root, '.git'));
    await mkdir(path.join(root, 'examples', 'deeper'), { recursive: true });
    const created = await lore(['keys', 'create', '--tier', 'indie', '--json'], {}, 120_000, path.join(root, 'examples'));
    expect(created.code, created.stderr).toBe(0);
    expect(existsSync(path.join(root, '.lore', 'pgdata'))).toBe(true);
    const listed = await lore(['keys', 'list', '--json'], {}, 120_000, path.join(root, 'examples', 'deeper'));
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).map((k: { id: string }) => k.id)).toEqual([JSON.parse(created.stdout).id]);
    expect(existsSync(path.join(root, 'examples', '.lore'))).toBe(false);
    expect(existsSync(path.join(root, 'examples', 'deeper', '.lore'))).toBe(false);
  });

  it.skipIf(process.platform === 'win32')('when the data directory is writable by other users, then the gateway and the CLI refuse it with one line', async () => {
    const dataDir = await dataDirectory();
    await mkdir(dataDir);
    await chmod(dataDir, 0o777);
    for (const args of [['serve'], ['keys', 'list']]) {
      const result = await lore(args, { LORE_DATA_DIR: dataDir, PORT: '0' }, 60_000);
      expectCleanFailure(result, /data directory .* is writable by other users \(mode 777\)/);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(existsSync(path.join(dataDir, 'pgdata'))).toBe(false);
  });
});
