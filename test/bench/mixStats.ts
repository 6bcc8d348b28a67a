// Where a mix's time goes (BENCH_MIX_STATS=1 with `--part writes`): per run, the requests sent by kind, the CPU of the
// gateway and of PostgreSQL's backends per answered request, how the read cache answered each kind of page (the
// gateway's LORE_READ_CACHE_STATS file) and what the database's sessions were doing, sampled every 20 ms
// (pg_stat_activity: active, waiting on which lock or event, idle in a transaction), the load generator's CPU, the
// gateway's CPU by thread and PostgreSQL's by process kind (other databases' backends apart: the server is shared), the
// machine's busy and idle cores, each kind of request's latencies and failures, and how many writes of a write's project
// were already in flight as it was sent (KindLatencies). Off unless asked for.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

export const mixStatsOn = process.env.BENCH_MIX_STATS === '1';
/** The file the gateway writes its read cache counts to (passed as LORE_READ_CACHE_STATS). */
export const readCacheStatsFile = path.join(tmpdir(), `lore-read-cache-stats-${process.pid}.json`);

const clockTicks = existsSync('/proc/self/stat') ? Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) : 100;
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
  } catch {
    return 0;
  }
}

/** Each thread's CPU (ms) of process `pid`, summed by the thread's name (the main thread bears the process's name). */
function threadsMs(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const tid of tasks) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = Number(tid) === pid ? 'main thread' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/[0-9]+$/, '#');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byName.set(name, (byName.get(name) ?? 0) + ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks);
    } catch {
      // the thread ended
    }
  }
  return byName;
}

/** The machine's CPU (ms, all cores) busy and idle-or-waiting, from /proc/stat. */
function machineMs(): { busy: number; idle: number } {
  const [, ...f] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const n = f.map(Number);
  const idle = n[3] + n[4];
  return { busy: ((n.slice(0, 8).reduce((a, b) => a + b, 0) - idle) * 1000) / clockTicks, idle: (idle * 1000) / clockTicks };
}

type Counts = Record<string, Record<string, number>>;
const readCounts = (): Counts => {
  try {
    return JSON.parse(readFileSync(readCacheStatsFile, 'utf8')) as Counts;
  } catch {
    return {};
  }
};

/** The gateway's read cache counts once it has written all it counted so far (it writes them every second). */
export async function cacheCounts(): Promise<Counts> {
  await new Promise((r) => setTimeout(r, 1_100));
  return readCounts();
}

/**
 * Each kind of page's first reads (not in the cache at all) between two of `cacheCounts`' answers, as a share of its
 * requests: two runs compare fairly only when their reads found the cache alike.
 */
export function firstReads(before: Counts, after: Counts): string {
  const shares = Object.entries(after).flatMap(([kind, counts]) => {
    const delta = (k: string) => (counts[k] ?? 0) - (before[kind]?.[k] ?? 0);
    const total = Object.keys(counts).reduce((sum, k) => sum + delta(k), 0);
    return total > 0 ? [`${kind} ${((100 * (delta('absent') + delta('absent, shared'))) / total).toFixed(0)}% of ${total}`] : [];
  });
  return shares.length > 0 ? `first reads (pages not in the cache): ${shares.join(', ')}` : 'first reads: no read cache counts (LORE_READ_CACHE_STATS)';
}

/** Starts measuring a run of the gateway `pid` on `databaseUrl`; `stop` answers the lines to print. */
export async function startMixStats(databaseUrl: string, gatewayPid: number) {
  const datname = new URL(databaseUrl).pathname.slice(1);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const backends = async () => {
    const { rows } = await client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()`, [datname]);
    return new Map(rows.map(({ pid }) => [pid, cpuMs(pid)]));
  };
  // Every PostgreSQL process by kind (this database's backends apart from other databases', which are other work on the
  // shared server), the gateway by thread.
  const serverProcesses = async () => {
    const { rows } = await client.query<{ pid: number; kind: string }>(
      `SELECT pid, CASE WHEN backend_type = 'client backend' THEN (CASE WHEN datname = $1 THEN 'backends of this database' ELSE 'backends of other databases' END)
                        ELSE backend_type END AS kind
       FROM pg_stat_activity WHERE pid <> pg_backend_pid()`, [datname]);
    return new Map(rows.map(({ pid, kind }) => [pid, { kind, ms: cpuMs(pid) }]));
  };
  const byKind = (before: Map<number, { kind: string; ms: number }>, after: Map<number, { kind: string; ms: number }>) => {
    const sums = new Map<string, number>();
    for (const [pid, { kind, ms }] of after) sums.set(kind, (sums.get(kind) ?? 0) + ms - (before.get(pid)?.ms ?? 0));
    return sums;
  };
  // Counts before, after a second for the gateway to write them.
  await new Promise((r) => setTimeout(r, 1_100));
  const countsBefore = readCounts();
  const dbBefore = await backends();
  const appBefore = cpuMs(gatewayPid);
  const threadsBefore = threadsMs(gatewayPid);
  const serverBefore = await serverProcesses();
  const machineBefore = machineMs();
  const wallBefore = performance.now();
  const benchBefore = process.cpuUsage();
  const states = new Map<string, number>();
  let samples = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const { rows } = await client.query<{ what: string; n: number }>(
        `SELECT CASE WHEN state = 'active' AND wait_event IS NULL THEN 'active (on CPU)'
                     WHEN state = 'active' THEN 'active, waiting ' || wait_event_type || ':' || wait_event
                     ELSE coalesce(state, '?') END AS what, count(*)::int AS n
         FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid() GROUP BY 1`, [datname]);
      samples++;
      for (const { what, n } of rows) states.set(what, (states.get(what) ?? 0) + n);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    async stop(answered: number, sent: Record<string, number>): Promise<string[]> {
      sampling = false;
      await sampler;
      const appMs = cpuMs(gatewayPid) - appBefore;
      const threadsAfter = threadsMs(gatewayPid);
      const serverAfter = await serverProcesses();
      const machineAfter = machineMs();
      const wall = performance.now() - wallBefore;
      const { user, system } = process.cpuUsage(benchBefore);
      const dbAfter = await backends();
      let dbMs = 0;
      for (const [pid, ms] of dbAfter) dbMs += ms - (dbBefore.get(pid) ?? 0);
      await new Promise((r) => setTimeout(r, 1_100));
      const countsAfter = readCounts();
      await client.end();
      const lines = [
        `    sent: ${Object.entries(sent).map(([k, n]) => `${k} ${n}`).join(', ')}; CPU per answer: gateway ${(appMs / answered).toFixed(2)} ms, PostgreSQL ${(dbMs / answered).toFixed(2)} ms, ` +
          `the load generator (autocannon in the bench's process, beside the gateway) ${((user + system) / 1000 / answered).toFixed(2)} ms`,
      ];
      const per = (ms: number) => (ms / answered).toFixed(2);
      const threads = [...threadsAfter].map(([name, ms]) => [name, ms - (threadsBefore.get(name) ?? 0)] as const).filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]);
      lines.push(`    gateway by thread, ms an answer: ${threads.map(([name, ms]) => `${name} ${per(ms)}`).join(', ')}`);
      const kinds = [...byKind(serverBefore, serverAfter)].filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]);
      lines.push(`    PostgreSQL by process kind, ms an answer: ${kinds.map(([kind, ms]) => `${kind} ${per(ms)}`).join(', ')}`);
      lines.push(`    machine over ${(wall / 1000).toFixed(1)} s: busy ${per(machineAfter.busy - machineBefore.busy)} ms an answer (${((machineAfter.busy - machineBefore.busy) / wall).toFixed(2)} cores), idle or waiting ${((machineAfter.idle - machineBefore.idle) / wall).toFixed(2)} cores`);
      for (const [kind, after] of Object.entries(countsAfter)) {
        const before = countsBefore[kind] ?? {};
        const delta = Object.entries(after).map(([k, n]) => [k, n - (before[k] ?? 0)] as const).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
        const total = delta.reduce((s, [, n]) => s + n, 0);
        if (total > 0) lines.push(`    read cache, ${kind}: ${delta.map(([k, n]) => `${k} ${((100 * n) / total).toFixed(0)}%`).join(', ')} of ${total}`);
      }
      const sessions = [...states].sort((a, b) => b[1] - a[1]).map(([what, n]) => `${what} ${(n / samples).toFixed(1)}`).join(', ');
      lines.push(`    PostgreSQL sessions on average (${samples} samples): ${sessions}`);
      return lines;
    },
  };
}

const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];

/**
 * Each answer's wall time by kind of request (from the moment autocannon builds it, right before it writes it, to its
 * answer), and what the failed ones answered: which kinds make the slowest 1%.
 */
export class KindLatencies {
  private readonly times = new Map<string, number[]>();
  private readonly failures = new Map<string, { count: number; example: string }>();
  private all: { kind: string; ms: number }[] = [];
  /** writes of each project in flight (sent, not yet answered), and how many were in flight as each write was sent */
  private readonly writing = new Map<string, number>();
  private readonly alongside = new Map<number, number>();

  sent(context: Record<string, unknown>, kind: string, request: { method: string; path: string }) {
    context.kind = kind;
    context.route = `${request.method} ${request.path.replace(/[0-9a-z]{20,}/g, ':id').replace(/\?.*/, '')}`;
    context.started = performance.now();
    if (request.method !== 'GET') {
      const project = /projects\/([^/]+)/.exec(request.path)?.[1] ?? '';
      const before = this.writing.get(project) ?? 0;
      this.alongside.set(before, (this.alongside.get(before) ?? 0) + 1);
      this.writing.set(project, before + 1);
      context.project = project;
    } else context.project = undefined;
  }

  answered(context: Record<string, unknown>, status: number, body: string) {
    const kind = context.kind as string;
    const ms = performance.now() - (context.started as number);
    if (context.project !== undefined) this.writing.set(context.project as string, this.writing.get(context.project as string)! - 1);
    if (status >= 200 && status < 300) {
      let list = this.times.get(kind);
      if (!list) this.times.set(kind, (list = []));
      list.push(ms);
      this.all.push({ kind, ms });
      return;
    }
    const key = `${status} ${context.route as string}`;
    const failure = this.failures.get(key) ?? { count: 0, example: body.slice(0, 300) };
    failure.count++;
    this.failures.set(key, failure);
  }

  lines(result: { errors: number; timeouts: number }): string[] {
    const lines: string[] = [];
    const sorted = [...this.all].sort((a, b) => a.ms - b.ms);
    const slowest = sorted.slice(Math.floor(sorted.length * 0.99));
    const share = new Map<string, number>();
    for (const { kind } of slowest) share.set(kind, (share.get(kind) ?? 0) + 1);
    lines.push(`    answers by kind (ms): ${[...this.times].map(([kind, list]) => {
      list.sort((a, b) => a - b);
      return `${kind} ${list.length} p50 ${at(list, 0.5).toFixed(0)} p99 ${at(list, 0.99).toFixed(0)} max ${list.at(-1)!.toFixed(0)}`;
    }).join('; ')}`);
    lines.push(`    the slowest 1% (${slowest.length}, from ${slowest[0]?.ms.toFixed(0)} ms): ${[...share].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ')}`);
    const writes = [...this.alongside.values()].reduce((a, b) => a + b, 0);
    if (writes > 0) lines.push(`    writes of its project already in flight as a write was sent: ${[...this.alongside].sort((a, b) => a[0] - b[0]).map(([n, count]) => `${n}: ${((100 * count) / writes).toFixed(0)}%`).join(', ')}`);
    for (const [key, { count, example }] of this.failures) lines.push(`    failed ${count}x ${key}: ${example}`);
    if (result.errors > 0) lines.push(`    connection errors or timeouts: ${result.errors} (of which timeouts ${result.timeouts})`);
    return lines;
  }
}
