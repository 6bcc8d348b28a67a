// Writes alone from one client on two checkouts of Lore, interleaved on one seeded database: each round starts each
// checkout's gateway in turn and times POST fact, PATCH state, POST entity and a rename (p50/p99), with the CPU per write of the
// gateway (and of its main thread: the rest is V8's compiler and GC threads) and of PostgreSQL's backends and the load average. `npx tsx test/bench/writesAB.ts <checkout A> <checkout B>
// [rounds]`; WRITES_PROF=<dir> writes each gateway's CPU profile there; WRITES_WARMUP=<n> sends n facts and n state
// edits untimed before timing each (default 5: V8 compiles the paths over the first thousands), and with a profile leaves a second idle
// before and after each timed kind, so the profile's warm-up is told from the rest by that gap; WRITES_KINDS=fact,state: those kinds only. The database (BENCH_DB, default
// lore_bench_writes_ab) is seeded once and kept; BENCH_DB_B, a copy of it made beforehand (CREATE DATABASE ... TEMPLATE),
// gives B a database of its own, for a B whose migrations A's code should not run on.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import pg from 'pg';
import { gatewayListening, spawnServer, type ServerProcess } from '../support/processes.ts';
import { prng } from '../support/prng.ts';
import { benchDatabase } from './benchDatabase.ts';
import { ensureBuilt } from './builtGateway.ts';
import { prepareWriteProjects, type WriteProjects } from './writes.ts';

process.env.BENCH_KEEP_DB = '1';
const bench = benchDatabase(process.env.BENCH_DB ?? 'lore_bench_writes_ab');
const [checkoutA, checkoutB, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 2);
for (const checkout of [checkoutA, checkoutB]) ensureBuilt(checkout);
const warmup = Number(process.env.WRITES_WARMUP ?? 5);
const kinds = ([['fact', 200], ['state', 200], ['create', 60], ['rename', 60]] as const).filter(([kind]) => !process.env.WRITES_KINDS || process.env.WRITES_KINDS.split(',').includes(kind));
const clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
// A process's CPU (`/proc/<pid>/stat`), or one thread's (`task`: the main thread's id is the process's).
const cpuMs = (pid: number, task?: number) => {
  try {
    const fields = readFileSync(task === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${task}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
  } catch {
    return 0;
  }
};
const saved = `/tmp/${bench.name}.json`;
const benchB = process.env.BENCH_DB_B ? benchDatabase(process.env.BENCH_DB_B) : bench;

async function projects(): Promise<WriteProjects> {
  if (existsSync(saved)) return JSON.parse(readFileSync(saved, 'utf8')) as WriteProjects;
  await bench.recreate();
  const p = await prepareWriteProjects(bench.databaseUrl, console.log, { alone: true });
  writeFileSync(saved, JSON.stringify(p));
  return p;
}

async function backendsCpu(database: typeof bench): Promise<number> {
  const client = new pg.Client({ connectionString: database.serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [database.name]);
    return rows.reduce((sum, r) => sum + cpuMs(r.pid), 0);
  } finally {
    await client.end();
  }
}

let unique = 0;
const fresh = () => `Qz${process.pid.toString(36)}y${(unique++).toString(36)}`;

async function measure(server: ServerProcess, database: typeof bench, p: WriteProjects['large'][number], kind: 'fact' | 'state' | 'create' | 'rename', count: number) {
  const random = prng(7);
  const pick = () => p.entityIds[Math.floor(random() * 300)];
  const request = () =>
    kind === 'fact' ? { method: 'POST', path: `/api/v1/projects/${p.projectId}/facts`, body: JSON.stringify({ entity_id: pick(), text: `bench fact ${fresh()}` }) }
    : kind === 'state' ? { method: 'PATCH', path: `/api/v1/projects/${p.projectId}/entities/${pick()}`, body: JSON.stringify({ state: { bench: unique++ } }) }
    : kind === 'create' ? { method: 'POST', path: `/api/v1/projects/${p.projectId}/entities`, body: JSON.stringify({ type: 'character', name: fresh() }) }
    : { method: 'PATCH', path: `/api/v1/projects/${p.projectId}/entities/${pick()}`, body: JSON.stringify({ name: fresh(), aliases: [] }) };
  const times: number[] = [];
  let gateway = 0;
  let main = 0;
  let backends = 0;
  for (let i = kind === 'fact' || kind === 'state' ? -warmup : -5; i < count; i++) {
    if (i === 0) {
      if (process.env.WRITES_PROF) await new Promise((resolve) => setTimeout(resolve, 1000));
      [gateway, main, backends] = [cpuMs(server.child.pid!), cpuMs(server.child.pid!, server.child.pid!), await backendsCpu(database)];
    }
    const r = request();
    const started = performance.now();
    const res = await fetch(`${server.url}${r.path}`, { method: r.method, body: r.body, headers: { authorization: `Bearer ${p.key}`, 'content-type': 'application/json' } });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${r.method} ${r.path}: ${res.status} ${text}`);
    if (i >= 0) times.push(performance.now() - started);
  }
  if (process.env.WRITES_PROF) await new Promise((resolve) => setTimeout(resolve, 1000));
  const gatewayMs = (cpuMs(server.child.pid!) - gateway) / count;
  const mainMs = (cpuMs(server.child.pid!, server.child.pid!) - main) / count;
  const backendMs = ((await backendsCpu(database)) - backends) / count;
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(times.length * q))];
  return `${kind.padEnd(6)} p50 ${at(0.5).toFixed(1).padStart(5)}  p90 ${at(0.9).toFixed(1).padStart(5)}  p99 ${at(0.99).toFixed(1).padStart(5)} ms   CPU/write gateway ${gatewayMs.toFixed(2)} (main thread ${mainMs.toFixed(2)}) pg ${backendMs.toFixed(2)} ms`;
}

const p = (await projects()).large[0];
try {
  for (let round = 1; round <= rounds; round++) {
    for (const [label, checkout] of [['A', checkoutA], ['B', checkoutB]] as const) {
      const prof = process.env.WRITES_PROF ? ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${process.env.WRITES_PROF}/${label}`] : [];
      const database = label === 'B' ? benchB : bench;
      const server = await spawnServer([...prof, `${checkout}/bin/lore.mjs`, 'serve'], gatewayListening, { NODE_ENV: 'production', DATABASE_URL: database.databaseUrl });
      try {
        const lines = [];
        for (const [kind, count] of kinds) lines.push(await measure(server, database, p, kind, count));
        console.log(`round ${round} ${label} (${checkout}), load ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n  ${lines.join('\n  ')}`);
      } finally {
        await server.stop();
      }
    }
  }
} finally {
  await bench.cleanup();
}
