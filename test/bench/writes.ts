// The write part of `npm run bench` (issue 28): each kind of write alone from one client on the seeded project of
// 5,000 entities and 150,000 words (POST fact, PATCH state, POST entity, a rename), then a mix of reads and writes from
// 50 connections on three such projects (recall 50, search 20, entity 10, plus 25% writes: POST fact, PATCH state,
// POST entity) and on 200 small projects (95% reads, 5% writes: many writers, each writing rarely), each beside the
// read-only mix on the same gateway in the same process, with the issue's targets beside every line.
import autocannon from 'autocannon';
import { loadavg } from 'node:os';
import { KeyService } from '../../src/core/access/keys.ts';
import { openDatabase } from '../../src/db/database.ts';
import type { ServerProcess } from '../support/processes.ts';
import { prng } from '../support/prng.ts';
import { cacheCounts, firstReads, KindLatencies, mixStatsOn, startMixStats } from './mixStats.ts';
import { seedMany, seedSize, type SeedSize } from './seed.ts';

type Project = { projectId: string; key: string; names: string[]; entityIds: string[] };
export type Mix = { recall: number; search: number; entity: number; fact: number; state: number; create: number };
type Options = { databaseUrl?: string; duration: number; warmup: number; connections: number; log: (line: string) => void; alone?: boolean; rounds?: number };
export type WriteProjects = { large: Project[]; small: Project[]; largeSize: SeedSize };
type Run = Awaited<ReturnType<typeof load>>;
/** Each pair of loads: the read-only run and the mix beside it, each the run of median throughput of its rounds. */
export type WriteResults = { large: { reads: Run; mixed: Run }; small: { reads: Run; mixed: Run } };

const smallProject: SeedSize = { entities: 100, mentions: 1_000, chapters: 10, conflicts: 3, words: 5_000 };
export const writeTargets = { factMs: 5, stateMs: 5, createMs: 30, renameMs: 50, mixedRatio: 0.5, mixedP99: 100, manyRatio: 0.8, manyP99: 50 };

export const readOnly: Mix = { recall: 50, search: 20, entity: 10, fact: 0, state: 0, create: 0 };
// The reads in the same proportions as readOnly (75 of 100), the writes split evenly (25 of 100).
export const mixed: Mix = { recall: 46.875, search: 18.75, entity: 9.375, fact: 25 / 3, state: 25 / 3, create: 25 / 3 };
const mostlyReads: Mix = { recall: 59.375, search: 23.75, entity: 11.875, fact: 5 / 3, state: 5 / 3, create: 5 / 3 };

/**
 * Seeds three projects of the full size (or `largeSize`) and 200 small ones, each in an account of its own with its
 * own key, on PostgreSQL at `databaseUrl` or, without one, in the embedded store of `dataDir`.
 */
export async function prepareWriteProjects(
  databaseUrl: string | undefined, log: (line: string) => void,
  { dataDir = '', largeSize = seedSize, alone = false }: { dataDir?: string; largeSize?: SeedSize; alone?: boolean } = {},
): Promise<WriteProjects> {
  const started = Date.now();
  const db = await openDatabase({ databaseUrl, dataDir });
  try {
    const keys = new KeyService(db.prisma, db.sql);
    // Each kind of project in one seeding: 200 projects one by one took minutes on the embedded store.
    const projects = async (count: number, size: SeedSize): Promise<Project[]> => {
      const created: Awaited<ReturnType<KeyService['create']>>[] = [];
      for (let i = 0; i < count; i++) created.push(await keys.create({ tier: 'enterprise', name: 'bench writes', customQuota: 2_000_000_000, customRate: 2_000_000_000 }));
      const seeded = await seedMany(db.prisma, created.map((k) => k.account), size, { analyze: false, triggers: false });
      return seeded.map((s, i) => ({ key: created[i].key, ...s }));
    };
    const large = await projects(alone ? 1 : 3, largeSize);
    const small = await projects(alone ? 0 : 200, smallProject);
    await db.prisma.$executeRawUnsafe('VACUUM (ANALYZE)');
    log(`seeded for writes${databaseUrl ? '' : ' (embedded store)'}: ${large.length} projects of ${largeSize.entities} entities and ${largeSize.words} words, ${small.length} of ${smallProject.entities} entities, in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return { large, small, largeSize };
  } finally {
    await db.close();
  }
}

/**
 * BENCH_REUSE_DB=1 (with BENCH_KEEP_DB=1 on the run before): the projects an earlier run seeded for writes, each with
 * a new key of its account (as they stand after that run's writes), instead of seeding again; undefined when there are
 * none.
 */
export async function reuseWriteProjects(databaseUrl: string, log: (line: string) => void): Promise<WriteProjects | undefined> {
  const db = await openDatabase({ databaseUrl, dataDir: '' });
  try {
    const found = await db.prisma.project.findMany({ where: { name: 'Bench: The Saltmarsh Cycle' }, orderBy: { createdAt: 'asc' }, select: { id: true, accountId: true } });
    if (found.length < 203) return undefined;
    const keys = new KeyService(db.prisma, db.sql);
    const projects: Project[] = [];
    for (const { id, accountId } of found) {
      // The seeded entities only, in seeding order (the runs' own are named Qz…).
      const entities = await db.prisma.entity.findMany({ where: { projectId: id, NOT: { name: { startsWith: 'Qz' } } }, select: { id: true, name: true }, orderBy: { id: 'asc' } });
      const key = await keys.create({ tier: 'enterprise', name: 'bench writes', customQuota: 2_000_000_000, customRate: 2_000_000_000, accountId });
      projects.push({ projectId: id, key: key.key, names: entities.map((e) => e.name), entityIds: entities.map((e) => e.id) });
    }
    const large = projects.filter((p) => p.entityIds.length > smallProject.entities);
    log(`reused the write projects of ${new URL(databaseUrl).pathname.slice(1)}: ${large.length} large, ${projects.length - large.length} small`);
    return { large, small: projects.filter((p) => p.entityIds.length <= smallProject.entities), largeSize: seedSize };
  } finally {
    await db.close();
  }
}

let unique = 0;
/** A name no seeded entity has (the seed's names are syllables of lower-case letters after a capital). */
const freshName = () => `Qz${process.pid.toString(36)}x${(unique++).toString(36)}`;

const write = {
  fact: (p: Project, random: () => number) => ({
    method: 'POST', path: `/api/v1/projects/${p.projectId}/facts`,
    body: JSON.stringify({ entity_id: pick(p.entityIds, random), text: `bench fact ${freshName()}` }),
  }),
  state: (p: Project, random: () => number) => ({
    method: 'PATCH', path: `/api/v1/projects/${p.projectId}/entities/${pick(p.entityIds, random)}`,
    body: JSON.stringify({ state: { bench: unique++ } }),
  }),
  create: (p: Project) => ({ method: 'POST', path: `/api/v1/projects/${p.projectId}/entities`, body: JSON.stringify({ type: 'character', name: freshName() }) }),
  rename: (p: Project, random: () => number) => ({
    // Its aliases go too: some seeded titles ("the Healer") are several entities' aliases, which a rename is refused.
    method: 'PATCH', path: `/api/v1/projects/${p.projectId}/entities/${pick(p.entityIds, random)}`, body: JSON.stringify({ name: freshName(), aliases: [] }),
  }),
};

const pagePaths = {
  recall: (p: Project, name: string) => `/api/v1/projects/${p.projectId}/recall?q=${encodeURIComponent(name.replace(/^the /, '').slice(0, 4).toLowerCase())}`,
  search: (p: Project, name: string) => `/api/v1/projects/${p.projectId}/search?q=${encodeURIComponent(name)}`,
};
const read = {
  recall: (p: Project, random: () => number) => ({ method: 'GET', path: pagePaths.recall(p, pick(p.names, random)) }),
  search: (p: Project, random: () => number) => ({ method: 'GET', path: pagePaths.search(p, pick(p.names, random)) }),
  entity: (p: Project, random: () => number) => ({ method: 'GET', path: `/api/v1/projects/${p.projectId}/entities/${pick(p.entityIds, random)}` }),
};

// Reads and writes go to a few hundred of each project's entities, so reads repeat (as an assistant's do) and can be
// served from the read cache while writes land among them.
const hot = 300;
const pick = <T>(items: readonly T[], random: () => number) => items[Math.floor(random() * Math.min(items.length, hot))];

/** The median, the mean of the middle two of an even count. */
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
/**
 * Every recall and search page the loads can ask of `projects` read once, 20 at a time, when there are at most
 * `limit` of them (3 projects: some 1,700; 200 small ones: 40,000, which the alternating rounds warm instead).
 */
export async function readEveryPage(server: ServerProcess, projects: Project[], limit = 5_000): Promise<number> {
  const paths = [...new Set(projects.flatMap((p) => p.names.slice(0, hot).flatMap((name) => [pagePaths.recall(p, name), pagePaths.search(p, name)].map((path) => `${p.key} ${path}`))))];
  if (paths.length > limit) return 0;
  let next = 0;
  await Promise.all(Array.from({ length: 20 }, async () => {
    while (next < paths.length) {
      const [key, path] = paths[next++].split(' ');
      const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status}`);
    }
  }));
  return paths.length;
}

const percentile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];

/** One client, one request at a time: p50 and p99 of `count` writes of one kind after a few unmeasured ones. */
async function alone(server: ServerProcess, p: Project, kind: keyof typeof write, count: number) {
  const random = prng(7);
  const latencies: number[] = [];
  for (let i = -5; i < count; i++) {
    const request = write[kind](p, random);
    const started = performance.now();
    const res = await fetch(`${server.url}${request.path}`, {
      method: request.method, body: request.body, headers: { authorization: `Bearer ${p.key}`, 'content-type': 'application/json' },
    });
    const body = await res.text();
    if (res.status >= 300) throw new Error(`${request.method} ${request.path}: HTTP ${res.status} ${body}`);
    if (i >= 0) latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}

/**
 * Once the gateway has answered what a run left in flight: autocannon stops with a request open on each connection,
 * which the gateway still runs; on a slow store (the embedded one on a loaded machine: 8 req/s) those 50 took the
 * next run's seconds, which then counted no answer at all (0 req/s). A request reading the store, three times one
 * after the other, waits behind the statements queued before it.
 */
async function settled(server: ServerProcess) {
  for (let i = 0; i < 3; i++) await fetch(`${server.url}/health`).then((r) => r.arrayBuffer());
}

/** `mix` from `connections` connections over `projects`, each request to a project at random with its key. */
export async function load(
  server: ServerProcess, projects: Project[], mix: Mix, seconds: number, connections: number, seed: number,
  stats?: { databaseUrl: string; log: (line: string) => void },
) {
  const random = prng(seed);
  const kinds = Object.entries(mix).filter(([, weight]) => weight > 0) as [keyof Mix, number][];
  const total = kinds.reduce((sum, [, weight]) => sum + weight, 0);
  const choose = (): keyof Mix => {
    let roll = random() * total;
    for (const [kind, weight] of kinds) if ((roll -= weight) < 0) return kind;
    return kinds[0][0];
  };
  const sent: Record<string, number> = {};
  const countsBefore = await cacheCounts();
  const measuring = stats && (await startMixStats(stats.databaseUrl, server.child.pid!));
  const answers = stats && new KindLatencies();
  const result = await autocannon({
    url: server.url,
    connections,
    duration: seconds,
    requests: [{
      path: '/',
      setupRequest: (_request, context) => {
        const p = projects[Math.floor(random() * projects.length)];
        const kind = choose();
        sent[kind] = (sent[kind] ?? 0) + 1;
        const request = kind in write ? write[kind as keyof typeof write](p, random) : read[kind as keyof typeof read](p, random);
        answers?.sent(context, kind, request);
        return { ...request, headers: { authorization: `Bearer ${p.key}`, ...(request.method === 'GET' ? {} : { 'content-type': 'application/json' }) } };
      },
      onResponse: answers && ((status, body, context) => answers.answered(context, status, body)),
    }],
  });
  const ok = result['2xx'];
  await settled(server);
  if (measuring) for (const line of [...(await measuring.stop(ok, sent)), ...answers!.lines(result)]) stats.log(line);
  const cold = firstReads(countsBefore, await cacheCounts());
  // autocannon counts a timeout among its errors too.
  return { rps: ok / result.duration, p50: result.latency.p50, p99: result.latency.p99, failed: result.errors + result.non2xx, cold };
}

/** Each kind of write alone from one client, on the first large project, with its target. */
export async function benchWritesAlone(server: ServerProcess, projects: WriteProjects, o: Pick<Options, 'log' | 'alone'>): Promise<void> {
  const t = writeTargets;
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
  const [first] = projects.large;
  // Writes alone unless only the mixes are asked for (bench.ts --mixes-only).
  if (o.alone !== false) {
    o.log(`writes alone, one client, one request at a time, on a project of ${projects.largeSize.entities} entities and ${projects.largeSize.words} words:`);
    const counts = { fact: 200, state: 200, create: 30, rename: 30 };
    const labels = { fact: 'POST fact', state: 'PATCH state', create: 'POST entity', rename: 'rename (PATCH name)' };
    const targets = { fact: t.factMs, state: t.stateMs, create: t.createMs, rename: t.renameMs };
    for (const kind of ['fact', 'state', 'create', 'rename'] as const) {
      const { p50, p99 } = await alone(server, first, kind, counts[kind]);
      const judged = kind === 'rename' ? p99 : p50;
      o.log(`  ${labels[kind].padEnd(20)} p50 ${ms(p50).padStart(9)}  p99 ${ms(p99).padStart(9)}   target ${kind === 'rename' ? 'p99' : 'p50'} < ${targets[kind]} ms: ${verdict(judged < targets[kind])}`);
    }
  }
}

export async function benchWrites(server: ServerProcess, projects: WriteProjects, o: Options): Promise<WriteResults> {
  const t = writeTargets;
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
  await benchWritesAlone(server, projects, o);
  const rounds = Math.max(1, o.rounds ?? 2);
  const pair = async (label: string, list: Project[], mix: Mix, ratioTarget: number, p99Target: number) => {
    // The read-only run and the mix alternate, each after the other's run (the first after an unmeasured mix), so both
    // find the cache alike (the share of first reads printed under each says whether they did): a read-only run right after seeding read 39% of its recall pages and 81% of its search pages
    // for the first time, where the mix after it found them kept, and its ratio said nothing of the writes. Each run
    // draws its own requests: with one seed for all, a run asks again exactly what the run before it asked.
    // Where there are few enough, every page is read first: rounds of a few seconds leave many of them unread.
    const warmed = await readEveryPage(server, list);
    await load(server, list, mix, Math.max(o.warmup, o.duration), o.connections, 11);
    // BENCH_MIX_STATS=1: where each run's time goes (mixStats.ts), printed under the load's numbers.
    const stats = mixStatsOn && o.databaseUrl ? { databaseUrl: o.databaseUrl, log: o.log } : undefined;
    const line = (name: string, r: Run) => `  ${name.padEnd(42)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${ms(r.p50).padStart(9)}  p99 ${ms(r.p99).padStart(9)}  failed ${r.failed}`;
    const writesName = `with ${(mix.fact + mix.state + mix.create).toFixed(0)}% writes (fact/state/entity)`;
    o.log(`${label}, ${o.connections} connections, ${o.duration} s each, ${rounds} rounds of read-only then mixed` +
      `${warmed ? `, after every page read once (${warmed})` : ''}:`);
    const runs: { reads: Run; mixed: Run }[] = [];
    for (let round = 1; round <= rounds; round++) {
      if (stats) o.log(`  round ${round}, read-only:`);
      const reads = await load(server, list, readOnly, o.duration, o.connections, 20 + round, stats);
      if (stats) o.log(`  round ${round}, mixed:`);
      const both = await load(server, list, mix, o.duration, o.connections, 30 + round, stats);
      runs.push({ reads, mixed: both });
      o.log(`  round ${round}, load average ${loadavg()[0].toFixed(1)}:`);
      o.log(line('read-only (recall/search/entity 50/20/10)', reads));
      o.log(`  ${''.padEnd(42)} ${reads.cold}`);
      o.log(`${line(writesName, both)}   ratio ${(both.rps / reads.rps).toFixed(2)}`);
      o.log(`  ${''.padEnd(42)} ${both.cold}`);
    }
    const ratio = median(runs.map((r) => r.mixed.rps / r.reads.rps));
    const p99 = median(runs.map((r) => r.mixed.p99));
    const failed = runs.reduce((sum, r) => sum + r.mixed.failed, 0);
    const mixedRps = median(runs.map((r) => r.mixed.rps));
    o.log(`  median of ${rounds} rounds: ratio ${ratio.toFixed(2)} (target >= ${ratioTarget}), mixed p99 ${ms(p99)} (target < ${p99Target} ms): ` +
      `${verdict(ratio >= ratioTarget && p99 < p99Target && failed === 0)}`);
    // Each connection waits for its answer before it asks again, so the mean latency is connections / throughput
    // (Little's law) and the p99 is at least that: a p99 target is also a throughput target.
    o.log(`  ${''.padEnd(42)} mean latency ${o.connections} / ${mixedRps.toFixed(0)} req/s = ${ms((o.connections / mixedRps) * 1000)} (Little's law; p99 < ${p99Target} ms needs over ${((o.connections * 1000) / p99Target).toFixed(0)} req/s)`);
    const middle = (pick: (r: { reads: Run; mixed: Run }) => Run) => runs.map(pick).sort((a, b) => a.rps - b.rps)[Math.floor((runs.length - 1) / 2)];
    return { reads: middle((r) => r.reads), mixed: middle((r) => r.mixed) };
  };
  return {
    large: await pair(`mix on 3 projects of ${projects.largeSize.entities} entities`, projects.large, mixed, t.mixedRatio, t.mixedP99),
    small: await pair(`mix on 200 projects of ${smallProject.entities} entities`, projects.small, mostlyReads, t.manyRatio, t.manyP99),
  };
}
