// `npm run bench`: recall and search under load (autocannon, 50 connections) on a seeded project of 5,000 entities and
// 100,000 mentions, through the REST facade of a real `lore serve` process and through a bare express handler calling
// the same core directly (test/bench/bareServer.ts), so the cost of the GraphQL indirection shows as a ratio; then the
// gateway with one worker per core, with its read cache off, and a bare handler reading through
// Prisma's query builder, for comparison; and the gateway again while a writer edits the project once a second.
// Before the load, one line for the conflict check's core on the seeded project (test/bench/conflictCore.ts) and one
// for the brief (test/bench/brief.ts).
// Search also runs with embeddings on (issue 18): gateways with their read cache on and off whose embedding provider
// is a loopback server answering at once (test/support/fakeEmbeddings.ts), so their rows show the cost of hybrid
// ranking (the lexical ranking fused with a nearest-neighbour search over the project's vectors), not a provider's.
// Beside them, the database's part of that ranking on its own (rankingFloor): the floor under the hybrid row's p99.
// The facade and its baseline run in alternating rounds (other work on the machine drifts over minutes): each row of
// theirs is the round of median throughput; the ratio is the median of the rounds' ratios; the gateway's p99 is judged
// on the median of its rounds' p99s, and the bare handler's, printed beside it, says how much of the tail is the
// machine's.
// Then the writes (test/bench/writes.ts): each kind alone from one client, and mixes of reads and writes beside the
// read-only mix on the same gateway.
// Flags: --part reads|writes|search|all (default all; search: the uncached hybrid search and its floor alone, issue 28), --duration <s> (instead of BENCH_DURATION, for a shorter run),
// --store embedded|both: the write part's read-only and mixed loads on the embedded store (test/bench/stores.ts), with
// --seed-entities <n> for smaller projects; --mixes-only: the write part's read-only runs and mixes alone, without the
// writes from one client; --rounds <n> (default 2): the mixes' rounds of read-only then mixed, judged on their median; --alone (with --part writes): only each kind of write alone from one client, on one seeded
// project (a minute of seeding instead of several).
// Env: DATABASE_URL or TEST_DATABASE_URL (the server to create lore_bench on; with neither, and no server at the default
// address, `npm run bench` runs the embedded store's part alone), BENCH_DURATION (s, default 10),
// BENCH_WARMUP (s, default 3), BENCH_ROUNDS (default 5), BENCH_DB (default lore_bench), BENCH_KEEP_DB=1 to keep it afterwards,
// BENCH_QUERIES=search (or recall) to run one of the two, BENCH_SEARCH_WARMUP (requests each server of the search part
// answers before its rounds, default 5,000), BENCH_FLOOR_POOL (the statement floor's connections, default 10).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { defaultMinSimilarity } from '../../src/config.ts';
import { defaultPageLimit } from '../../src/core/validation.ts';
import { KeyService } from '../../src/core/access/keys.ts';
import { similarityFor } from '../../src/core/canon/search.ts';
import { lexicalDepth, vectorDepth } from '../../src/core/embeddings/hybrid.ts';
import { EmbeddingStore } from '../../src/core/embeddings/store.ts';
import { hybridRanking } from '../../src/core/canon/entities.ts';
import { openDatabase } from '../../src/db/database.ts';
import { embedText, startFakeEmbeddings } from '../support/fakeEmbeddings.ts';
import { childProcesses, gatewayListening, spawnServer, type ServerProcess } from '../support/processes.ts';
import { waitFor } from '../support/wait.ts';
import { benchDatabase } from './benchDatabase.ts';
import { ensureBuilt } from './builtGateway.ts';
import { benchBrief } from './brief.ts';
import { benchConflictCore } from './conflictCore.ts';
import { readCacheStatsFile } from './mixStats.ts';
import { factWords, seed, seedSize } from './seed.ts';
import { benchStores, type StoreChoice } from './stores.ts';
import { benchWrites, benchWritesAlone, prepareWriteProjects, reuseWriteProjects } from './writes.ts';

const { values: flags } = parseArgs({
  options: { part: { type: 'string', default: 'all' }, duration: { type: 'string' }, store: { type: 'string', default: 'postgres' }, 'seed-entities': { type: 'string' }, 'mixes-only': { type: 'boolean', default: false }, rounds: { type: 'string' }, alone: { type: 'boolean', default: false } },
});
if (!['reads', 'writes', 'search', 'all'].includes(flags.part!)) throw new Error('--part: reads, writes, search or all');
if (!['postgres', 'embedded', 'both'].includes(flags.store!)) throw new Error('--store: postgres, embedded or both');
if (flags.alone && (flags.part !== 'writes' || flags.store !== 'postgres')) throw new Error('--alone goes with --part writes (on PostgreSQL)');

ensureBuilt();
const bench = benchDatabase(process.env.BENCH_DB ?? 'lore_bench');
const { databaseUrl } = bench;
const duration = Number(flags.duration ?? process.env.BENCH_DURATION ?? 10);
const warmup = Number(process.env.BENCH_WARMUP ?? 3);
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
// The write part's mixes: rounds of read-only then mixed (writes.ts).
const mixRounds = Math.max(1, Number(flags.rounds ?? 2));
const connections = 50;
const target = { ratio: 0.75, p99Ms: 50 };
const workers = availableParallelism();
const queryKinds = (process.env.BENCH_QUERIES ?? 'recall,search').split(',').map((q) => q.trim());
if (!queryKinds.every((q) => q === 'recall' || q === 'search')) throw new Error('BENCH_QUERIES: recall, search or both');
const measuredQueries = (['recall', 'search'] as const).filter((q) => queryKinds.includes(q));

const startServer = (args: string[], listening: RegExp, env: Record<string, string> = {}) =>
  spawnServer(args, listening, { NODE_ENV: 'production', ...env, DATABASE_URL: databaseUrl }).then(bench.track);

const log = (line: string) => process.stdout.write(`${line}\n`);

// CPU time used per request by the server process (with its workers), by the PostgreSQL backends serving lore_bench
// and by autocannon itself (this process), which all share the machine's cores: it moves far less than throughput and
// latency when other work shares the machine, and it says where the time goes.
// Linux /proc only, and PostgreSQL on this machine; elsewhere those columns stay blank.
const procStat = existsSync('/proc/self/stat');
const clockTicks = procStat ? Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) : 100;
const postgresLocal = ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(bench.serverUrl).hostname);

/** CPU of a process and its children (the workers of a clustered gateway). */
const treeCpuMs = (pid: number) => [pid, ...childProcesses(pid)].reduce((sum, p) => sum + cpuMs(p), 0);

function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks; // utime + stime
  } catch {
    return 0; // the process has gone
  }
}

async function backendCpu(): Promise<Map<number, number>> {
  const { rows } = await bench.admin((c) =>
    c.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      [bench.name],
    ),
  );
  return new Map(rows.map(({ pid }) => [pid, cpuMs(pid)]));
}

async function prepare() {
  const started = Date.now();
  if (process.env.BENCH_REUSE_DB === '1') {
    const kept = await reuse();
    if (kept) return kept;
  }
  await bench.recreate();
  const db = await openDatabase({ databaseUrl, dataDir: '' });
  try {
    const key = await new KeyService(db.prisma, db.sql).create({
      tier: 'enterprise',
      name: 'bench',
      customQuota: 2_000_000_000,
      customRate: 2_000_000_000,
    });
    const seeded = await seed(db.prisma, key.account);
    const mentions = await db.prisma.mention.count({ where: { projectId: seeded.projectId } });
    const entities = await db.prisma.entity.count({ where: { projectId: seeded.projectId } });
    log(`seeded ${bench.name}: ${entities} entities, ${mentions} mentions, ${seedSize.chapters} chapters in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // Settled before measuring, so autovacuum waking up after the bulk load does not land on the first scenario.
    await db.prisma.$executeRawUnsafe('VACUUM (ANALYZE)');
    if (flags.part !== 'search') {
      log(await benchConflictCore(db, seeded.projectId));
      log(await benchBrief(db.prisma, db.sql, seeded.projectId));
    }
    const edited = await db.prisma.entity.findMany({ where: { projectId: seeded.projectId }, select: { id: true }, orderBy: { id: 'asc' }, take: 5 });
    return { key: key.key, accountId: key.account, ...seeded, editedEntityIds: edited.map((e) => e.id) };
  } finally {
    await db.close();
  }
}

/**
 * BENCH_REUSE_DB=1 (with BENCH_KEEP_DB=1 on the run before): the seeded project of an earlier run, with a new key of
 * its account, instead of seeding again; undefined when there is none.
 */
async function reuse() {
  const exists = await bench.admin((c) => c.query('SELECT 1 FROM pg_database WHERE datname = $1', [bench.name]));
  if (exists.rowCount === 0) return undefined;
  const db = await openDatabase({ databaseUrl, dataDir: '' });
  try {
    const project = await db.prisma.project.findFirst({ where: { name: 'Bench: The Saltmarsh Cycle' }, orderBy: { createdAt: 'asc' } });
    if (!project) return undefined;
    const key = await new KeyService(db.prisma, db.sql).create({
      tier: 'enterprise', name: 'bench', customQuota: 2_000_000_000, customRate: 2_000_000_000, accountId: project.accountId,
    });
    const seededRows = await db.prisma.$queryRaw<{ id: string; name: string }[]>`
      SELECT id, name FROM "Entity" WHERE "projectId" = ${project.id} AND key ~ '^e[0-9]+$' ORDER BY substring(key from 2)::int`;
    log(`reusing ${bench.name}: ${seededRows.length} seeded entities`);
    return { key: key.key, accountId: project.accountId, projectId: project.id, names: seededRows.map((r) => r.name), entityIds: seededRows.map((r) => r.id), editedEntityIds: seededRows.slice(0, 5).map((r) => r.id) };
  } finally {
    await db.close();
  }
}

/** Name fragments for recall and terms for search (full names, misspelt names, fact words), spread over the data. */
function queries(names: string[]) {
  const sample = (n: number, offset: number) => Array.from({ length: n }, (_, i) => names[(offset + i * 997) % names.length]);
  const recall = [...new Set(sample(40, 11).map((name) => name.replace(/^the /, '').split(' ')[0].slice(0, 4).toLowerCase()))].slice(0, 20);
  const search = [
    ...sample(8, 23),
    ...sample(6, 41).map((name) => name.slice(0, 2) + name.slice(3)),
    ...factWords.slice(0, 6).map((w, i) => `${w} ${factWords[(i * 7 + 3) % factWords.length]}`),
  ];
  return { recall, search };
}

type Query = 'recall' | 'search';
type Scenario = { name: string; server: ServerProcess; prefix: string; key?: string };
type Measured = Awaited<ReturnType<typeof measure>>;
type Row = Measured & { query: Query; scenario: string; ratio?: number; p99OfRounds?: number; edits?: EditCount };
type EditCount = { ok: number; failed: number; p99: number };

const editsPerSecond = 1;

/**
 * A writer editing entities of the project through REST (PATCH, a state change) `editsPerSecond` times a second until
 * stopped, as a writer's tool would while assistants read.
 */
function editEverySecond(s: Scenario, projectId: string, entityIds: string[]) {
  const latencies: number[] = [];
  let failed = 0;
  let n = 0;
  const edit = async () => {
    const entityId = entityIds[n % entityIds.length];
    n++;
    const started = performance.now();
    const res = await fetch(`${s.server.url}${s.prefix}/projects/${projectId}/entities/${entityId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ state: { bench_edit: n } }),
    }).catch(() => undefined);
    await res?.arrayBuffer();
    if (res?.status === 200) latencies.push(performance.now() - started);
    else failed++;
  };
  const pending: Promise<void>[] = [];
  const timer = setInterval(() => pending.push(edit()), 1000 / editsPerSecond);
  return {
    async stop(): Promise<EditCount> {
      clearInterval(timer);
      await Promise.all(pending);
      const sorted = latencies.sort((a, b) => a - b);
      return { ok: sorted.length, failed, p99: sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] : NaN };
    },
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
const medianRun = (runs: Measured[]) => runs.find((run) => run.rps === median(runs.map((r) => r.rps)))!;

/** `seconds` of load, or (`amount`) that many requests. */
function load(s: Scenario, paths: string[], seconds: number, amount?: number) {
  return autocannon({
    url: s.server.url,
    connections,
    duration: seconds,
    ...(amount && { amount }),
    headers: s.key ? { authorization: `Bearer ${s.key}` } : {},
    requests: paths.map((path) => ({ method: 'GET', path })),
  });
}

/**
 * Throughput counts successful answers only; failures (non-2xx, socket errors, 10 s timeouts) get their own column.
 * Latency is over all answers; a run without a single success shows "-".
 */
async function measure(s: Scenario, paths: string[], seconds: number) {
  const appBefore = treeCpuMs(s.server.child.pid!);
  const loadBefore = process.cpuUsage();
  const dbBefore = postgresLocal && procStat ? await backendCpu() : undefined;
  const result = await load(s, paths, seconds);
  const appUsed = treeCpuMs(s.server.child.pid!) - appBefore;
  const loadUsed = process.cpuUsage(loadBefore);
  let dbUsed: number | undefined;
  if (dbBefore) {
    const dbAfter = await backendCpu();
    dbUsed = [...dbAfter].reduce((sum, [pid, ms]) => sum + ms - (dbBefore.get(pid) ?? 0), 0);
  }
  const ok = result['2xx'];
  const completed = ok + result.non2xx;
  return {
    rps: ok / result.duration,
    p50: ok ? result.latency.p50 : NaN,
    p99: ok ? result.latency.p99 : NaN,
    failed: result.errors + result.timeouts + result.non2xx,
    appCpu: procStat ? appUsed / completed : NaN,
    dbCpu: dbUsed === undefined ? NaN : dbUsed / completed,
    loadCpu: (loadUsed.user + loadUsed.system) / 1000 / completed,
  };
}

/**
 * Gateways with embeddings on, with their read cache off and on, once their workers have embedded the seeded project
 * (every entity's search text and approved fact) through a loopback provider that answers at once. `only`: just the
 * uncached one (the search part), with BENCH_CPU_PROF (a directory) writing its CPU profile there when it stops, and
 * with BENCH_BASELINE (another checkout of Lore, built) an uncached one of that checkout beside it.
 */
async function startHybrid(only?: 'uncached'): Promise<{ uncached: ServerProcess; cached?: ServerProcess; baseline?: ServerProcess }> {
  const fake = await startFakeEmbeddings();
  bench.onCleanup(() => fake.close());
  const started = Date.now();
  const env = { LORE_EMBEDDINGS_URL: fake.url, LORE_EMBEDDINGS_MODEL: benchModel };
  const profile = only && process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const baselineCheckout = only && process.env.BENCH_BASELINE;
  const [uncached, cached, baseline] = await Promise.all([
    startServer([...profile, 'bin/lore.mjs', 'serve'], gatewayListening, { ...env, LORE_READ_CACHE_MB: '0' }),
    only ? undefined : startServer(['bin/lore.mjs', 'serve'], gatewayListening, env),
    baselineCheckout ? startServer([`${baselineCheckout}/bin/lore.mjs`, 'serve'], gatewayListening, { ...env, LORE_READ_CACHE_MB: '0' }) : undefined,
  ]);
  await waitFor('the seeded project to be embedded', async () => {
    const health = (await (await fetch(`${uncached.url}/health`)).json()) as { embeddings?: { outbox_pending: number } };
    return health.embeddings?.outbox_pending === 0 ? true : undefined;
  }, 600_000);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number; d: number }>('SELECT COUNT(*)::int AS n, MIN(dimensions) AS d FROM "Embedding"');
    await client.query('VACUUM (ANALYZE) "Embedding"');
    log(`embedded ${rows[0].n} vectors of ${rows[0].d} dimensions in ${((Date.now() - started) / 1000).toFixed(1)} s (${fake.requests.length} provider calls)`);
  } finally {
    await client.end();
  }
  return { uncached, cached, baseline };
}

const benchModel = 'bench-embed';

/**
 * The database's part of an uncached hybrid search alone: the gateway's own ranking statement (entities.ts
 * hybridRanking: the best lexical matches and the nearest vectors, fused, a page of ids and the canon version, with the
 * same text and parameters as the gateway sends) from `connections` connections in a closed loop, each with a pool
 * connection of its own, for `seconds`; no gateway, HTTP, key check or page to read. Whatever the gateway does, its p99
 * cannot fall below this one's on the same machine. CPU per statement: PostgreSQL's backends, and this process's (the
 * pg client's side, where the gateway's is the gateway's app CPU). BENCH_FLOOR_POOL: the pool's size (default 10, the
 * gateway's: 50 backends took a larger share of a loaded machine's cores than the gateway's 10, and a shared server's
 * connections).
 */
async function rankingFloor(accountId: string, projectId: string, queries: string[], seconds: number, warm = warmup) {
  // One pool for every round, as a gateway keeps its own: each new connection plans the statement anew five times.
  if (!floorPool) {
    const made = (floorPool = new pg.Pool({ connectionString: databaseUrl, max: Number(process.env.BENCH_FLOOR_POOL ?? 10), idleTimeoutMillis: 0 }));
    bench.onCleanup(() => made.end());
  }
  const pool = floorPool;
  const searches = queries.map((q) => ({
    q, threshold: similarityFor(q), model: benchModel, vector: embedText(q), maxDistance: 1 - defaultMinSimilarity, lexicalDepth, vectorDepth, limit: defaultPageLimit,
  }));
  try {
    await new EmbeddingStore(pool).ensureDimension(searches[0].vector.length);
    const latencies: number[] = [];
    let next = 0;
    const run = async (until: number, keep: boolean) => {
      await Promise.all(Array.from({ length: connections }, async () => {
        while (Date.now() < until) {
          const started = performance.now();
          const ranked = await hybridRanking(pool, accountId, projectId, searches[next++ % searches.length]);
          if (!ranked[0]?.vectors || ranked[0].id === null) throw new Error('the ranking floor read no vectors');
          if (keep) latencies.push(performance.now() - started);
        }
      }));
    };
    await run(Date.now() + warm * 1000, false);
    const dbBefore = postgresLocal && procStat ? await backendCpu() : undefined;
    const clientBefore = process.cpuUsage();
    await run(Date.now() + seconds * 1000, true);
    const clientUsed = process.cpuUsage(clientBefore);
    let dbUsed: number | undefined;
    if (dbBefore) {
      const dbAfter = await backendCpu();
      dbUsed = [...dbAfter].reduce((sum, [pid, ms]) => sum + ms - (dbBefore.get(pid) ?? 0), 0);
    }
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))];
    return {
      rps: latencies.length / seconds,
      p50: at(0.5),
      p99: at(0.99),
      dbCpu: dbUsed === undefined ? NaN : dbUsed / latencies.length,
      clientCpu: (clientUsed.user + clientUsed.system) / 1000 / latencies.length,
    };
  } catch (error) {
    floorPool = undefined;
    await pool.end();
    throw error;
  }
}

let floorPool: pg.Pool | undefined;

/**
 * Every page of each query (up to 10, following next_starting_after) answered byte for byte alike, headers included
 * that say how it was ranked, by the gateways (this checkout's and BENCH_BASELINE's).
 */
async function samePages(gateways: Scenario[], key: string, projectId: string, qs: string[]) {
  let pages = 0;
  let entities = 0;
  for (const q of qs) {
    let after: string | undefined;
    for (let page = 0; page < 10; page++) {
      const path = `/api/v1/projects/${projectId}/search?q=${encodeURIComponent(q)}&limit=50${after ? `&starting_after=${after}` : ''}`;
      const answers = await Promise.all(gateways.map(async (g) => {
        const res = await fetch(`${g.server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
        return `${res.status} ${res.headers.get('lore-search-ranking')} ${await res.text()}`;
      }));
      if (!answers.every((a) => a === answers[0])) throw new Error(`the gateways answer ${path} differently`);
      const body = JSON.parse(answers[0].slice(answers[0].indexOf('{'))) as { entities: unknown[]; next_starting_after?: string };
      pages++;
      entities += body.entities.length;
      after = body.next_starting_after;
      if (!after) break;
    }
  }
  return `${pages} pages of ${qs.length} queries (${entities} entities, 50 a page) byte-identical on both gateways`;
}

/** Issue 28: the gateway's uncached hybrid search at least this share of its floor's throughput, in the same run. */
const floorTarget = 0.8;

/** The median, the mean of the middle two of an even count (two rounds: their mean, not the lower). */
const middle = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const half = sorted.length / 2;
  return Number.isInteger(half) ? (sorted[half - 1] + sorted[half]) / 2 : sorted[Math.floor(half)];
};

/** CPU of the machine per request of `floor` over CPU per request of `g` (the server's, PostgreSQL's, autocannon's). */
const cpuRatio = (g: Measured, floor: Measured) => (floor.appCpu + floor.dbCpu + floor.loadCpu) / (g.appCpu + g.dbCpu + g.loadCpu);

// V8 goes on compiling the gateway's paths through its first few thousand searches: over the first 10 s of load its
// compiler threads took a third of its CPU, and its CPU per search was twice its steady 0.9 ms (autocannon's
// likewise), still so after 20 s on a machine at a load average of 30. The first round warms each server with this
// many requests, so the rounds measure the servers, not their compilers.
const searchWarmupRequests = Number(process.env.BENCH_SEARCH_WARMUP ?? 5_000);

/**
 * `--part search`: the uncached hybrid search beside its floor (test/bench/floorServer.ts: the gateway's ranking
 * statement alone behind a bare HTTP server answering the gateway's bytes), both driven alike by autocannon with the
 * same connections and paths, in alternating rounds; each row the round of median throughput and the ratio the median
 * of the rounds' ratios. Beside them, the statement alone from this process's own client (rankingFloor, the floor
 * before: no HTTP on either side). With BENCH_BASELINE, the other checkout's gateway in the same rounds.
 */
async function searchFloor() {
  const { key, accountId, projectId, names } = await prepare();
  const qs = queries(names);
  const hybrid = await startHybrid('uncached');
  const gateways: Scenario[] = [
    { name: 'REST hybrid, read cache off', server: hybrid.uncached, prefix: '/api/v1', key },
    ...(hybrid.baseline ? [{ name: 'baseline checkout, same', server: hybrid.baseline, prefix: '/api/v1', key }] : []),
  ];
  const paths = qs.search.map((q) => `/api/v1/projects/${projectId}/search?q=${encodeURIComponent(q)}`);
  let matched = 0;
  const answers: { path: string; q: string; body: string }[] = [];
  for (const [i, path] of paths.entries()) {
    const bodies = await Promise.all(gateways.map(async (s) => {
      const res = await fetch(`${s.server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
      const ranking = res.headers.get('lore-search-ranking');
      if (res.status !== 200 || ranking !== 'hybrid') throw new Error(`${s.name} answers ${path} with HTTP ${res.status}, ranked ${ranking}`);
      return res.text();
    }));
    if (!bodies.every((b) => b === bodies[0])) throw new Error(`the baseline answers ${path} differently`);
    matched += (JSON.parse(bodies[0]) as { entities: unknown[] }).entities.length;
    answers.push({ path, q: qs.search[i], body: bodies[0] });
  }
  log(`search q: ${qs.search.join(', ')}`);
  log(`all ${qs.search.length} searches ranked hybrid (${matched} entities)${hybrid.baseline ? ', bodies byte-identical on both gateways' : ''}`);
  if (hybrid.baseline) log(await samePages(gateways, key, projectId, [...qs.search, ...qs.recall]));
  const searchesFile = join(mkdtempSync(join(tmpdir(), 'lore-floor-')), 'searches.json');
  writeFileSync(searchesFile, JSON.stringify({ accountId, projectId, model: benchModel, searches: answers }));
  const floorServer = await startServer(['--import', 'tsx', 'test/bench/floorServer.ts'], /Ranking floor listening on (http:\/\/127\.0\.0\.1:\d+)/, { FLOOR_SEARCHES: searchesFile });
  const floor: Scenario = { name: 'floor: ranking statement, bare HTTP', server: floorServer, prefix: '/api/v1', key };
  const servers = [...gateways, floor];
  const loadBefore = loadavg()[0];
  const runs = new Map<string, Measured[]>(servers.map((g) => [g.name, []]));
  const statementFloors: Awaited<ReturnType<typeof rankingFloor>>[] = [];
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  const statementRatios: number[] = [];
  // Later rounds are warmed up a little: a server left idle while the others ran has had its pool's connections closed
  // (idle timeout); their handshakes would count in the first second.
  const warm = (round: number) => (round === 1 ? warmup : Math.min(warmup, 1));
  for (let round = 1; round <= rounds; round++) {
    const steps: (() => Promise<void>)[] = [
      ...servers.map((g) => async () => {
        if (round === 1) await load(g, paths, 600, searchWarmupRequests);
        if (warm(round) > 0) await load(g, paths, warm(round));
        runs.get(g.name)!.push(await measure(g, paths, duration));
      }),
      async () => void statementFloors.push(await rankingFloor(accountId, projectId, qs.search, duration, warm(round))),
    ];
    for (const step of round % 2 === 1 ? steps : steps.reverse()) await step();
    const [g, f, st] = [runs.get(gateways[0].name)!.at(-1)!, runs.get(floor.name)!.at(-1)!, statementFloors.at(-1)!];
    ratios.push(g.rps / f.rps);
    cpuRatios.push(cpuRatio(g, f));
    statementRatios.push(g.rps / st.rps);
    log(`round ${round} (load ${loadavg()[0].toFixed(1)}): ` +
      servers.map((s) => { const r = runs.get(s.name)!.at(-1)!; return `${s.name} ${r.rps.toFixed(0)} req/s (p99 ${r.p99} ms, app ${r.appCpu.toFixed(2)} + PG ${r.dbCpu.toFixed(2)} + load ${r.loadCpu.toFixed(2)} ms CPU/req)`; }).join(', ') +
      `; statement alone ${st.rps.toFixed(0)} /s (PG ${st.dbCpu.toFixed(2)} + client ${st.clientCpu.toFixed(2)} ms CPU/statement); ratio ${ratios.at(-1)!.toFixed(2)}, by CPU ${cpuRatios.at(-1)!.toFixed(2)}`);
  }
  const statementRow = statementFloors.find((f) => f.rps === median(statementFloors.map((x) => x.rps)))!;
  const cell = (v: number, w: number, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : '-').padStart(w);
  log('');
  log(`${'scenario'.padEnd(38)}${'req/s'.padStart(8)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'failed'.padStart(8)}${'app CPU ms/req'.padStart(16)}${'PG CPU ms/req'.padStart(15)}${'load CPU'.padStart(10)}`);
  for (const g of servers) {
    const r = medianRun(runs.get(g.name)!);
    log(`${g.name.padEnd(38)}${cell(r.rps, 8, 0)}${cell(r.p50, 9)}${cell(r.p99, 9)}${cell(r.failed, 8, 0)}${cell(r.appCpu, 16, 2)}${cell(r.dbCpu, 15, 2)}${cell(r.loadCpu, 10, 2)}`);
  }
  log(`${'statement alone, this process (no HTTP)'.padEnd(38)}${cell(statementRow.rps, 8, 0)}${cell(statementRow.p50, 9)}${cell(statementRow.p99, 9)}${cell(0, 8, 0)}${cell(statementRow.clientCpu, 16, 2)}${cell(statementRow.dbCpu, 15, 2)}`);
  if (hybrid.baseline) {
    const baseline = runs.get(gateways[1].name)!;
    const floors = runs.get(floor.name)!;
    log(`baseline's ratios by round: ${baseline.map((b, i) => (b.rps / floors[i].rps).toFixed(2)).join(', ')}; by CPU ${baseline.map((b, i) => cpuRatio(b, floors[i]).toFixed(2)).join(', ')}`);
  }
  const ratio = middle(ratios);
  log('');
  log(`uncached hybrid search ${(ratio * 100).toFixed(0)}% of the ranking statement's floor (median of ${rounds} rounds: ${ratios.map((r) => r.toFixed(2)).join(', ')}; target >= ${floorTarget * 100}%): ` +
    `${ratio >= floorTarget ? 'met' : 'NOT met'}`);
  log(`by CPU (the floor's CPU per request over the gateway's, each with PostgreSQL's and autocannon's: the ratio the throughputs tend to ` +
    `when the cores are the limit, and steadier than they are on a loaded machine): median ${middle(cpuRatios).toFixed(2)} (${cpuRatios.map((r) => r.toFixed(2)).join(', ')})`);
  log(`against the statement alone from this process's client (no HTTP, no autocannon): ${middle(statementRatios).toFixed(2)} (${statementRatios.map((r) => r.toFixed(2)).join(', ')})`);
  log(`load average (1 min) ${loadBefore.toFixed(1)} before the runs, ${loadavg()[0].toFixed(1)} after; the target assumes an otherwise idle machine`);
  await Promise.all([hybrid.uncached, hybrid.baseline, floorServer].map((s) => s?.stop()));
}

async function main() {
  log(`bench: ${connections} connections, ${duration} s per run after ${warmup} s warm-up`);
  if (flags.store === 'postgres' && ['all', 'writes'].includes(flags.part!) && !flags.alone && (await bench.onlyEmbedded())) {
    log(`no PostgreSQL answers at ${new URL(bench.serverUrl).host} and none is named: the embedded store's part alone (set DATABASE_URL for PostgreSQL's lines and the comparison)`);
    flags.store = 'embedded';
  }
  if (flags.store !== 'postgres') {
    const seedEntities = flags['seed-entities'] ? Number(flags['seed-entities']) : undefined;
    return benchStores(flags.store as StoreChoice, { databaseUrl, recreate: bench.recreate, seedEntities, duration, warmup, connections, log, alone: !flags['mixes-only'], rounds: mixRounds });
  }
  if (flags.part === 'search') return searchFloor();
  if (flags.part !== 'writes') await reads();
  if (flags.part !== 'reads') await writes();
}

async function writes() {
  const kept = process.env.BENCH_REUSE_DB === '1' && !flags.alone ? await reuseWriteProjects(databaseUrl, log).catch(() => undefined) : undefined;
  if (flags.part === 'writes' && !kept) await bench.recreate();
  const projects = kept ?? (await prepareWriteProjects(databaseUrl, log, { alone: flags.alone }));
  const gateway = await startServer(['bin/lore.mjs', 'serve'], gatewayListening, { LORE_READ_CACHE_STATS: readCacheStatsFile });
  try {
    if (flags.alone) await benchWritesAlone(gateway, projects, { log });
    else await benchWrites(gateway, projects, { databaseUrl, duration, warmup, connections, log, alone: !flags['mixes-only'], rounds: mixRounds });
    log(`load average (1 min) ${loadavg()[0].toFixed(1)} after the writes; the targets assume an otherwise idle machine`);
  } finally {
    await gateway.stop();
  }
}

async function reads() {
  const { key, accountId, projectId, names, editedEntityIds } = await prepare();
  const [gateway, bare, clustered, uncached] = await Promise.all([
    startServer(['bin/lore.mjs', 'serve'], gatewayListening),
    startServer(['--import', 'tsx', 'test/bench/bareServer.ts'], /Bare handler listening on (http:\/\/127\.0\.0\.1:\d+)/),
    startServer(['bin/lore.mjs', 'serve'], gatewayListening, { LORE_WORKERS: String(workers) }),
    startServer(['bin/lore.mjs', 'serve'], gatewayListening, { LORE_READ_CACHE_MB: '0' }),
  ]);
  const qs = queries(names);
  const hybrid = measuredQueries.includes('search') ? ((await startHybrid()) as { uncached: ServerProcess; cached: ServerProcess }) : undefined;
  // The first two (one process each, same core code, with and without GraphQL) give the ratio; the p99 target is read
  // on the gateway with one process and with one worker per core, whichever does better on this machine.
  const scenarios: Scenario[] = [
    { name: 'REST /api/v1 (GraphQL)', server: gateway, prefix: '/api/v1', key },
    { name: 'bare + auth & metering', server: bare, prefix: '/auth', key },
    { name: `REST, ${workers} workers`, server: clustered, prefix: '/api/v1', key },
    { name: 'REST, read cache off', server: uncached, prefix: '/api/v1', key },
    { name: 'bare Prisma, no auth', server: bare, prefix: '/raw' },
  ];
  const paths = (prefix: string, query: Query) => qs[query].map((q) => `${prefix}/projects/${projectId}/${query}?q=${encodeURIComponent(q)}`);

  // The baseline only counts if it answers exactly what the facade answers.
  let matched = 0;
  for (const query of measuredQueries) {
    for (const path of paths('', query)) {
      const bodies = await Promise.all(
        scenarios.map(async (s) => {
          const res = await fetch(`${s.server.url}${s.prefix}${path}`, { headers: s.key ? { authorization: `Bearer ${s.key}` } : {} });
          if (res.status !== 200) throw new Error(`${s.name} ${path}: HTTP ${res.status} ${await res.text()}`);
          return res.json() as Promise<{ entities: unknown[] }>;
        }),
      );
      if (!bodies.every((b) => isDeepStrictEqual(b, bodies[0]))) throw new Error(`the bare handler answers ${path} differently from /api/v1`);
      matched += bodies[0].entities.length;
    }
  }
  log(`recall q: ${qs.recall.join(', ')}`);
  log(`search q: ${qs.search.join(', ')}`);
  log(`responses identical on all ${measuredQueries.reduce((n, q) => n + qs[q].length, 0)} queries (${matched} entities returned in all)`);
  const hybridScenarios: Scenario[] = hybrid
    ? [{ name: 'REST hybrid', server: hybrid.cached, prefix: '/api/v1', key }, { name: 'REST hybrid, read cache off', server: hybrid.uncached, prefix: '/api/v1', key }]
    : [];
  // Every search is to be ranked both ways, or the hybrid rows would measure the lexical path.
  for (const s of hybridScenarios) {
    for (const path of paths(s.prefix, 'search')) {
      const res = await fetch(`${s.server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
      await res.arrayBuffer();
      const ranking = res.headers.get('lore-search-ranking');
      if (res.status !== 200 || ranking !== 'hybrid') throw new Error(`${s.name} answers ${path} with HTTP ${res.status}, ranked ${ranking}`);
    }
  }
  if (hybrid) log(`all ${qs.search.length} searches ranked hybrid on the gateways with embeddings`);

  const loadBefore = loadavg()[0];
  const rows: Row[] = [];
  for (const query of measuredQueries) {
    const [facade, baseline, ...others] = scenarios;
    const runs = new Map<Scenario, Measured[]>([[facade, []], [baseline, []]]);
    const ratios: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      for (const s of round % 2 === 1 ? [facade, baseline] : [baseline, facade]) {
        if (round === 1 && warmup > 0) await load(s, paths(s.prefix, query), warmup);
        runs.get(s)!.push(await measure(s, paths(s.prefix, query), duration));
      }
      const [f, b] = [runs.get(facade)!.at(-1)!, runs.get(baseline)!.at(-1)!];
      ratios.push(f.rps / b.rps);
      log(`${query} round ${round}: REST ${f.rps.toFixed(0)} req/s (p99 ${f.p99} ms), bare ${b.rps.toFixed(0)} req/s (p99 ${b.p99} ms), ratio ${ratios.at(-1)!.toFixed(2)}`);
    }
    const p99OfRounds = (s: Scenario) => median(runs.get(s)!.map((r) => (Number.isNaN(r.p99) ? Infinity : r.p99))); // a failed round counts as the worst
    rows.push({ query, scenario: facade.name, ...medianRun(runs.get(facade)!), ratio: median(ratios), p99OfRounds: p99OfRounds(facade) });
    rows.push({ query, scenario: baseline.name, ...medianRun(runs.get(baseline)!), p99OfRounds: p99OfRounds(baseline) });
    for (const s of query === 'search' ? [...others, ...hybridScenarios] : others) {
      if (warmup > 0) await load(s, paths(s.prefix, query), warmup);
      rows.push({ query, scenario: s.name, ...(await measure(s, paths(s.prefix, query), duration)) });
    }
    // A writer editing the project while the readers read: each edit raises the canon version, so the read caches
    // start over once a second.
    const writer = editEverySecond(facade, projectId, editedEntityIds);
    const measured = await measure(facade, paths(facade.prefix, query), duration);
    const edits = await writer.stop();
    rows.push({ query, scenario: `REST, ${editsPerSecond} edit/s alongside`, ...measured, edits });
  }

  const floor = hybrid ? await rankingFloor(accountId, projectId, qs.search, duration) : undefined;

  const cell = (v: number | undefined, w: number, digits = 1) => (v === undefined ? '' : Number.isFinite(v) ? v.toFixed(digits) : '-').padStart(w);
  log('');
  log(`${'query'.padEnd(8)}${'scenario'.padEnd(28)}${'req/s'.padStart(8)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'failed'.padStart(8)}` +
    `${'REST/bare'.padStart(11)}${'app CPU ms/req'.padStart(16)}${'PG CPU ms/req'.padStart(15)}${'autocannon CPU ms/req'.padStart(23)}`);
  for (const r of rows) {
    log(`${r.query.padEnd(8)}${r.scenario.padEnd(28)}${cell(r.rps, 8, 0)}${cell(r.p50, 9)}${cell(r.p99, 9)}${cell(r.failed, 8, 0)}` +
      `${cell(r.ratio, 11, 2)}${cell(r.appCpu, 16, 2)}${cell(r.dbCpu, 15, 2)}${cell(r.loadCpu, 23, 2)}`);
  }
  log('');
  for (const query of measuredQueries) {
    const [rest, bareRow, clusteredRow] = rows.filter((row) => row.query === query);
    const ratioMet = rest.ratio! >= target.ratio;
    const p99Met = Math.min(rest.p99OfRounds!, clusteredRow.p99) < target.p99Ms;
    log(`${query}: REST throughput ${(rest.ratio! * 100).toFixed(0)}% of bare (median of ${rounds} rounds; target >= ${target.ratio * 100}%): ${ratioMet ? 'met' : 'NOT met'}; ` +
      `REST p99 ${rest.p99OfRounds!.toFixed(1)} ms with one process (median of ${rounds} rounds), ${clusteredRow.p99.toFixed(1)} ms with ${workers} workers ` +
      `(target < ${target.p99Ms} ms): ${p99Met ? 'met' : 'NOT met'}; bare handler p99 ${bareRow.p99OfRounds!.toFixed(1)} ms (median of ${rounds} rounds)`);
  }
  if (hybrid) {
    const row = (scenario: string) => rows.find((r) => r.query === 'search' && r.scenario === scenario)!;
    const [lexical, fused] = [row('REST, read cache off'), row('REST hybrid, read cache off')];
    log(`search with embeddings, read cache off: lexical ${lexical.rps.toFixed(0)} req/s (p50 ${lexical.p50.toFixed(1)} / p99 ${lexical.p99.toFixed(1)} ms), ` +
      `hybrid ${fused.rps.toFixed(0)} req/s (p50 ${fused.p50.toFixed(1)} / p99 ${fused.p99.toFixed(1)} ms; target p99 < ${target.p99Ms} ms): ` +
      `${fused.p99 < target.p99Ms ? 'met' : 'NOT met'}`);
    log(`  its floor, the database's ranking statement alone from ${connections} connections (no gateway, no page read): ${floor!.rps.toFixed(0)} /s, ` +
      `p50 ${floor!.p50.toFixed(1)} / p99 ${floor!.p99.toFixed(1)} ms`);
  }
  for (const query of measuredQueries) {
    const edited = rows.find((row) => row.query === query && row.edits)!;
    const { ok, failed, p99 } = edited.edits!;
    log(`${query} with a writer: ${edited.rps.toFixed(0)} req/s, p99 ${edited.p99.toFixed(1)} ms (target < ${target.p99Ms} ms): ${edited.p99 < target.p99Ms ? 'met' : 'NOT met'}; ` +
      `${ok} edits succeeded (p99 ${p99.toFixed(0)} ms), ${failed} failed`);
  }
  const loadAfter = loadavg()[0];
  log(`load average (1 min) ${loadBefore.toFixed(1)} before the runs, ${loadAfter.toFixed(1)} after; the targets assume an otherwise idle machine`);
  // The writes run on a gateway of their own, with these (and their outbox workers) stopped.
  await Promise.all([gateway, bare, clustered, uncached, ...(hybrid ? [hybrid.cached, hybrid.uncached] : [])].map((s) => s.stop()));
}

try {
  await main();
} catch (error) {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
  process.exitCode = 1;
} finally {
  await bench.cleanup();
}
