// The 3-project mix (25% writes, 50 connections) on two checkouts of Lore, interleaved on one database: each round
// starts each checkout's gateway in turn, warms it (every page read once, then the mix), then runs the read-only mix and the mixed
// one, printing the ratio, p50/p99 by kind, CPU per answer of the gateway and of PostgreSQL (BENCH_MIX_STATS=1's lines)
// and the load average. `npx tsx test/bench/mixAB.ts <checkout A> <checkout B> [rounds] [seconds]`. The database
// (BENCH_DB, default lore_bench) is the one `npm run bench -- --part writes` left with BENCH_KEEP_DB=1.
import { loadavg } from 'node:os';
import { gatewayListening, spawnServer } from '../support/processes.ts';
import { benchDatabase } from './benchDatabase.ts';
import { ensureBuilt } from './builtGateway.ts';
import { readCacheStatsFile } from './mixStats.ts';
import { load, mixed, readEveryPage, readOnly, reuseWriteProjects } from './writes.ts';

process.env.BENCH_KEEP_DB = '1';
const bench = benchDatabase(process.env.BENCH_DB ?? 'lore_bench');
const [checkoutA, checkoutB, roundsArg, secondsArg] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 2);
const seconds = Number(secondsArg ?? 5);
for (const checkout of [checkoutA, checkoutB]) ensureBuilt(checkout);
const projects = await reuseWriteProjects(bench.databaseUrl, () => undefined);
if (!projects) throw new Error(`${bench.name} holds no seeded write projects: run the write bench with BENCH_KEEP_DB=1 first`);
const log = (line: string) => console.log(line);
const stats = { databaseUrl: bench.databaseUrl, log };
try {
  for (let round = 1; round <= rounds; round++) {
    for (const [label, checkout] of [['A', checkoutA], ['B', checkoutB]] as const) {
      const server = await spawnServer([`${checkout}/bin/lore.mjs`, 'serve'], gatewayListening, {
        NODE_ENV: 'production', DATABASE_URL: bench.databaseUrl, LORE_READ_CACHE_STATS: readCacheStatsFile,
      });
      try {
        const before = loadavg()[0];
        // Warmed as in the write bench: every page read, then the mix, so the read-only run finds the cache as the mix does.
        await readEveryPage(server, projects.large);
        await load(server, projects.large, mixed, seconds, 50, 11 + round);
        log(`round ${round} ${label} (${checkout}) read-only:`);
        const reads = await load(server, projects.large, readOnly, seconds, 50, 21 + round, stats);
        log(`round ${round} ${label} mixed:`);
        const both = await load(server, projects.large, mixed, seconds, 50, 31 + round, stats);
        log(`round ${round} ${label}: read-only ${reads.rps.toFixed(0)} -> mixed ${both.rps.toFixed(0)} req/s, ratio ${(both.rps / reads.rps).toFixed(2)}, ` +
          `p99 ${reads.p99.toFixed(0)} -> ${both.p99.toFixed(0)} ms, failed ${both.failed}, load ${before.toFixed(1)} -> ${loadavg()[0].toFixed(1)}`);
      } finally {
        await server.stop();
      }
    }
  }
} finally {
  await bench.cleanup();
}
