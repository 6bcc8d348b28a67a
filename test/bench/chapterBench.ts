// `npm run bench:chapter`: a stored chapter checked in place (chapterCheck.ts; issue 26: a 5,000-word chapter in under
// 150 ms), on PostgreSQL. Three published novels of the eval sets are imported (their canon and every chapter's text)
// and their chapters of 3,500 to 7,000 words are checked, each as of itself; then the bench's seeded project
// (test/bench/seed.ts: 5,000 entities) with one chapter holding about 5,600 words of its prose, one name in twenty.
// Each round and chapter times the cases a writer meets: the chapter's text just edited through the chapter write
// (which parses it right after, off the writer's request: chapterParses.ts; its CPU is shown apart) and then checked;
// the canon then edited (one entity updated, which raises the canon version but not the names version: the project's
// names stay kept) and the chapter checked again (its parse kept, only the matching runs); and the text edited in the
// database behind the service's back, as another process would, and checked at once (the check parses it, or finds
// it being parsed on the notice of the write: the whole work); and edited so again and checked once the notice of
// the write has had it parsed (chapterParses.ts ChapterNotices: what a check finds a moment after another process wrote).
// Each edit of the text is one never seen before (line breaks appended per round). Figures are per
// 5,000 words (a chapter's time scaled by its length): wall time, and the CPU of this process (PostgreSQL's apart);
// the last line times the kept result answering.
// Env: DATABASE_URL or TEST_DATABASE_URL (the server to create lore_bench_chapter on), BENCH_KEEP_DB=1, BENCH_SEED=0 to
// skip the seeded project, BENCH_ROUNDS (default 3), CHAPTER_PROF=<file>: a CPU profile of the checks that parse
// (text edited behind the service) alone.
import { readFile, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { Executor } from '../../graph/executor.ts';
import { loadConfig } from '../../src/config.ts';
import { loadCanonSlice } from '../../src/core/conflicts/canonSlice.ts';
import { checkChapter } from '../../src/core/conflicts/chapterCheck.ts';
import { chapterParsesSettled, parseIsKept } from '../../src/core/conflicts/chapterParses.ts';
import { findDeterministicConflicts } from '../../src/core/conflicts/deterministic.ts';
import { read } from '../../src/core/conflicts/reader/nlp.ts';
import { sha256 } from '../../src/core/ingest/mentions.ts';
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
    const targets: { projectId: string; chapterId: string; id: string; ordinal: number; label: string; text: string }[] = [];
    for (const book of books) {
      const bundle = JSON.parse(await readFile(new URL(`../eval/sets/${book}/canon.json`, import.meta.url), 'utf8'));
      const imported = await executor.run('ImportBundle', { bundle }, { credential: key, requestId: `bench-${book}` });
      if (!imported.ok) throw new Error(`import of ${book}: ${imported.error.message}`);
      const projectId = (imported.data.result as { projectId: string }).projectId;
      const chapters = await prisma.chapter.findMany({ where: { projectId }, select: { id: true, externalId: true, ordinal: true, text: true }, orderBy: { ordinal: 'asc' } });
      for (const c of chapters) {
        const words = c.text.match(/\S+/g)?.length ?? 0;
        if (words >= 3_500 && words <= 7_000) targets.push({ projectId, chapterId: c.externalId, id: c.id, ordinal: c.ordinal, label: `${book}/${c.externalId}`, text: c.text });
      }
    }
    if (process.env.BENCH_SEED !== '0') {
      const started = Date.now();
      const seeded = await seed(prisma, account);
      const chapters = await prisma.chapter.findMany({ where: { projectId: seeded.projectId }, select: { id: true, externalId: true, ordinal: true, text: true }, orderBy: { ordinal: 'asc' }, take: 3 });
      const joined = chapters.map((c) => c.text).join('\n');
      await prisma.chapter.update({ where: { id: chapters[0].id }, data: { text: joined, contentHash: sha256(joined) } });
      await prisma.$executeRawUnsafe('VACUUM (ANALYZE)');
      log(`seeded 5,000 entities in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      targets.push({ projectId: seeded.projectId, chapterId: chapters[0].externalId, id: chapters[0].id, ordinal: chapters[0].ordinal, label: `seed/${chapters[0].externalId}`, text: joined });
      // A passage check's deterministic part (its canon slice and the core, no model) on the conflict core bench's passage.
      const named = await prisma.entity.findMany({ where: { projectId: seeded.projectId, status: 'approved' }, select: { name: true, type: true }, orderBy: { id: 'asc' } });
      const { text, words } = corePassage(named.filter((e) => e.type === 'character').slice(0, 15).map((e) => e.name), named.filter((e) => e.type === 'location').slice(0, 5).map((e) => e.name));
      const passage: number[] = [];
      for (let i = 0; i < 30; i++) {
        const started = performance.now();
        findDeterministicConflicts(text, await loadCanonSlice(runtime.db, seeded.projectId, text, { ordinal: 40 }), null);
        if (i >= 10) passage.push(performance.now() - started);
      }
      log(`passage check without the model, ${words} words of the seeded project: median ${quantile(passage, 0.5).toFixed(1)} ms, p90 ${quantile(passage, 0.9).toFixed(1)} ms; ${load()}`);
    }

    // A gateway hears of the chapters other processes write.
    runtime.services.chapterNotices?.start();
    type Case = 'edited' | 'canon' | 'unprepared' | 'notified' | 'prepare';
    const perChapter = new Map<string, { words: number; wall: Record<Case, number[]>; cpu: Record<Case, number[]> }>();
    const profiler = process.env.CHAPTER_PROF ? new Session() : undefined;
    if (profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
    }
    const timed = async (t: (typeof targets)[number], expected: Case) => {
      const profiled = profiler && expected === 'unprepared';
      if (profiled) await profiler.post('Profiler.start');
      const cpu = process.cpuUsage();
      const started = performance.now();
      const checked = await checkChapter(runtime.db, t.projectId, t.chapterId);
      const ms = performance.now() - started;
      const used = process.cpuUsage(cpu);
      if (profiled) profiles.push((await profiler.post('Profiler.stop')).profile);
      if (checked.cached) throw new Error(`${t.label} answered from its kept result`);
      const entry = perChapter.get(t.label) ?? { words: checked.words, wall: { edited: [], canon: [], unprepared: [], notified: [], prepare: [] }, cpu: { edited: [], canon: [], unprepared: [], notified: [], prepare: [] } };
      entry.wall[expected].push(ms);
      entry.cpu[expected].push((used.user + used.system) / 1000);
      perChapter.set(t.label, entry);
    };
    const prepared: { label: string; wall: number; cpu: number }[] = [];
    const profiles: object[] = [];
    /** from a write behind the service to its parse made on the notice */
    const heard: number[] = [];
    // Loads the English model on a text of its own, so that no chapter's first check finds its parse kept.
    read('The model is loaded before the first chapter is timed.');
    for (let round = 0; round < rounds; round++) {
      for (const t of targets) {
        const text = t.text + '\n'.repeat(round + 1);
        await runtime.services.chapters.put({ projectId: t.projectId, chapterId: t.chapterId, ordinal: t.ordinal, text });
        // The parse made after the write: the writer's process spends it, the check does not.
        const cpu = process.cpuUsage();
        const started = performance.now();
        await chapterParsesSettled();
        const used = process.cpuUsage(cpu);
        prepared.push({ label: t.label, wall: performance.now() - started, cpu: (used.user + used.system) / 1000 });
        await timed(t, 'edited');
        const [entity] = await prisma.entity.findMany({ where: { projectId: t.projectId }, select: { id: true }, orderBy: { id: 'asc' }, take: 1 });
        await prisma.$executeRaw`UPDATE "Entity" SET "updatedAt" = now() WHERE id = ${entity.id}`;
        await timed(t, 'canon');
        const behind = `${text} `;
        await prisma.chapter.update({ where: { id: t.id }, data: { text: behind, contentHash: sha256(behind) } });
        await timed(t, 'unprepared');
        const notified = `${behind} `;
        await prisma.chapter.update({ where: { id: t.id }, data: { text: notified, contentHash: sha256(notified) } });
        const written = performance.now();
        while (!parseIsKept(notified)) {
          if (performance.now() - written > 30_000) throw new Error(`${t.label}: no parse 30 s after the notice of its write`);
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
        heard.push(performance.now() - written);
        await timed(t, 'notified');
      }
    }
    if (profiler) await writeFile(process.env.CHAPTER_PROF!, JSON.stringify(profiles));
    const per5000 = (label: string, values: number[]) => (quantile(values, 0.5) * 5_000) / perChapter.get(label)!.words;
    for (const [label, { words, wall }] of perChapter) log(`  ${label}: ${words} words, edited ${wall.edited.map((m) => m.toFixed(0)).join(' / ')} ms, canon edited ${wall.canon.map((m) => m.toFixed(0)).join(' / ')} ms, edited unprepared ${wall.unprepared.map((m) => m.toFixed(0)).join(' / ')} ms, after its notice ${wall.notified.map((m) => m.toFixed(0)).join(' / ')} ms`);
    const cases: [Case, string][] = [['edited', 'text just edited (parsed after the write)'], ['canon', 'canon just edited (parse kept)'], ['unprepared', 'text edited behind the service, checked at once (parsed by the check)'], ['notified', 'text edited behind the service, checked once its notice had it parsed']];
    for (const p of prepared) {
      const entry = perChapter.get(p.label)!;
      entry.wall.prepare.push(p.wall);
      entry.cpu.prepare.push(p.cpu);
    }
    cases.push(['prepare', 'the parse after the write (the writer\'s process, off its request)']);
    const bookLabels = [...perChapter.keys()].filter((l) => !l.startsWith('seed/'));
    for (const [c, title] of cases) {
      const wall = bookLabels.map((l) => per5000(l, perChapter.get(l)!.wall[c]));
      const cpu = bookLabels.map((l) => per5000(l, perChapter.get(l)!.cpu[c]));
      log(`chapter check, published novels, ${title} (${bookLabels.length} chapters of 3,500–7,000 words, ${rounds} rounds): wall median ${quantile(wall, 0.5).toFixed(0)} ms, p90 ${quantile(wall, 0.9).toFixed(0)} ms; CPU median ${quantile(cpu, 0.5).toFixed(0)} ms per 5,000 words (target < ${chapterTarget.msPer5000Words} ms); ${load()}`);
    }
    const seedLabel = [...perChapter.keys()].find((l) => l.startsWith('seed/'));
    if (seedLabel) {
      const { words, wall, cpu } = perChapter.get(seedLabel)!;
      for (const [c, title] of cases) {
        log(`chapter check, seeded 5,000-entity project, ${title}: ${words} words, wall median ${quantile(wall[c], 0.5).toFixed(0)} ms (${per5000(seedLabel, wall[c]).toFixed(0)} ms per 5,000 words), CPU ${per5000(seedLabel, cpu[c]).toFixed(0)} ms per 5,000 words; ${load()}`);
      }
    }
    const kept: number[] = [];
    for (const t of targets.slice(0, 10)) {
      // Checked once more first: the canon edits made for the chapters after it left its kept result behind.
      await checkChapter(runtime.db, t.projectId, t.chapterId);
      const started = performance.now();
      const checked = await checkChapter(runtime.db, t.projectId, t.chapterId);
      kept.push(performance.now() - started);
      if (!checked.cached) throw new Error(`${t.label} was not answered from its kept result`);
    }
    log(`a write behind the service to its parse on the notice: median ${quantile(heard, 0.5).toFixed(0)} ms, p90 ${quantile(heard, 0.9).toFixed(0)} ms; ${load()}`);
    log(`chapter check from its kept result: median ${quantile(kept, 0.5).toFixed(1)} ms; ${load()}`);
  } finally {
    await runtime.services.chapterNotices?.stop();
    await runtime.close();
    await bench.cleanup();
  }
}

await main();
