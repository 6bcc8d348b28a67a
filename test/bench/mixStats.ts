// Where a mix's time goes (BENCH_MIX_STATS=1 with `--part writes`): per run, the requests sent by kind, the CPU of the
// gateway and of PostgreSQL's backends per answered request, how the read cache answered each kind of page (the
// gateway's LORE_READ_CACHE_STATS file) and what the database's sessions were doing, sampled every 20 ms
// (pg_stat_activity: active, waiting on which lock or event, idle in a transaction). Off unless asked for.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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

type Counts = Record<string, Record<string, number>>;
const readCounts = (): Counts => {
  try {
    return JSON.parse(readFileSync(readCacheStatsFile, 'utf8')) as Counts;
  } catch {
    return {};
  }
};

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
  // Counts before, after a second for the gateway to write them.
  await new Promise((r) => setTimeout(r, 1_100));
  const countsBefore = readCounts();
  const dbBefore = await backends();
  const appBefore = cpuMs(gatewayPid);
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
      const dbAfter = await backends();
      let dbMs = 0;
      for (const [pid, ms] of dbAfter) dbMs += ms - (dbBefore.get(pid) ?? 0);
      await new Promise((r) => setTimeout(r, 1_100));
      const countsAfter = readCounts();
      await client.end();
      const lines = [
        `    sent: ${Object.entries(sent).map(([k, n]) => `${k} ${n}`).join(', ')}; CPU per answer: gateway ${(appMs / answered).toFixed(2)} ms, PostgreSQL ${(dbMs / answered).toFixed(2)} ms`,
      ];
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
