// Read-only load on one store (issue 28): three accounts each with the saltmarsh example, 50 connections, recall,
// search and entity reads weighted 50:20:10, through a real `lore serve` on the embedded store or on PostgreSQL.
// Then, with a number of entities as third argument, imports a generated bundle of that size on one account while
// probing every 50 ms a route that needs no store (/api/v1/openapi.json) and one that does (/health).
// With STORE_READS_WRITES=<percent>, then the same mix with that share of writes (POST fact, PATCH state, POST entity
// in turn), issue 28's mixed load, and its ratio to the read-only run.
// Usage: tsx test/bench/storeReads.ts pglite|postgres [seconds] [entities]
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { KeyService } from '../../src/core/access/keys.ts';
import { openDatabase } from '../../src/db/database.ts';
import { largeBundle } from '../embeddedStore/largeBundle.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { gatewayListening, spawnServer } from '../support/processes.ts';
import { ensureBuilt } from './builtGateway.ts';

/** CPU ms of each thread of a process (Linux /proc). */
function threadCpu(pid: number): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    cpu.set(Number(tid), (Number(fields[11]) + Number(fields[12])) * 10);
  }
  return cpu;
}

/** Latencies of GET `url` every 50 ms until `done` settles. */
async function probe(url: string, done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => (finished = true));
  const latencies: number[] = [];
  while (!finished) {
    const started = performance.now();
    await fetch(url).then((r) => r.arrayBuffer());
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return latencies.sort((a, b) => a - b);
}

async function importWhileProbing(url: string, key: string, entities: number) {
  const started = performance.now();
  const imported = fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: 'mutation ($bundle: JSON!) { importBundle(bundle: $bundle) { projectId } }', variables: { bundle: largeBundle({ entities }) } }),
  }).then((r) => r.json());
  const [answer, openapi, health] = await Promise.all([imported, probe(`${url}/api/v1/openapi.json`, imported), probe(`${url}/health`, imported)]);
  if (!answer.data?.importBundle) throw new Error(`import failed: ${JSON.stringify(answer)}`);
  const at = (l: number[], q: number) => l[Math.min(l.length - 1, Math.floor(q * l.length))].toFixed(0);
  process.stdout.write(`import of ${entities} entities: ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
    `openapi.json (no store) p50 ${at(openapi, 0.5)} ms, p99 ${at(openapi, 0.99)} ms, max ${at(openapi, 1)} ms of ${openapi.length}; ` +
    `/health (store) p50 ${at(health, 0.5)} ms, p99 ${at(health, 0.99)} ms, max ${at(health, 1)} ms of ${health.length}\n`);
}

const store = process.argv[2];
const seconds = Number(process.argv[3] ?? 20);
const dataDir = await mkdtemp(path.join(tmpdir(), 'lore-reads-'));
let databaseUrl: string | undefined;
if (store === 'postgres') {
  const server = process.env.TEST_DATABASE_URL!;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS lore_store_reads WITH (FORCE)');
  await admin.query('CREATE DATABASE lore_store_reads');
  await admin.end();
  const url = new URL(server);
  url.pathname = '/lore_store_reads';
  databaseUrl = url.toString();
}
const db = await openDatabase({ databaseUrl, dataDir });
const keys = [];
for (let i = 0; i < 3; i++) keys.push((await new KeyService(db.prisma, db.sql).create({ tier: 'enterprise', name: `reads${i}`, customQuota: 2_000_000_000, customRate: 2_000_000_000 })).key);
await db.close();
const env: Record<string, string> = { NODE_ENV: 'production', LORE_DATA_DIR: dataDir };
if (databaseUrl) env.DATABASE_URL = databaseUrl;
ensureBuilt();
const server = await spawnServer([...(process.env.GATEWAY_NODE_ARGS?.split(' ') ?? []), 'bin/lore.mjs', 'serve'], gatewayListening, env);
try {
  type Planned = { method: string; path: string; headers: Record<string, string>; body?: string };
  const requests: Planned[] = [];
  const writes: ((n: number) => Planned)[] = [];
  for (const key of keys) {
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const imported = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query: 'mutation ($bundle: JSON!) { importBundle(bundle: $bundle) { projectId } }', variables: { bundle: saltmarshBundle() } }),
    }).then((r) => r.json());
    const projectId = imported.data.importBundle.projectId;
    const recall = await fetch(`${server.url}/api/v1/projects/${projectId}/recall?limit=100`, { headers }).then((r) => r.json());
    const ids: string[] = recall.entities.map((e: { id: string }) => e.id);
    const api = `/api/v1/projects/${projectId}`;
    for (const q of ['mara', 'keth', 'heron', 'gull', 'voss']) {
      for (let i = 0; i < 10; i++) requests.push({ method: 'GET', path: `${api}/recall?q=${q}`, headers });
    }
    for (const q of ['green eyes', 'drowned', 'smuggler captain', 'heron']) {
      for (let i = 0; i < 5; i++) requests.push({ method: 'GET', path: `${api}/search?q=${encodeURIComponent(q)}`, headers });
    }
    for (let i = 0; i < 10; i++) requests.push({ method: 'GET', path: `${api}/entities/${ids[i % ids.length]}`, headers });
    writes.push(
      (n) => ({ method: 'POST', path: `${api}/facts`, headers, body: JSON.stringify({ entity_id: ids[n % ids.length], text: `bench fact ${n}` }) }),
      (n) => ({ method: 'PATCH', path: `${api}/entities/${ids[n % ids.length]}`, headers, body: JSON.stringify({ state: { bench: n } }) }),
      (n) => ({ method: 'POST', path: `${api}/entities`, headers, body: JSON.stringify({ type: 'character', name: `Qz${process.pid.toString(36)}x${n.toString(36)}` }) }),
    );
  }
  // autocannon cycles through the list per connection: shuffled, each connection sees the mix.
  for (let i = requests.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [requests[i], requests[j]] = [requests[j], requests[i]];
  }
  await autocannon({ url: server.url, connections: 50, duration: 3, requests });
  const before = threadCpu(server.child.pid!);
  const result = await autocannon({ url: server.url, connections: 50, duration: seconds, requests });
  const bad = result.non2xx + result.errors + result.timeouts;
  const answered = result['2xx'] + result.non2xx;
  process.stdout.write(`${store}: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${bad} failed of ${answered}\n`);
  const after = threadCpu(server.child.pid!);
  const used = [...after].map(([tid, ms]) => [tid, ms - (before.get(tid) ?? 0)] as const).filter(([, ms]) => ms > 100).sort((a, b) => b[1] - a[1]);
  const name = (tid: number) => (tid === server.child.pid ? 'main' : `${readFileSync(`/proc/${server.child.pid}/task/${tid}/comm`, 'utf8').trim()} ${tid}`);
  process.stdout.write(`gateway CPU ms/req by thread: ${used.map(([tid, ms]) => `${name(tid)} ${(ms / answered).toFixed(2)}`).join(', ')}\n`);
  const writePercent = Number(process.env.STORE_READS_WRITES ?? 0);
  if (writePercent > 0) {
    let sent = 0;
    const beforeMix = threadCpu(server.child.pid!);
    const mixed = await autocannon({
      url: server.url, connections: 50, duration: seconds,
      requests: [{ path: '/', setupRequest: () => {
        const n = sent++;
        return n % 100 < writePercent ? writes[n % writes.length](n) : requests[n % requests.length];
      } }],
    });
    const mixedAnswered = mixed['2xx'] + mixed.non2xx;
    const afterMix = threadCpu(server.child.pid!);
    const mixCpu = [...afterMix].map(([tid, ms]) => [tid, ms - (beforeMix.get(tid) ?? 0)] as const).filter(([, ms]) => ms > 100).sort((a, b) => b[1] - a[1]);
    process.stdout.write(`${store} with ${writePercent}% writes: ${Math.round(mixed.requests.average)} req/s, p50 ${mixed.latency.p50} ms, p99 ${mixed.latency.p99} ms, ` +
      `${mixed.non2xx + mixed.errors + mixed.timeouts} failed of ${mixedAnswered}; ${(mixed.requests.average / result.requests.average).toFixed(2)} of read-only\n`);
    process.stdout.write(`gateway CPU ms/req by thread: ${mixCpu.map(([tid, ms]) => `${name(tid)} ${(ms / mixedAnswered).toFixed(2)}`).join(', ')}\n`);
  }
  const entities = Number(process.argv[4] ?? 0);
  if (entities > 0) await importWhileProbing(server.url, keys[0], entities);
} finally {
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}
