// `npm run bench:mentions`: what a name write costs on a whole published novel (Jane Eyre, 38 chapters, 184,000
// words, from the eval set) on the embedded store and on PostgreSQL: a new entity, a new alias, a rename and a delete,
// each through the executor with a key, as REST and MCP run them. The first write after the import also builds
// nothing: the import indexes the chapters' words. Target (issue 28): a new entity's mentions in tens of milliseconds.
// Env: DATABASE_URL or TEST_DATABASE_URL (the server to create lore_bench_mentions on), BENCH_STORES=pglite,postgres.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Executor } from '../../graph/executor.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { openRuntime, type Runtime } from '../../src/runtime.ts';
import { benchDatabase } from './benchDatabase.ts';

const log = (line: string) => process.stdout.write(`${line}\n`);
const novel = new URL('../eval/sets/janeeyre/canon.json', import.meta.url);
// Names the canon does not hold yet; "the red-room" starts with the commonest word of the book.
const newNames = ['Miss Abbot', 'Leah', 'Sophie', 'Mr. Lloyd', 'Miss Scatcherd', 'Rosamond Oliver', 'Hannah', 'Pilot', 'Colonel Dent', 'the red-room', 'Lady Ingram'];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const start = performance.now();
  const result = await work();
  return { result, ms: performance.now() - start };
}

async function runStore(store: string, runtime: Runtime, bundle: { chapters: { text: string }[] }) {
  const { key } = await runtime.services.keys.create({ tier: 'enterprise', customQuota: 1_000_000_000, customRate: 1_000_000 });
  const executor = new Executor(runtime.services);
  const run = async (operation: Parameters<Executor['run']>[0], variables: Record<string, unknown>) => {
    const outcome = await executor.run(operation, variables, { credential: key, requestId: 'bench' });
    if (!outcome.ok) throw new Error(`${operation}: ${outcome.error.code} ${outcome.error.message}`);
    return outcome.data as Record<string, any>;
  };
  const imported = await timed(() => run('ImportBundle', { bundle }));
  const projectId = imported.result.result.projectId as string;
  const created: { id: string; ms: number; mentions: number }[] = [];
  for (const name of newNames) {
    const { result, ms } = await timed(() => run('CreateEntity', { projectId, input: { name, type: 'character' } }));
    created.push({ id: result.entity.id, ms, mentions: await runtime.services.prisma.mention.count({ where: { entityId: result.entity.id } }) });
  }
  const aliases: number[] = [];
  const renames: number[] = [];
  const deletes: number[] = [];
  for (const [i, c] of created.entries()) {
    aliases.push((await timed(() => run('UpdateEntity', { projectId, entityId: c.id, input: { aliases: [`${newNames[i]} the Second`] } }))).ms);
    renames.push((await timed(() => run('UpdateEntity', { projectId, entityId: c.id, input: { name: `${newNames[i]}s` } }))).ms);
  }
  for (const c of created) deletes.push((await timed(() => run('DeleteEntity', { projectId, entityId: c.id }))).ms);
  const words = bundle.chapters.reduce((n, c) => n + (c.text.match(/\S+/g)?.length ?? 0), 0);
  log(`${store}: import of ${bundle.chapters.length} chapters, ${words.toLocaleString('en')} words: ${(imported.ms / 1000).toFixed(2)} s`);
  log(`${store}: new entity, median ${median(created.map((c) => c.ms)).toFixed(1)} ms (${created.map((c) => `${c.ms.toFixed(0)}`).join(' ')}; mentions ${created.map((c) => c.mentions).join(' ')})`);
  log(`${store}: new alias, median ${median(aliases).toFixed(1)} ms; rename, median ${median(renames).toFixed(1)} ms; delete, median ${median(deletes).toFixed(1)} ms`);
}

async function main() {
  const stores = (process.env.BENCH_STORES ?? 'pglite,postgres').split(',');
  const bundle = JSON.parse(await readFile(novel, 'utf8'));
  const dir = await mkdtemp(path.join(tmpdir(), 'lore-bench-mentions-'));
  const bench = benchDatabase('lore_bench_mentions');
  bench.onCleanup(() => rm(dir, { recursive: true, force: true }));
  const logger = createLogger('warn');
  try {
    for (const store of stores) {
      const config =
        store === 'pglite'
          ? loadConfig({ LORE_DATA_DIR: path.join(dir, 'pglite'), LORE_LOG_LEVEL: 'warn' })
          : (await bench.recreate(), loadConfig({ DATABASE_URL: bench.databaseUrl, LORE_LOG_LEVEL: 'warn' }));
      const runtime = await openRuntime(config, logger);
      try {
        await runStore(store, runtime, bundle);
      } finally {
        await runtime.close();
      }
    }
  } finally {
    await bench.cleanup();
  }
}

await main();
