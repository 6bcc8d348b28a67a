// `npm run bench:import`: manuscripts in, at the sizes issue 17 names, on the embedded default (PGlite) and on
// PostgreSQL. A generated 10-book series as an Obsidian vault (1,000,000 words in 400 chapter notes, 2,000 entity
// notes with aliases, facts and relationships), imported, imported again unchanged, and synced after one chapter is
// edited; and a 150,000-word novel as one Markdown file (40 chapters) into a project that knows 300 entities. Each
// line runs what `lore import` and `lore sync` run: the files read from disk, then the ImportManuscript operation
// through the executor with a key. Wall time and the process's peak resident memory (PGlite runs in this process).
// Targets: series < 30 s, novel < 5 s, one-chapter re-sync < 1 s, memory < 1 GB.
// Env: DATABASE_URL or TEST_DATABASE_URL (the server to create lore_bench_import on), BENCH_KEEP_DB=1 to keep it,
// BENCH_STORES=pglite,postgres to choose.
import { mkdtemp, rm, writeFile, mkdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Executor } from '../../graph/executor.ts';
import { loadConfig } from '../../src/config.ts';
import { readLocalManuscript } from '../../src/core/ingest/manuscripts/localFiles.ts';
import { manuscriptBundle, readManuscript } from '../../src/core/ingest/manuscripts/read.ts';
import type { ManuscriptFormat } from '../../src/core/ingest/manuscripts/manuscript.ts';
import { createLogger } from '../../src/logger.ts';
import { openRuntime, type Runtime } from '../../src/runtime.ts';
import { prng } from '../support/prng.ts';
import { benchDatabase } from './benchDatabase.ts';

const log = (line: string) => process.stdout.write(`${line}\n`);
const size = { books: 10, chaptersPerBook: 40, words: 1_000_000, entities: 2_000, novelWords: 150_000, novelChapters: 40, novelEntities: 300 };

const onsets = ['b', 'br', 'c', 'd', 'dr', 'f', 'g', 'h', 'k', 'l', 'm', 'n', 'p', 'r', 's', 'sh', 't', 'th', 'v', 'w', 'z'];
const vowels = ['a', 'e', 'i', 'o', 'u', 'ae', 'ei', 'ia'];
const codas = ['', 'n', 'r', 's', 'l', 'th', 'x', 'nd', 'rk'];
const surnames = ['Voss', 'Hale', 'Marsh', 'Crane', 'Thorne', 'Ashby', 'Reed', 'Quill', 'Fenwick', 'Morrow', 'Blythe', 'Carrow'];
const common = ('the a and of to in was he she it his her that with as on at for had by from they said not but were ' +
  'sea tide boat harbour night light storm salt rope deck wind door road house old dark long grey cold water stone ' +
  'looked turned waited knew thought walked came went found held heard saw told asked across under over into back').split(' ');
const types = [['character', 1_400], ['location', 300], ['object', 200], ['event', 60], ['rule', 20], ['promise', 20]] as const;

type Entity = { first: string; name: string; type: string; alias2?: string };

/** 2,000 entities with unique first names (their alias), so names and aliases are unique in the project. */
function entities(random: () => number, count: number): Entity[] {
  const seen = new Set<string>();
  const out: Entity[] = [];
  const kinds = types.flatMap(([type, n]) => Array<string>(Math.round((n * count) / 2_000)).fill(type));
  while (out.length < count) {
    const syllables = 2 + Math.floor(random() * 2);
    let first = '';
    for (let s = 0; s < syllables; s++) first += onsets[Math.floor(random() * onsets.length)] + vowels[Math.floor(random() * vowels.length)];
    first = first.charAt(0).toUpperCase() + first.slice(1) + codas[Math.floor(random() * codas.length)];
    if (seen.has(first)) continue;
    seen.add(first);
    const type = kinds[out.length] ?? 'character';
    const name = type === 'character' ? `${first} ${surnames[out.length % surnames.length]}` : `The ${first}`;
    out.push({ first, name, type, alias2: out.length % 3 === 0 ? `${first} the Elder` : undefined });
  }
  return out;
}

/** Prose of `words` words in lines of about 60, naming entities now and then (a few protagonists very often). */
function prose(random: () => number, words: number, cast: Entity[]): string {
  const lines: string[] = [];
  let line: string[] = [];
  for (let w = 0; w < words; w++) {
    const r = random();
    if (r < 0.012) {
      const e = cast[Math.floor(random() ** 3 * cast.length)];
      line.push(random() < 0.5 ? e.name : e.first);
    } else line.push(common[Math.floor(random() * common.length)]);
    if (line.length >= 60) {
      lines.push(`${line.join(' ')}.`);
      line = [];
    }
  }
  if (line.length) lines.push(`${line.join(' ')}.`);
  return lines.join('\n');
}

async function writeSeries(dir: string): Promise<{ editedChapter: string }> {
  const random = prng(17_2026);
  const cast = entities(random, size.entities);
  await mkdir(path.join(dir, '.obsidian'), { recursive: true });
  await writeFile(path.join(dir, '.obsidian/app.json'), '{}');
  for (const [i, e] of cast.entries()) {
    const folder = path.join(dir, e.type === 'character' ? 'Characters' : `${e.type[0].toUpperCase()}${e.type.slice(1)}s`);
    await mkdir(folder, { recursive: true });
    const aliases = [e.first, ...(e.alias2 ? [e.alias2] : [])];
    const related = i > 0 && i % 2 === 0 ? `relationships:\n  knows: "[[${cast[Math.floor(random() * i)].name}]]"\n` : '';
    await writeFile(
      path.join(folder, `${e.name}.md`),
      `---\ntype: ${e.type}\naliases: [${aliases.map((a) => JSON.stringify(a)).join(', ')}]\nfacts:\n  - "${e.first} was born in the year ${1000 + i}."\n${related}---\n# ${e.name}\n\n## Facts\n- ${e.first} keeps a ${common[i % common.length]} ledger.\n`,
    );
  }
  const chapters = size.books * size.chaptersPerBook;
  let edited = '';
  for (let b = 1; b <= size.books; b++) {
    const folder = path.join(dir, 'Chapters', `Book ${b}`);
    await mkdir(folder, { recursive: true });
    for (let c = 1; c <= size.chaptersPerBook; c++) {
      const file = path.join(folder, `Chapter ${c}.md`);
      await writeFile(file, `# Book ${b}, chapter ${c}\n\n${prose(random, size.words / chapters, cast)}\n`);
      if (b === 5 && c === 20) edited = file;
    }
  }
  return { editedChapter: edited };
}

async function writeNovel(file: string) {
  const random = prng(150_000);
  const cast = entities(random, size.novelEntities);
  const chapters = Array.from({ length: size.novelChapters }, (_, i) => `## Chapter ${i + 1}\n\n${prose(random, size.novelWords / size.novelChapters, cast)}\n`);
  await writeFile(file, `# The Novel\n\n${chapters.join('\n')}`);
  return {
    project: { name: 'Bench novel' },
    entities: cast.map((e, i) => ({ key: `e${i}`, type: e.type, name: e.name, aliases: [e.first, ...(e.alias2 ? [e.alias2] : [])] })),
  };
}

/** Runs `work`, sampling the resident memory; wall seconds and the peak in MB. */
async function measure<T>(work: () => Promise<T>): Promise<{ result: T; seconds: number; peakMb: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 25);
  const start = performance.now();
  try {
    const result = await work();
    return { result, seconds: (performance.now() - start) / 1000, peakMb: Math.round(Math.max(peak, process.memoryUsage().rss) / 1048576) };
  } finally {
    clearInterval(timer);
  }
}

type Row = { store: string; step: string; seconds: number; peakMb: number; target: string; detail: string };

async function importPath(executor: Executor, key: string, target: string, format: ManuscriptFormat, variables: Record<string, unknown>) {
  const local = await readLocalManuscript(target, format);
  const outcome = await executor.run(
    'ImportManuscript',
    { ...variables, format, files: local.files.map((f) => ({ path: f.path, content: f.content.toString('utf8') })) },
    { credential: key, requestId: 'bench' },
  );
  if (!outcome.ok) throw new Error(`import failed: ${outcome.error.code} ${outcome.error.message}`);
  return outcome.data.result as { projectId: string; changed: boolean; chapters: { change: string }[]; counts: { importer: Record<string, number> } };
}

async function runStore(store: string, runtime: Runtime, series: string, editedChapter: string, novel: string, novelEntities: unknown): Promise<Row[]> {
  const rows: Row[] = [];
  const { key } = await runtime.services.keys.create({ tier: 'enterprise', customQuota: 1_000_000_000, customRate: 1_000_000 });
  const executor = new Executor(runtime.services);

  const first = await measure(() => importPath(executor, key, series, 'obsidian', { name: `Bench series ${store}` }));
  const c = first.result.counts.importer;
  rows.push({ store, step: 'series: first import', seconds: first.seconds, peakMb: first.peakMb, target: '< 30 s', detail: `${c.chaptersCreated} chapters, ${c.entitiesCreated} entities, ${c.factsCreated} facts, ${c.relationshipsCreated} relationships, ${c.mentionsRecorded} mentions` });
  const projectId = first.result.projectId;

  const again = await measure(() => importPath(executor, key, series, 'obsidian', { projectId, sync: true }));
  rows.push({ store, step: 'series: sync, nothing changed', seconds: again.seconds, peakMb: again.peakMb, target: '', detail: `changed: ${again.result.changed}` });

  const original = await readFile(editedChapter, 'utf8');
  await writeFile(editedChapter, `${original}\nA new last line, written today.\n`);
  try {
    const edited = await measure(() => importPath(executor, key, series, 'obsidian', { projectId, sync: true }));
    rows.push({ store, step: 'series: sync after editing one chapter', seconds: edited.seconds, peakMb: edited.peakMb, target: '< 1 s', detail: `${edited.result.chapters.map((ch) => ch.change).join(', ')}; ${edited.result.counts.importer.mentionsRecorded} mentions recorded` });
    // Where a one-chapter sync spends its time: reading the files, reading the manuscript (parse, bundle), and the
    // bundle importer alone (its transaction: reading the project's rows, comparing, writing the one chapter).
    await writeFile(editedChapter, `${original}\nAnother last line, written later.\n`);
    const read = await measure(() => readLocalManuscript(series, 'obsidian'));
    const parsed = await measure(async () => manuscriptBundle(await readManuscript('obsidian', read.result.files), 'unused'));
    const account = (await runtime.services.prisma.project.findUniqueOrThrow({ where: { id: projectId }, select: { accountId: true } })).accountId;
    const imported = await measure(() => runtime.services.importer.import({ accountId: account, principalKeyId: 'bench', bundle: parsed.result, projectId, mayCreateProject: true }));
    rows.push({ store, step: '(that sync, in parts)', seconds: read.seconds + parsed.seconds + imported.seconds, peakMb: Math.max(read.peakMb, parsed.peakMb, imported.peakMb), target: '', detail: `read files ${read.seconds.toFixed(2)} s, read manuscript and make the bundle ${parsed.seconds.toFixed(2)} s, importer ${imported.seconds.toFixed(2)} s` });
  } finally {
    await writeFile(editedChapter, original);
  }

  const outcome = await executor.run('ImportBundle', { bundle: novelEntities }, { credential: key, requestId: 'bench' });
  if (!outcome.ok) throw new Error(`novel entities: ${outcome.error.message}`);
  const novelProject = (outcome.data.result as { projectId: string }).projectId;
  const novelRun = await measure(() => importPath(executor, key, novel, 'markdown', { projectId: novelProject }));
  rows.push({ store, step: 'novel: first import (150,000 words)', seconds: novelRun.seconds, peakMb: novelRun.peakMb, target: '< 5 s', detail: `${novelRun.result.counts.importer.chaptersCreated} chapters, ${novelRun.result.counts.importer.mentionsRecorded} mentions (300 entities known)` });
  return rows;
}

async function main() {
  const stores = (process.env.BENCH_STORES ?? 'pglite,postgres').split(',');
  const dir = await mkdtemp(path.join(tmpdir(), 'lore-bench-import-'));
  const bench = benchDatabase('lore_bench_import');
  bench.onCleanup(() => rm(dir, { recursive: true, force: true }));
  const rows: Row[] = [];
  try {
    const started = performance.now();
    const series = path.join(dir, 'series');
    const { editedChapter } = await writeSeries(series);
    const novel = path.join(dir, 'novel.md');
    const novelEntities = await writeNovel(novel);
    log(`generated the series and the novel in ${((performance.now() - started) / 1000).toFixed(1)} s (${dir})`);
    const logger = createLogger('warn');
    for (const store of stores) {
      const config =
        store === 'pglite'
          ? loadConfig({ LORE_DATA_DIR: path.join(dir, 'pglite'), LORE_LOG_LEVEL: 'warn' })
          : (await bench.recreate(), loadConfig({ DATABASE_URL: bench.databaseUrl, LORE_LOG_LEVEL: 'warn' }));
      const runtime = await openRuntime(config, logger);
      try {
        rows.push(...(await runStore(store, runtime, series, editedChapter, novel, novelEntities)));
      } finally {
        await runtime.close();
      }
    }
  } finally {
    await bench.cleanup();
  }
  log('');
  log('| store | step | seconds | peak RSS (MB) | target | what |');
  log('|---|---|---|---|---|---|');
  for (const r of rows) log(`| ${r.store} | ${r.step} | ${r.seconds.toFixed(2)} | ${r.peakMb} | ${r.target} | ${r.detail} |`);
}

await main();
