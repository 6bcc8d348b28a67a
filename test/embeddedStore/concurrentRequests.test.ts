// The gateway's connections reach the embedded store's thread through message ports (src/db/portStream.ts), several
// at once, taking turns on PGlite's one session: under many concurrent requests each answer is its own request's, and
// a write shows in the next read. A real `lore serve` on a data directory of its own.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { lore, serve, type ServeProcess } from '../support/cli.ts';
import { saltmarshBundle } from '../support/fixtures.ts';

let dataDir: string;
let running: ServeProcess;
let headers: Record<string, string>;
let projectId: string;
let entities: { id: string; canonicalName: string }[];

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'lore-concurrent-'));
  // A generous bound: a new store's first start (PGlite's initdb and the migrations) is slow on a loaded machine.
  running = await serve({ LORE_DATA_DIR: dataDir, PORT: '0' }, 180_000);
  const created = await lore(['keys', 'create', '--tier', 'enterprise', '--json'], { LORE_DATA_DIR: dataDir });
  expect(created.code, created.stderr).toBe(0);
  headers = { Authorization: `Bearer ${JSON.parse(created.stdout).key}`, 'Content-Type': 'application/json' };
  const imported = await fetch(`${running.url}/graphql`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query: 'mutation ($bundle: JSON!) { importBundle(bundle: $bundle) { projectId } }', variables: { bundle: saltmarshBundle() } }),
  }).then((r) => r.json());
  projectId = imported.data.importBundle.projectId;
  const recall = await fetch(`${running.url}/api/v1/projects/${projectId}/recall?limit=100`, { headers }).then((r) => r.json());
  entities = recall.entities;
}, 240_000);
afterAll(async () => {
  await running?.stop('SIGTERM');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const api = () => `${running.url}/api/v1/projects/${projectId}`;

it('when 300 requests for different entities arrive at once, then each is answered with its own entity', async () => {
  expect(entities.length).toBeGreaterThan(3);
  const asked = Array.from({ length: 300 }, (_, i) => entities[i % entities.length]);
  const answers = await Promise.all(
    asked.map((e) => fetch(`${api()}/entities/${e.id}`, { headers }).then(async (r) => ({ status: r.status, body: await r.json() }))),
  );
  answers.forEach((answer, i) => {
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: asked[i].id, canonicalName: asked[i].canonicalName });
  });
}, 120_000);

it('when entities are written while others are read at once, then every read after a write shows that write', async () => {
  const [written, ...read] = entities;
  const reads = Promise.all(
    Array.from({ length: 200 }, (_, i) => read[i % read.length]).map((e) =>
      fetch(`${api()}/entities/${e.id}`, { headers }).then(async (r) => ({ id: e.id, status: r.status, body: await r.json() })),
    ),
  );
  for (let n = 0; n < 10; n++) {
    const patched = await fetch(`${api()}/entities/${written.id}`, { method: 'PATCH', headers, body: JSON.stringify({ state: { round: n } }) });
    expect(patched.status, await patched.text()).toBe(200);
    const after = await fetch(`${api()}/entities/${written.id}`, { headers }).then((r) => r.json());
    expect(after.state).toMatchObject({ round: n });
  }
  for (const answer of await reads) {
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe(answer.id);
  }
}, 120_000);
