// The embedded default: no DATABASE_URL, PGlite in LORE_DATA_DIR. The gateway owns the data directory; CLI commands run
// while it serves go through it (its API, its admin socket for keys), which it records in owner.json there.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanFailure, lore, repoRoot, serve, type ServeProcess } from '../support/cli.ts';
import { saltmarshBundle } from '../support/fixtures.ts';

let dataDir: string;
let env: Record<string, string>;
let running: ServeProcess | undefined;
let key: string;
let projectId: string;
const bundle = saltmarshBundle();

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'lore-embedded-'));
  env = { LORE_DATA_DIR: dataDir };
});
afterAll(async () => {
  await running?.stop('SIGKILL');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function get(url: string, key?: string) {
  const res = await fetch(url, { headers: key ? { Authorization: `Bearer ${key}` } : {} });
  return { status: res.status, body: await res.json() };
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

describe('embedded store (PGlite in LORE_DATA_DIR)', () => {
  it('when the gateway serves the data directory, then keys create and import from the CLI reach it and HTTP serves the data', async () => {
    running = await serve({ ...env, PORT: '0' });
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(running.output()).toContain(`embedded PGlite in ${dataDir}`);
    const owner = JSON.parse(await readFile(path.join(dataDir, 'owner.json'), 'utf8'));
    expect(owner).toEqual({
      role: 'gateway', pid: running.child.pid, command: 'lore serve', url: running.url,
      socket: path.join(dataDir, 'socket'), admin: path.join(dataDir, 'socket', 'lore-admin.sock'),
    });

    const created = await lore(['keys', 'create', '--tier', 'pro', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    key = JSON.parse(created.stdout).key;
    const file = path.join(dataDir, 'bundle.json');
    await writeFile(file, JSON.stringify(bundle));
    const imported = await lore(['import', file, '--key', key, '--json'], env);
    expect(imported.code, imported.stderr).toBe(0);
    const result = JSON.parse(imported.stdout);
    expect(result).toMatchObject({ changed: true, counts: { entitiesCreated: bundle.entities.length } });
    projectId = result.projectId;

    const health = await get(`${running.url}/health`);
    expect(health.body).toMatchObject({ status: 'ok', database: 'pglite' });
    const projects = await get(`${running.url}/api/v1/projects`, key);
    expect(projects.body.data).toEqual([expect.objectContaining({ id: projectId, name: bundle.project.name, entity_count: bundle.entities.length })]);
    const recall = await get(`${running.url}/api/v1/projects/${projectId}/recall?limit=100`, key);
    expect(recall.body.entities.map((e: any) => e.canonicalName).sort()).toEqual(bundle.entities.map((e: any) => e.name).sort());
  }, 300_000);

  it('when the gateway is stopped with SIGTERM and started again, then the data is still there', async () => {
    expect(projectId, 'the previous test imported a project').toBeDefined();
    expect(await running!.stop('SIGTERM')).toBe(0);
    running = undefined;
    expect(existsSync(path.join(dataDir, 'owner.json'))).toBe(false);

    // With no gateway running, the CLI opens the data directory itself, and lets it go.
    const listed = await lore(['keys', 'list', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ tier: 'pro', status: 'active' })]);
    expect(existsSync(path.join(dataDir, 'owner.json'))).toBe(false);

    running = await serve({ ...env, PORT: '0' });
    const projects = await get(`${running.url}/api/v1/projects`, key);
    expect(projects.status).toBe(200);
    expect(projects.body.data).toEqual([expect.objectContaining({ id: projectId, entity_count: bundle.entities.length })]);
    const search = await get(`${running.url}/api/v1/projects/${projectId}/search?q=${encodeURIComponent(bundle.entities[0].name)}`, key);
    expect(search.status).toBe(200);
    expect(search.body.data[0].canonicalName).toBe(bundle.entities[0].name);
    expect(await running.stop('SIGTERM')).toBe(0);
    running = undefined;
  }, 300_000);

  it('when started as `npm start` does, without PORT, then it listens on 8787, or says clearly that the port is taken', async () => {
    const pkg = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8'));
    expect(pkg.scripts.start).toBe('node bin/lore.mjs serve');
    if (await portIsFree(8787)) {
      try {
        running = await serve(env);
      } catch (error) {
        // Another process may have taken the port since the probe; then the failure must say so.
        expect((error as Error).message).toMatch(/port 8787 on 127\.0\.0\.1 is already in use/);
        return;
      }
      expect(running.url).toBe('http://127.0.0.1:8787');
      expect((await get(`${running.url}/health`)).body.status).toBe('ok');
      expect(await running.stop('SIGTERM')).toBe(0);
      running = undefined;
    } else {
      expectCleanFailure(await lore(['serve'], env), /port 8787 on 127\.0\.0\.1 is already in use/);
    }
  }, 300_000);
});
