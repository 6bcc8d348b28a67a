// Issue 15, item 2: on the embedded store (PGlite, one backend for every tenant), one account's import of a very large
// bundle, into a new project or one it has, must not hold the store for long: another account's requests go on being
// answered within 200 ms at p99.
// A real `lore serve` on LORE_DATA_DIR; the import is the GraphQL importBundle a client sends; the figures are printed.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lore, serve, type ServeProcess } from '../support/cli.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { sampleRequests } from '../support/otherTenant.ts';
import { largeBundle } from './largeBundle.ts';

let dataDir: string;
let running: ServeProcess;
const env = () => ({ LORE_DATA_DIR: dataDir });

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'lore-import-load-'));
  // The bundle is about 6 MB of JSON, over the default body limit.
  running = await serve({ ...env(), PORT: '0', LORE_MAX_BODY_BYTES: String(32 * 1024 * 1024) });
}, 120_000);
afterAll(async () => {
  await running?.stop('SIGTERM');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function createKey(tier: string): Promise<string> {
  const created = await lore(['keys', 'create', '--tier', tier, '--json'], env());
  expect(created.code, created.stderr).toBe(0);
  return JSON.parse(created.stdout).key;
}

type Other = { projectId: string; key: string };
let other: Other | undefined;
/** The other account: a small project to recall from, and a tier whose rate limit the requests below stay within. */
async function otherAccount(): Promise<Other> {
  if (other) return other;
  const key = await createKey('enterprise');
  const small = path.join(dataDir, 'saltmarsh.json');
  await writeFile(small, JSON.stringify(saltmarshBundle()));
  const imported = await lore(['import', small, '--key', key, '--json'], env());
  expect(imported.code, imported.stderr).toBe(0);
  other = { projectId: JSON.parse(imported.stdout).projectId, key };
  return other;
}

/**
 * Runs `action` (one request of the importing account) while the other account sends GET /usage and recall, one after
 * another in two clients; checks that the other account's p99 stays under 200 ms and prints the figures.
 */
async function whileOthersRead<T>(label: string, action: () => Promise<T>): Promise<T> {
  const { projectId: otherProject, key: otherKey } = await otherAccount();
  const requests = [`/api/v1/usage`, `/api/v1/projects/${otherProject}/recall?limit=20`];
  const failures: string[] = [];
  const otherTenant = (isDone: () => boolean) => sampleRequests(running.url, otherKey, requests, isDone, failures);

  const idleUntil = Date.now() + 3_000;
  const idle = await otherTenant(() => Date.now() > idleUntil);
  let done = false;
  const started = performance.now();
  const acting = action().finally(() => {
    done = true;
  });
  const during = await otherTenant(() => done);
  const result = await acting;
  console.log(
    `issue 15 item 2, embedded store, ${label} took ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
      `the other account's GET /usage and recall: idle p50 ${idle.p50} ms, p99 ${idle.p99} ms (${idle.requests} requests); ` +
      `meanwhile p50 ${during.p50} ms, p99 ${during.p99} ms, max ${during.max} ms (${during.requests} requests)`,
  );
  expect(failures).toEqual([]);
  expect(during.p99).toBeLessThan(200);
  // Enough requests ran meanwhile for a p99 to mean something.
  expect(during.requests).toBeGreaterThanOrEqual(100);
  return result;
}

/** The GraphQL importBundle of `bundle` (into `projectId` when given), checked whole. */
async function importBundle(key: string, bundle: ReturnType<typeof largeBundle>, projectId?: string): Promise<string> {
  const res = await fetch(`${running.url}/graphql`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation ($bundle: JSON!, $projectId: ID) { importBundle(bundle: $bundle, projectId: $projectId) { projectId counts { entitiesCreated factsCreated relationshipsCreated chaptersCreated mentionsRecorded } } }',
      variables: { bundle, projectId },
    }),
  });
  const body = await res.json();
  expect(res.status, JSON.stringify(body).slice(0, 2_000)).toBe(200);
  expect(body.errors).toBeUndefined();
  expect(body.data.importBundle.counts).toMatchObject({ entitiesCreated: 20_000, factsCreated: 40_000, relationshipsCreated: 19_999, chaptersCreated: 40 });
  return body.data.importBundle.projectId;
}

describe('one account imports a very large bundle on the embedded store', () => {
  it('when a pro key imports 20,000 entities as a new project, then another account\'s GET /usage and recall stay under 200 ms at p99 throughout', async () => {
    const key = await createKey('pro');
    await whileOthersRead('new project: importBundle of 20,000 entities', () => importBundle(key, largeBundle({ entities: 20_000 })));
  }, 600_000);

  it('when a pro key imports 20,000 entities into a project it has, then another account\'s GET /usage and recall stay under 200 ms at p99 throughout', async () => {
    const importerKey = await createKey('pro');
    // The project comes from an import of a small bundle.
    const small = path.join(dataDir, 'existing.json');
    await writeFile(small, JSON.stringify({ project: { name: 'An existing saga' }, entities: [{ key: 'first', type: 'character', name: 'First Mate' }] }));
    const created = await lore(['import', small, '--key', importerKey, '--json'], env());
    expect(created.code, created.stderr).toBe(0);
    const projectId = JSON.parse(created.stdout).projectId;
    await whileOthersRead('existing project: importBundle of 20,000 entities', () => importBundle(importerKey, largeBundle({ entities: 20_000 }), projectId));
  }, 600_000);

  it('when a project of 20,000 entities is deleted, then another account\'s requests stay under 200 ms at p99, and the project is gone with its name free', async () => {
    const key = await createKey('pro');
    const bundle = largeBundle({ entities: 20_000, name: 'A saga to delete' });
    const projectId = await importBundle(key, bundle);
    const deleted = await whileOthersRead('DELETE of a project of 20,000 entities', async () => {
      const res = await fetch(`${running.url}/api/v1/projects/${projectId}`, { method: 'DELETE', headers: { Authorization: `Bearer ${key}` } });
      return { status: res.status, body: await res.json() };
    });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(deleted.body).toMatchObject({ deleted: true });
    const after = await fetch(`${running.url}/api/v1/projects/${projectId}/recall`, { headers: { Authorization: `Bearer ${key}` } });
    expect(after.status).toBe(404);
    const listed = (await (await fetch(`${running.url}/api/v1/projects`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { data: { id: string }[] };
    expect(listed.data.map((p) => p.id)).not.toContain(projectId);
    // The name is free again, and nothing of the deleted project comes back with it.
    const again = await importBundle(key, bundle);
    expect(again).not.toBe(projectId);
  }, 600_000);
});
