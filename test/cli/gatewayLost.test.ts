// Issue 25: a gateway that dies while a CLI command waits on it (kill -9 mid-sync) ends the command with one line
// naming the gateway and what is known, and a non-zero exit: never Node's silent exit 13, never a stack.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, lore, repoRoot } from '../support/cli.ts';
import { createTestDatabase } from '../support/gateway.ts';
import { spawnGateway, type GatewayProcess } from '../support/processes.ts';

let dir: string;
let gateway: GatewayProcess | undefined;
let key: string;
let projectId: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'lore-gateway-lost-'));
  const databaseUrl = await createTestDatabase();
  const created = await lore(['keys', 'create', '--tier', 'pro', '--json'], { DATABASE_URL: databaseUrl });
  expect(created.code, created.stderr).toBe(0);
  key = JSON.parse(created.stdout).key;
  gateway = await spawnGateway(databaseUrl);
  await writeFile(path.join(dir, 'start.md'), '# One\n\nMara walked to the harbour.\n');
  const imported = await lore(['import', path.join(dir, 'start.md'), '--name', 'Lost', '--json'], { LORE_API_URL: gateway.url, LORE_API_KEY: key });
  expect(imported.code, imported.stderr).toBe(0);
  projectId = JSON.parse(imported.stdout).projectId;
  // Long enough that the gateway is still at work on it when it is killed.
  const words = ['Mara', 'walked', 'the', 'harbour', 'Tovin', 'said', 'nothing', 'rain', 'Kest', 'city', 'of', 'glass'];
  const chapters = Array.from({ length: 300 }, (_, i) => `# Chapter ${i + 1}\n\n${Array.from({ length: 600 }, (_, j) => words[(i * 7 + j * 5) % words.length]).join(' ')}\n`);
  await writeFile(path.join(dir, 'long.md'), chapters.join('\n'));
}, 240_000);

afterAll(async () => {
  await gateway?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a gateway lost mid-command', { timeout: 240_000 }, () => {
  it('when the gateway is killed (kill -9) while lore sync waits on it, then sync prints one line naming the gateway and exits 1', async () => {
    const child = spawn(process.execPath, ['bin/lore.mjs', 'sync', path.join(dir, 'long.md'), '--project', projectId], {
      cwd: repoRoot,
      env: cliEnv({ LORE_API_URL: gateway!.url, LORE_API_KEY: key }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      // The manuscript is read and its sync sent: the gateway dies under it.
      if (/syncing/.test(stderr)) gateway!.child.kill('SIGKILL');
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, `${stderr}\n${stdout}`).toBe(1);
    const lines = stderr.trim().split('\n').filter((line) => line.startsWith('lore: '));
    expect(lines, stderr).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^lore: .*the Lore gateway at ${gateway!.url.replace(/\./g, '\\.')}`));
    expect(stderr).not.toMatch(/^\s+at .+[:(]/m);
  });
});
