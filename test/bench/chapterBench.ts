// `npm run bench:chapter`: a stored chapter checked in place (chapterCheck.ts; issue 26: a 5,000-word chapter in under
// 150 ms), on PostgreSQL. Three published novels of the eval sets are imported (their canon and every chapter's text)
// and their chapters of 3,500 to 7,000 words are checked, each as of itself, three rounds; then the bench's seeded
// project (test/bench/seed.ts: 5,000 entities) with one chapter holding about 5,600 words of its prose, one name in
// twenty. Before each check the chapter's kept result is dropped, so every run does the whole work; the last line
// times the kept result answering. Figures are per 5,000 words (a chapter's time scaled by its length).
// Env: DATABASE_URL or TEST_DATABASE_URL (the server to create lore_bench_chapter on), BENCH_KEEP_DB=1, BENCH_SEED=0 to
// skip the seeded project, BENCH_ROUNDS (default 3).
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { Executor } from '../../graph/executor.ts';
import { loadConfig } from '../../src/config.ts';
import { loadCanonSlice } from '../../src/core/conflicts/canonSlice.ts';
import { checkChapter } from '../../src/core/conflicts/chapterCheck.ts';
import { findDeterministicConflicts } from '../../src/core/conflicts/deterministic.ts';
import { createLogger } from '../../src/logger.ts';
import { openRuntime } from '../../src/runtime.ts';
import { benchDatabase } from './benchDatabase.ts';
import { corePassage } from './conflictCore.ts';
import { seed } from './seed.ts';

const log = (line: string) => process.stdout.write(`${line}\n`);
const books = ['janeeyre', 'twocities', 'wuthering'];
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
export const chapterTarget = { msPer5000Words: 150 };

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];
const load = () => `load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`;

async function main() {
  const bench = benchDatabase('lore_bench_chapter');
  await bench.recreate();
  const runtime = await openRuntime(loadConfig({ DATABASE_URL: bench.databaseUrl, LORE_LOG_LEVEL: 'warn' }), createLogger('warn'));
  try {
    const { prisma } = runtime.services;
    const { key, account } = await runtime.services.keys.create({ tier: 'enterprise', customQuota: 1_000_000_000, customRate: 1_000_000 });
    const executor = new Executor(runtime.services);
    const targets: { projectId: string; chapterId: string; id: string; label: string }[] = [];
    for (const book of books) {
      const bundle = JSON.parse(await readFile(new URL(`../eval/sets/${book}/canon.json`, import.meta.url), 'utf8'));
      const imported = await executor.run('ImportBundle', { bundle }, { credential: key, requestId: `bench-${book}` });
      if (!imported.ok) throw new Error(`import of ${book}: ${imported.error.message}`);
      const projectId = (imported.data.result as { projectId: string }).projectId;
      const chapters = await prisma.chapter.findMany({ where: { projectId }, select: { id: true, externalId: true, text: true }, orderBy: { ordinal: 'asc' } });
      for (const c of chapters) {
        const words = c.text.match(/\S+/g)?.length ?? 0;
        if (words >= 3_500 && words <= 7_000) targets.push({ projectId, chapterId: c.externalId, id: c.id, label: `${book}/${c.externalId}` });
      }
    }
    if (process.env.BENCH_SEED !== '0') {
      const started = Date.now();
      const seeded = await seed(prisma, account);
      const chapters = await prisma.chapter.findMany({ where: { projectId: seeded.projectId }, select: { id: true, externalId: true, text: true }, orderBy: { ordinal: 'asc' }, take: 3 });
      await prisma.chapter.update({ where: { id: chapters[0].id }, data: { text: chapters.map((c) => c.text).join('\n') } });
      await prisma.$executeRawUnsafe('VACUUM (ANALYZE)');
      log(`seeded 5,000 entities in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      targets.push({ projectId: seeded.projectId, chapterId: chapters[0].externalId, id: chapters[0].id, label: `seed/${chapters[0].externalId}` });
      // A passage check's deterministic part (its canon slice and the core, no model) on the conflict core bench's passage.
      const named = await prisma.entity.findMany({ where: { projectId: seeded.projectId, status: 'approved' }, select: { name: true, type: true }, orderBy: { id: 'asc' } });
      const { text, words } = corePassage(named.filter((e) => e.type === 'character').slice(0, 15).map((e) => e.name), named.filter((e) => e.type === 'location').slice(0, 5).map((e) => e.name));
      const passage: number[] = [];
      for (let i = 0; i < 30; i++) {
        const started = performance.now();
        findDeterministicConflicts(text, await loadCanonSlice(prisma, seeded.projectId, text, { ordinal: 40 }), null);
        if (i >= 10) passage.push(performance.now() - started);
      }
      log(`passage check without the model, ${words} words of the seeded project: median ${quantile(passage, 0.5).toFixed(1)} ms, p90 ${quantile(passage, 0.9).toFixed(1)} ms; ${load()}`);
    }

    const perChapter = new Map<string, { words: number; ms: number[] }>();
    const uncached = async (t: (typeof targets)[number]) => {
      await prisma.chapterCheck.deleteMany({ where: { chapterId: t.id } });
      const started = performance.now();
      const checked = await checkChapter(prisma, t.projectId, t.chapterId);
      const ms = performance.now() - started;
      if (checked.cached) throw new Error(`${t.label} answered from its kept result`);
      return { ms, words: checked.words };
    };
    await uncached(targets[0]); // loads the English model
    for (let round = 0; round < rounds; round++) {
      for (const t of targets) {
        const { ms, words } = await uncached(t);
        const entry = perChapter.get(t.label) ?? { words, ms: [] };
        entry.ms.push(ms);
        perChapter.set(t.label, entry);
      }
    }
    const scaled = (label: string) => {
      const { words, ms } = perChapter.get(label)!;
      return (quantile(ms, 0.5) * 5_000) / words;
    };
    for (const [label, { words, ms }] of perChapter) log(`  ${label}: ${words} words, ${ms.map((m) => m.toFixed(0)).join(' / ')} ms`);
    const books_ = [...perChapter.keys()].filter((l) => !l.startsWith('seed/')).map(scaled);
    log(`chapter check, published novels (${books_.length} chapters of 3,500–7,000 words, ${rounds} rounds): median ${quantile(books_, 0.5).toFixed(0)} ms, p90 ${quantile(books_, 0.9).toFixed(0)} ms per 5,000 words (target < ${chapterTarget.msPer5000Words} ms); ${load()}`);
    const seedLabel = [...perChapter.keys()].find((l) => l.startsWith('seed/'));
    if (seedLabel) {
      const { words, ms } = perChapter.get(seedLabel)!;
      log(`chapter check, seeded 5,000-entity project: ${words} words, median ${quantile(ms, 0.5).toFixed(0)} ms (${scaled(seedLabel).toFixed(0)} ms per 5,000 words); ${load()}`);
    }
    const kept: number[] = [];
    for (const t of targets.slice(0, 10)) {
      const started = performance.now();
      const checked = await checkChapter(prisma, t.projectId, t.chapterId);
      kept.push(performance.now() - started);
      if (!checked.cached) throw new Error(`${t.label} was not answered from its kept result`);
    }
    log(`chapter check from its kept result: median ${quantile(kept, 0.5).toFixed(1)} ms; ${load()}`);
  } finally {
    await runtime.close();
    await bench.cleanup();
  }
}

await main();
