// `npm run bench:graph`: GET /projects/{id}/graph with a root at depth 1, 2 and 3 (and without root), on Neo4j and on
// PostgreSQL side by side, over one project of 10,000 entities and 50,000 relationships. Two real `lore serve`
// processes share one database: one with Neo4j configured, one without. Latency is measured with timed sequential
// requests (one at a time, so each figure is the cost of one query, not of queueing), over the same roots for both.
// The project is imported through the importer and copied to Neo4j through the outbox; the bench reports that too.
// Env: DATABASE_URL or TEST_DATABASE_URL (the server to create lore_bench_graph on), BENCH_REQUESTS (per cell,
// default 300), BENCH_KEEP_DB=1 to keep the database. Neo4j: test/neo4j/start.sh on a free port, stopped afterwards.
import { isDeepStrictEqual } from 'node:util';
import { loadConfig } from '../../src/config.ts';
import { openRuntime } from '../../src/runtime.ts';
import { createLogger } from '../../src/logger.ts';
import { startNeo4j } from '../support/neo4j.ts';
import { waitFor } from '../support/wait.ts';
import { prng } from '../support/prng.ts';
import { spawnGateway } from '../support/processes.ts';
import { benchDatabase } from './benchDatabase.ts';

const bench = benchDatabase('lore_bench_graph');
const { databaseUrl } = bench;
const requestsPerCell = Number(process.env.BENCH_REQUESTS ?? 300);
const warmupPerCell = 30;
const size = { entities: 10_000, relationships: 50_000 };

const log = (line: string) => process.stdout.write(`${line}\n`);
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/**
 * 10,000 entities and 50,000 distinct relationships (average degree 10): most ends uniform, one in five drawn from a
 * skewed distribution, so a few well connected characters have hundreds of relationships, as protagonists do.
 */
function bundle() {
  const random = prng(20261122);
  const types = ['character', 'location', 'object', 'event', 'rule', 'promise'];
  const kinds = ['ally_of', 'sibling_of', 'owes', 'rival_of', 'located_in', 'owns', 'knows', 'fears'];
  const entities = Array.from({ length: size.entities }, (_, i) => ({ key: `e${i}`, type: types[i % types.length], name: `Entity ${i}` }));
  const end = () => Math.floor((random() < 0.2 ? random() ** 3 : random()) * size.entities);
  const seen = new Set<string>();
  const relationships: { from: string; to: string; kind: string; weight: number }[] = [];
  while (relationships.length < size.relationships) {
    const r = { from: `e${end()}`, to: `e${end()}`, kind: kinds[Math.floor(random() * kinds.length)], weight: Math.round(random() * 100) / 10 };
    const key = `${r.from}|${r.to}|${r.kind}`;
    if (r.from === r.to || seen.has(key)) continue;
    seen.add(key);
    relationships.push(r);
  }
  return { project: { name: 'Bench: graph' }, entities, relationships };
}

const startServer = (env: Record<string, string>) =>
  spawnGateway(databaseUrl, { LORE_LOG_LEVEL: 'warn', NODE_ENV: 'production', ...env }).then(bench.track);

/** Imports the project with Neo4j configured and lets the outbox worker copy it, timing both. */
async function prepare(neo4jEnv: Record<string, string>) {
  await bench.recreate();
  const config = loadConfig({ ...process.env, ...neo4jEnv, DATABASE_URL: databaseUrl, LORE_LOG_LEVEL: 'warn' });
  const runtime = await openRuntime(config, createLogger('warn'));
  try {
    const { services } = runtime;
    const key = await services.keys.create({ tier: 'enterprise', name: 'bench', customQuota: 2_000_000_000, customRate: 2_000_000_000 });
    // The worker runs before the import, as in a gateway, so the copy goes through the outbox rows.
    services.graphSync!.start();
    await waitFor('the worker to reach Neo4j', async () => ((await services.graphSync!.health()).neo4j === 'reachable' ? true : undefined));
    let started = performance.now();
    const result = await services.importer.import({ accountId: key.account, principalKeyId: key.id, bundle: bundle(), mayCreateProject: true });
    log(`imported ${result.counts.entitiesCreated} entities and ${result.counts.relationshipsCreated} relationships into PostgreSQL in ${seconds(started)} (one transaction, outbox rows included)`);
    started = performance.now();
    await waitFor('the outbox to drain', async () => ((await services.graphSync!.health()).pending === 0 ? true : undefined), 600_000);
    await services.graphSync!.stop();
    log(`outbox drained to Neo4j in ${seconds(started)}`);
    const roots = await services.prisma.$queryRaw<{ id: string }[]>`
      SELECT id FROM "Entity" WHERE "projectId" = ${result.projectId} ORDER BY md5(id) LIMIT 100`;
    return { key: key.key, projectId: result.projectId, roots: roots.map((r) => r.id) };
  } finally {
    await runtime.close();
  }
}

async function get(url: string, key: string): Promise<{ ms: number; body: { nodes: unknown[]; edges: unknown[] } }> {
  const started = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status} ${text}`);
  return { ms, body: JSON.parse(text) };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function main() {
  log(`bench:graph: ${size.entities} entities, ${size.relationships} relationships; ${requestsPerCell} timed sequential requests per cell after ${warmupPerCell} warm-up`);
  let started = performance.now();
  const neo = await startNeo4j();
  bench.onCleanup(() => neo.close());
  log(`Neo4j 5.26 started on ${neo.url} in ${seconds(started)}`);
  const { key, projectId, roots } = await prepare(neo.env);
  const [withNeo4j, withPostgres] = await Promise.all([startServer(neo.env), startServer({ NEO4J_URL: '', NEO4J_USER: '', NEO4J_PASSWORD: '' })]);
  const health = await (await fetch(`${withNeo4j.url}/health`)).json();
  if (health.graph !== 'neo4j' || health.graph_sync?.outbox_pending !== 0) throw new Error(`the Neo4j gateway is not in sync: ${JSON.stringify(health)}`);
  const stores = [
    { name: 'neo4j', base: withNeo4j.url },
    { name: 'postgres', base: withPostgres.url },
  ];
  const path = (root: string | undefined, depth: number) => `/api/v1/projects/${projectId}/graph${root ? `?root=${root}&depth=${depth}` : ''}`;

  // Both gateways must give the same answers before their speed is compared.
  started = performance.now();
  for (const depth of [1, 2, 3]) {
    for (const root of roots.slice(0, 25)) {
      const [a, b] = await Promise.all(stores.map((s) => get(`${s.base}${path(root, depth)}`, key)));
      if (!isDeepStrictEqual(a.body, b.body)) throw new Error(`Neo4j and PostgreSQL answer ${path(root, depth)} differently`);
    }
  }
  log(`answers identical on 75 questions (25 roots x depths 1-3), checked in ${seconds(started)}`);

  type Row = { question: string; store: string; p50: number; p99: number; mean: number; nodes: number; edges: number };
  const rows: Row[] = [];
  for (const question of ['depth 1', 'depth 2', 'depth 3', 'no root']) {
    const depth = question === 'no root' ? 1 : Number(question.slice(-1));
    for (const store of stores) {
      const url = (i: number) => `${store.base}${path(question === 'no root' ? undefined : roots[i % roots.length], depth)}`;
      for (let i = 0; i < warmupPerCell; i++) await get(url(i), key);
      const times: number[] = [];
      let nodes = 0;
      let edges = 0;
      for (let i = 0; i < requestsPerCell; i++) {
        const { ms, body } = await get(url(i), key);
        times.push(ms);
        nodes += body.nodes.length;
        edges += body.edges.length;
      }
      times.sort((a, b) => a - b);
      rows.push({
        question,
        store: store.name,
        p50: percentile(times, 50),
        p99: percentile(times, 99),
        mean: times.reduce((a, b) => a + b, 0) / times.length,
        nodes: nodes / requestsPerCell,
        edges: edges / requestsPerCell,
      });
    }
  }

  const cell = (v: string, w: number) => v.padStart(w);
  log('');
  log(`${'GET /graph'.padEnd(12)}${'store'.padEnd(10)}${cell('p50 ms', 9)}${cell('p99 ms', 9)}${cell('mean ms', 9)}${cell('nodes', 8)}${cell('edges', 8)}`);
  for (const r of rows) {
    log(`${r.question.padEnd(12)}${r.store.padEnd(10)}${cell(r.p50.toFixed(1), 9)}${cell(r.p99.toFixed(1), 9)}${cell(r.mean.toFixed(1), 9)}${cell(r.nodes.toFixed(0), 8)}${cell(r.edges.toFixed(0), 8)}`);
  }
}

try {
  await main();
} catch (error) {
  process.stderr.write(`bench:graph failed: ${(error as Error).stack ?? error}\n`);
  process.exitCode = 1;
} finally {
  await bench.cleanup();
}
