// `npm run bench -- --store embedded` (or `both`), issue 28: the write part (test/bench/writes.ts) on the embedded
// store, PGlite in a data directory of its own, where every new user starts; with `both`, on PostgreSQL first, on the
// same machine, so that the read-only runs stand side by side. Targets: the embedded read-only throughput within 2x of
// PostgreSQL's, and the embedded mix at least half of its own read-only (writes.ts prints the latter on every line).
// --seed-entities <n> seeds smaller projects (on both stores alike).
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { gatewayListening, spawnServer } from '../support/processes.ts';
import { seedSize, type SeedSize } from './seed.ts';
import { readCacheStatsFile } from './mixStats.ts';
import { benchWrites, prepareWriteProjects, type WriteResults } from './writes.ts';

export type StoreChoice = 'postgres' | 'embedded' | 'both';
type Options = {
  databaseUrl: string;
  /** empties the PostgreSQL bench database */
  recreate: () => Promise<unknown>;
  seedEntities?: number;
  duration: number;
  warmup: number;
  connections: number;
  /** the mixes' rounds of read-only then mixed */
  rounds?: number;
  log: (line: string) => void;
  /** false: the read-only runs and mixes alone, without the writes from one client (--mixes-only) */
  alone?: boolean;
};

const embeddedTarget = { ofPostgres: 0.5, mixedRatio: 0.5 };

/** The bench seed scaled to `entities` (mentions, words and conflicts in the same proportion). */
function scaled(entities: number): SeedSize {
  const f = entities / seedSize.entities;
  return { ...seedSize, entities, mentions: Math.round(seedSize.mentions * f), words: Math.round(seedSize.words * f), conflicts: Math.max(1, Math.round(seedSize.conflicts * f)) };
}

/** A gateway on the store of `dataDir`: it inherits this process's environment, where a DATABASE_URL would win. */
async function spawnEmbedded(dataDir: string) {
  const databaseUrl = process.env.DATABASE_URL;
  delete process.env.DATABASE_URL;
  try {
    return await spawnServer(['bin/lore.mjs', 'serve'], gatewayListening, { NODE_ENV: 'production', LORE_DATA_DIR: dataDir, LORE_READ_CACHE_STATS: readCacheStatsFile });
  } finally {
    if (databaseUrl !== undefined) process.env.DATABASE_URL = databaseUrl;
  }
}

export async function benchStores(store: StoreChoice, o: Options): Promise<void> {
  const largeSize = o.seedEntities ? scaled(o.seedEntities) : seedSize;
  const results: Partial<Record<'postgres' | 'embedded', WriteResults>> = {};
  if (store !== 'embedded') {
    o.log('== PostgreSQL');
    await o.recreate();
    const projects = await prepareWriteProjects(o.databaseUrl, o.log, { largeSize });
    const gateway = await spawnServer(['bin/lore.mjs', 'serve'], gatewayListening, { NODE_ENV: 'production', DATABASE_URL: o.databaseUrl, LORE_READ_CACHE_STATS: readCacheStatsFile });
    try {
      results.postgres = await benchWrites(gateway, projects, o);
    } finally {
      await gateway.stop();
    }
  }
  if (store !== 'postgres') {
    o.log(`== embedded store (PGlite)${o.seedEntities ? `, seeded with ${largeSize.entities} entities a project instead of ${seedSize.entities}` : ''}`);
    const dataDir = await mkdtemp(path.join(tmpdir(), 'lore-bench-'));
    try {
      const projects = await prepareWriteProjects(undefined, o.log, { dataDir, largeSize });
      const gateway = await spawnEmbedded(dataDir);
      try {
        // No server's sessions to sample: BENCH_MIX_STATS=1 read the PostgreSQL at DATABASE_URL instead (or failed, on none).
        results.embedded = await benchWrites(gateway, projects, { ...o, databaseUrl: undefined });
      } finally {
        await gateway.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }
  const { postgres, embedded } = results;
  o.log('');
  if (embedded) {
    for (const [label, r] of [[`3 projects of ${largeSize.entities} entities`, embedded.large], ['200 small projects', embedded.small]] as const) {
      const ratio = r.mixed.rps / r.reads.rps;
      o.log(`embedded, ${label}: read-only ${r.reads.rps.toFixed(0)} req/s, with writes ${r.mixed.rps.toFixed(0)} req/s: ${ratio.toFixed(2)} of its read-only ` +
        `(target >= ${embeddedTarget.mixedRatio}): ${ratio >= embeddedTarget.mixedRatio ? 'met' : 'NOT met'}`);
    }
  }
  if (embedded && !postgres) {
    for (const [label, r] of [[`3 projects of ${largeSize.entities} entities`, embedded.large], ['200 small projects', embedded.small]] as const) {
      o.log(`read-only, ${label}: embedded ${r.reads.rps.toFixed(0)} req/s (p99 ${r.reads.p99} ms) (target >= ${embeddedTarget.ofPostgres} of PostgreSQL's, ` +
        'within 2x: --store both runs PostgreSQL first on the same machine to compare)');
    }
  }
  if (postgres && embedded) {
    for (const [label, pg, em] of [[`3 projects of ${largeSize.entities} entities`, postgres.large, embedded.large], ['200 small projects', postgres.small, embedded.small]] as const) {
      const ratio = em.reads.rps / pg.reads.rps;
      o.log(`read-only, ${label}: PostgreSQL ${pg.reads.rps.toFixed(0)} req/s (p99 ${pg.reads.p99} ms), embedded ${em.reads.rps.toFixed(0)} req/s (p99 ${em.reads.p99} ms): ` +
        `${ratio.toFixed(2)} of PostgreSQL's (target >= ${embeddedTarget.ofPostgres}, within 2x): ${ratio >= embeddedTarget.ofPostgres ? 'met' : 'NOT met'}`);
    }
  }
  o.log(`load average (1 min) ${loadavg()[0].toFixed(1)} after the runs; the targets assume an otherwise idle machine`);
}
