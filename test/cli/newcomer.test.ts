// The CLI as a newcomer meets it: `lore --version`, the key taken from LORE_API_KEY so it stays out of shell history
// (the --key flag still wins), and a failure that ends a command midway (the gateway serving the store killed during
// a sync) reported in one line with a non-zero exit, never a silent exit.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, expectCleanFailure, lore, repoRoot, serve, type CliResult } from '../support/cli.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  gw = await startTestGateway();
  env = { DATABASE_URL: gw.databaseUrl };
  dir = await mkdtemp(path.join(tmpdir(), 'lore-newcomer-'));
});
afterAll(async () => {
  await gw?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

// Each CLI run starts a process that loads the core: seconds each on a busy machine.
describe('lore --version', { timeout: 120_000 }, () => {
  it('when asked, then it prints the package version and exits 0', async () => {
    const { version } = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8'));
    const result = await lore(['--version'], {});
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n` });
  });
});

describe('LORE_API_KEY', { timeout: 600_000 }, () => {
  it('when a command that takes --key is given none, then LORE_API_KEY is used; the flag wins over it; with neither it says what to do', async () => {
    const { key } = await gw.createKey('pro');
    const bundleFile = path.join(dir, 'book.json');
    await writeFile(bundleFile, JSON.stringify({ ...saltmarshBundle(), project: { name: 'Env book' } }));
    const imported = await lore(['import', bundleFile, '--json'], { ...env, LORE_API_KEY: key });
    expect(imported.code, imported.stderr).toBe(0);
    const { projectId } = JSON.parse(imported.stdout);

    const exported = await lore(['export', '--project', projectId, '--json'], { ...env, LORE_API_KEY: key });
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout).project.name).toBe('Env book');

    const manuscript = path.join(dir, 'book.md');
    await writeFile(manuscript, '# One\n\nMara lit the lamp.\n');
    const synced = await lore(['sync', manuscript, '--project', projectId, '--json'], { ...env, LORE_API_KEY: key });
    expect(synced.code, synced.stderr).toBe(0);
    expect(JSON.parse(synced.stdout).projectId).toBe(projectId);

    // extract reaches the operation with the key (and then asks for the writer's LLM, which is not set here).
    expectCleanFailure(await lore(['extract', '--project', projectId], { ...env, LORE_API_KEY: key }), /LORE_LLM_PROVIDER/);

    expectCleanFailure(await lore(['export', '--project', projectId, '--key', `sk_lore_${'D'.repeat(40)}`], { ...env, LORE_API_KEY: key }), /AUTH_INVALID_KEY/);
    expectCleanFailure(await lore(['export', '--project', projectId], env), /no API key: pass --key <key> or set LORE_API_KEY/);
  });
});

describe('a gateway that dies under a sync', () => {
  it('when the gateway serving the embedded store is killed while `lore sync` writes, then the sync ends with one line naming the cause and a non-zero exit', async () => {
    const dataDir = path.join(dir, 'data');
    const gateway = await serve({ LORE_DATA_DIR: dataDir, PORT: '0' }, 300_000);
    try {
      const created = await lore(['keys', 'create', '--tier', 'pro', '--json'], { LORE_DATA_DIR: dataDir });
      expect(created.code, created.stderr).toBe(0);
      const { key } = JSON.parse(created.stdout);
      const manuscript = path.join(dir, 'long.md');
      await writeFile(manuscript, '# Opening\n\nMara lit the lamp.\n');
      const first = await lore(['import', manuscript, '--name', 'Long book', '--key', key, '--json'], { LORE_DATA_DIR: dataDir });
      expect(first.code, first.stderr).toBe(0);
      const { projectId } = JSON.parse(first.stdout);
      // Long enough to be writing when the gateway goes: thousands of chapters.
      const paragraph = 'Mara lit the lamp over Gull Point while Keth watched the harbour wall and the sea rose. '.repeat(12);
      await writeFile(manuscript, Array.from({ length: 4_000 }, (_, i) => `# Chapter ${i + 1}\n\n${paragraph}\n`).join('\n'));

      const sync = spawn(process.execPath, [path.join(repoRoot, 'bin/lore.mjs'), 'sync', manuscript, '--project', projectId, '--key', key], {
        cwd: repoRoot,
        env: cliEnv({ LORE_DATA_DIR: dataDir }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      sync.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const writing = new Promise<void>((resolve) =>
        sync.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (/syncing/.test(stderr)) resolve();
        }),
      );
      // 'close', not 'exit': the last line on stderr may still be in the pipe when the process has exited.
      const exited = new Promise<CliResult>((resolve) => sync.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
      await writing;
      await gateway.stop('SIGKILL');
      const timeout = setTimeout(() => sync.kill('SIGKILL'), 60_000);
      const result = await exited;
      clearTimeout(timeout);
      result.stdout = stdout;
      result.stderr = stderr;
      expectCleanFailure(result, /^lore: .+/m);
      // One line, naming the gateway that went (or, killed before the sync reached it, saying to start one).
      const lines = stderr.split('\n').filter((line) => line.startsWith('lore: '));
      expect(lines, stderr).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`the Lore gateway at ${gateway.url.replace(/\./g, '\\.')}`));
      expect(stdout).not.toMatch(/^synced/m);
    } finally {
      await gateway.stop('SIGKILL');
    }
  }, 900_000);
});
