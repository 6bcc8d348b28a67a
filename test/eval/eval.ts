// `npm run eval`: the conflict check's evaluation sets. Each set is a canon and passages that each plant known
// conflicts or none: the first (canon.json, passages.json) and every folder of sets/ (canon.json, passages.json), each
// a different story written without looking at the core's answers on it. Every passage is checked twice: by the
// deterministic core alone, and by the whole check through the CheckConflicts operation with a scripted model (a
// loopback stand-in for the OpenAI API, answering what a competent model would; passages without a script answer
// nothing). Prints precision and recall per (kind, entity) pair, per kind and per set, the misses and false positives,
// and the prompt tokens per check; `--large` adds a 5,000-entity project: the prompt tokens there and the bench line of
// the core on a 1,000-word passage naming 20 of its entities.
// A report, not a test: it exits 0 whatever the figures; test/eval/eval.test.ts holds the floors.
// Env: DATABASE_URL to use PostgreSQL (a fresh account and project each run); otherwise an embedded store in a temp dir.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { Executor, type Caller } from '../../graph/executor.ts';
import { loadConfig } from '../../src/config.ts';
import { loadCanonSlice, type SliceStore } from '../../src/core/conflicts/canonSlice.ts';
import { checkChapter } from '../../src/core/conflicts/chapterCheck.ts';
import { readBefore } from '../../src/core/conflicts/chapterBefore.ts';
import type { Trace } from '../../src/core/conflicts/checks/passage.ts';
import { findDeterministicConflicts, parse } from '../../src/core/conflicts/deterministic.ts';
import { conflictKinds } from '../../src/core/conflicts/kinds.ts';
import type { PrismaClient } from '../../src/generated/prisma/client.ts';
import { newId } from '../../src/ids.ts';
import { openRuntime, type Runtime } from '../../src/runtime.ts';
import { corePassage, timeCore } from '../bench/conflictCore.ts';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.ts';
import { prng } from '../support/prng.ts';

type Expected = { kind: string; entity: string };
type ModelHit = { severity: string; kind: string; title: string; rationale: string; refs: string[] };
export type Passage = { id: string; text: string; chapter?: string; line?: number; expected: Expected[]; model?: ModelHit[] };
export type Bundle = { entities: { key: string; facts?: (string | { text: string })[] }[]; chapters?: { id: string; text?: string }[] };
type Hit = { kind: string; title: string; refs: string[] };

export type Tally = { tp: number; fp: number; fn: number };
export type Figures = Tally & { precision: number; recall: number };
export type Finding = { passage: string; pair: string; title?: string };
export type RunFigures = {
  overall: Figures;
  /** restricted to the kinds the deterministic core reports */
  ownKinds: Figures;
  perKind: Record<string, Tally>;
  misses: Finding[];
  falsePositives: Finding[];
  /** hits reporting a planted pair another hit of the same check already reported */
  duplicates: Finding[];
};
export type LargeFigures = {
  entities: number;
  relationships: number;
  seedSeconds: number;
  checks: { named: number; promptTokens: number; rulesAndPromisesTokens: number; slice: { entities: number; facts: number; relationships: number; rules: number; promises: number; beats: number }; ms: number }[];
};
/** Every chapter of a published book checked as of itself by the deterministic core: each hit is a false alarm. */
export type WholeBook = {
  chapters: number;
  words: number;
  alarms: { chapter: string; kind: string; title: string }[];
  perTenThousandWords: number;
  /** the median time of a chapter's check in place, scaled to 5,000 words, and the slowest chapter's */
  msPer5000Words: number;
  slowest: { chapter: string; words: number; ms: number };
};
export type SetFigures = {
  name: string;
  /** passages of a published novel (clean ones verbatim, planted ones minimal edits of real ones), not prose written for the core */
  published: boolean;
  passages: number;
  cleanPassages: number;
  planted: number;
  deterministic: RunFigures;
  whole: RunFigures;
  wholeBook?: WholeBook;
  /** `--why`: the deterministic core's misses counted by the stage where each was lost (stage, then kind) */
  why?: Why;
};
/** Counts of missed planted pairs: stage → kind → count. */
export type Why = Record<string, Record<string, number>>;
export type CoreBench = { words: number; named: number; entities: number; runs: number; medianMs: number; p90Ms: number; promptTokens: number };
export type EvalReport = {
  passages: number;
  cleanPassages: number;
  planted: number;
  sets: SetFigures[];
  deterministic: RunFigures;
  whole: RunFigures;
  promptTokens: { mean: number; max: number; perPassage: Record<string, number> };
  large?: LargeFigures & { core: CoreBench };
};

export const deterministicKinds = ['dead_character_active', 'attribute_contradiction', 'location_conflict', 'relationship_contradiction', 'knowledge_violation'];
const here = path.dirname(fileURLToPath(import.meta.url));
const llm = { provider: 'openai', key: 'eval', model: 'scripted' } as const;

/** Maps the notation of passages.json to the project's real ids, and real ids back to the entity keys they concern. */
class Canon {
  private readonly idOf = new Map<string, string>();
  private readonly keysOf = new Map<string, string[]>();

  static async load(prisma: PrismaClient, projectId: string, bundle: Bundle): Promise<Canon> {
    const canon = new Canon();
    const entities = await prisma.entity.findMany({ where: { projectId }, select: { id: true, key: true } });
    const keyById = new Map(entities.map((e) => [e.id, e.key]));
    for (const e of entities) {
      canon.idOf.set(e.key, e.id);
      canon.keysOf.set(e.id, [e.key]);
    }
    const facts = await prisma.fact.findMany({ where: { projectId }, select: { id: true, entityId: true, text: true } });
    const factId = new Map(facts.map((f) => [`${keyById.get(f.entityId)}\u0000${f.text}`, f.id]));
    for (const e of bundle.entities) {
      (e.facts ?? []).forEach((fact, n) => {
        const id = factId.get(`${e.key}\u0000${typeof fact === 'string' ? fact : fact.text}`)!;
        canon.idOf.set(`${e.key}#${n}`, id);
        canon.keysOf.set(id, [e.key]);
      });
    }
    for (const r of await prisma.relationship.findMany({ where: { projectId } })) {
      const from = keyById.get(r.fromId)!;
      const to = keyById.get(r.toId)!;
      canon.idOf.set(`${from}>${r.kind}>${to}`, r.id);
      canon.keysOf.set(r.id, [from, to]);
    }
    const chapters = await prisma.chapter.findMany({ where: { projectId }, select: { externalId: true, beats: { select: { id: true, position: true } } } });
    for (const c of chapters) for (const b of c.beats) canon.idOf.set(`beat:${c.externalId}#${b.position}`, b.id);
    return canon;
  }

  /** A ref as the scripted model sends it; ids that look real but are not (ent_…, fct_…) pass through, to be dropped. */
  id(ref: string): string {
    const id = this.idOf.get(ref);
    if (id) return id;
    if (/^(ent|fct|rel|bt)_/.test(ref)) return ref;
    throw new Error(`passages.json: unknown ref "${ref}"`);
  }

  /** The entity keys a hit's ref concerns: the entity, a fact's entity, a relationship's two ends. */
  keys(ref: string): string[] {
    return this.keysOf.get(ref) ?? [];
  }
}

const pairOf = (kind: string, entity: string) => `${kind}:${entity}`;

/** Matches hits to planted (kind, entity) pairs: a hit counts for a pair when its kind matches and a ref concerns the entity. */
function score(passage: Passage, hits: Hit[], canon: Canon) {
  const wanted = new Set(passage.expected.map((e) => pairOf(e.kind, e.entity)));
  const found = new Set<string>();
  const wrong = new Map<string, string>();
  const duplicates: { pair: string; title: string }[] = [];
  for (const hit of hits) {
    const concerned = [...new Set(hit.refs.flatMap((ref) => canon.keys(ref)))];
    const matched = concerned.map((key) => pairOf(hit.kind, key)).filter((pair) => wanted.has(pair));
    if (matched.length > 0 && matched.every((pair) => found.has(pair))) duplicates.push({ pair: matched[0], title: hit.title });
    if (matched.length > 0) matched.forEach((pair) => found.add(pair));
    else wrong.set(pairOf(hit.kind, concerned[0] ?? hit.refs[0] ?? '?'), hit.title);
  }
  return {
    duplicates,
    tp: [...found],
    fp: [...wrong].map(([pair, title]) => ({ pair, title })),
    fn: [...wanted].filter((pair) => !found.has(pair)),
  };
}

class Scorer {
  private readonly perKind: Record<string, Tally> = {};
  private readonly misses: Finding[] = [];
  private readonly falsePositives: Finding[] = [];
  private readonly duplicates: Finding[] = [];

  add(passage: Passage, hits: Hit[], canon: Canon): void {
    const { tp, fp, fn, duplicates } = score(passage, hits, canon);
    for (const d of duplicates) this.duplicates.push({ passage: passage.id, ...d });
    const tally = (pair: string) => (this.perKind[pair.split(':')[0]] ??= { tp: 0, fp: 0, fn: 0 });
    for (const pair of tp) tally(pair).tp++;
    for (const f of fp) {
      tally(f.pair).fp++;
      this.falsePositives.push({ passage: passage.id, pair: f.pair, title: f.title });
    }
    for (const pair of fn) {
      tally(pair).fn++;
      this.misses.push({ passage: passage.id, pair });
    }
  }

  figures(): RunFigures {
    const sum = (kinds: string[]) => {
      const t = kinds.reduce((acc, k) => ({ tp: acc.tp + (this.perKind[k]?.tp ?? 0), fp: acc.fp + (this.perKind[k]?.fp ?? 0), fn: acc.fn + (this.perKind[k]?.fn ?? 0) }), { tp: 0, fp: 0, fn: 0 });
      return { ...t, precision: t.tp + t.fp === 0 ? 1 : t.tp / (t.tp + t.fp), recall: t.tp + t.fn === 0 ? 1 : t.tp / (t.tp + t.fn) };
    };
    return {
      overall: sum(Object.keys(this.perKind)),
      ownKinds: sum(deterministicKinds),
      perKind: this.perKind,
      misses: this.misses,
      falsePositives: this.falsePositives,
      duplicates: this.duplicates,
    };
  }
}

/** A logger that keeps the prompt tokens the checker reports per check (the provider's input tokens). */
function tokenLogger() {
  const tokens: number[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        const entry = JSON.parse(line);
        if (entry.msg === 'conflict check') tokens.push(entry.promptTokens);
        else if (entry.level >= 40) process.stderr.write(`${line}\n`);
      }
      done();
    },
  });
  return { logger: pino({ level: 'info', base: undefined }, stream), tokens };
}

/** The prompt tokens of the check just run: the one 'conflict check' line it logged. */
function lastCheckTokens(tokens: number[], before: number): number {
  if (tokens.length !== before + 1) throw new Error('the conflict check did not log its prompt tokens');
  return tokens[before];
}

async function readJson<T>(file: string): Promise<T> {
  return JSON.parse(await readFile(path.join(here, file), 'utf8')) as T;
}

export type EvalSet = { name: string; published: boolean; bundle: Bundle; passages: Passage[] };
type PassagesFile = { published?: boolean; passages: Passage[] };

/** The first set (canon.json, passages.json) and each folder of sets/, in name order. */
export async function loadSets(only?: string[]): Promise<EvalSet[]> {
  const folders = (await readdir(path.join(here, 'sets'), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  const sets: EvalSet[] = [{ name: 'corwen', published: false, bundle: await readJson<Bundle>('canon.json'), passages: (await readJson<PassagesFile>('passages.json')).passages }];
  for (const folder of folders) {
    const file = await readJson<PassagesFile>(path.join('sets', folder, 'passages.json'));
    sets.push({ name: folder, published: file.published === true, bundle: await readJson<Bundle>(path.join('sets', folder, 'canon.json')), passages: file.passages });
  }
  return only?.length ? sets.filter((s) => only.includes(s.name)) : sets;
}

/**
 * `why`: classify each miss of the deterministic core by the stage where it was lost (whyMissed). `given`: sets to run
 * instead of the stored ones (a test's own).
 */
export async function runEvaluation(options: { databaseUrl?: string; large?: boolean; sets?: string[]; why?: boolean; given?: EvalSet[] } = {}): Promise<EvalReport> {
  const sets = options.given ?? (await loadSets(options.sets));
  const fake = await startFakeLlm();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'lore-eval-'));
  const { logger, tokens } = tokenLogger();
  let runtime: Runtime | undefined;
  try {
    const config = loadConfig({
      LORE_DATA_DIR: dataDir,
      ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
      LORE_OPENAI_BASE_URL: fake.url,
      LORE_LLM_TIMEOUT_MS: '30000',
    });
    runtime = await openRuntime(config, logger);
    const { prisma } = runtime.services;
    const executor = new Executor(runtime.services);
    // Enterprise: its rate (6,000 a minute) leaves room for every set's checks in one run.
    const key = await runtime.services.keys.create({ tier: 'enterprise', name: 'eval' });
    const caller = (requestId: string): Caller => ({ requestId, credential: key.key, llm });

    const deterministic = new Scorer();
    const whole = new Scorer();
    const perPassage: Record<string, number> = {};
    const setFigures: SetFigures[] = [];
    for (const set of sets) {
      const imported = await executor.run('ImportBundle', { bundle: set.bundle }, caller(`eval-import-${set.name}`));
      if (!imported.ok) throw new Error(`import of ${set.name} failed: ${imported.error.message}`);
      const projectId = (imported.data.result as { projectId: string }).projectId;
      const canon = await Canon.load(prisma, projectId, set.bundle);
      const setDeterministic = new Scorer();
      const setWhole = new Scorer();
      const why: Why = {};
      for (const passage of set.passages) {
        const chapter = passage.chapter
          ? ((await prisma.chapter.findFirst({ where: { projectId, externalId: passage.chapter }, select: { id: true, ordinal: true, text: true } })) ?? undefined)
          : undefined;
        const position = chapter && { ordinal: chapter.ordinal, ...(passage.line !== undefined && { line: passage.line }) };
        // As the check reads it: a pronoun the passage leaves with no antecedent may take one from the chapter before it.
        const parsed = parse(passage.text);
        const before = chapter ? await readBefore(prisma, projectId, chapter, parsed, passage.line) : undefined;
        const slice = await loadCanonSlice(runtime.db, projectId, passage.text, position, before?.text);
        const trace: Trace | undefined = options.why ? { claims: [], refs: [], openPronouns: [], sentences: [] } : undefined;
        const found = findDeterministicConflicts(passage.text, slice, passage.chapter ?? null, parsed, before, trace);
        if (trace) {
          const focus = changedSentences(passage, trace, set.bundle);
          for (const pair of score(passage, found, canon).fn) {
            const [kind, entity] = pair.split(':');
            if (!deterministicKinds.includes(kind)) continue;
            const stage = whyMissed(trace, kind, canon.id(entity), focus);
            (why[stage] ??= {})[kind] = (why[stage]?.[kind] ?? 0) + 1;
          }
        }
        deterministic.add(passage, found, canon);
        setDeterministic.add(passage, found, canon);

        const script = passage.model ?? [];
        fake.script({ object: { conflicts: script.map((hit) => ({ ...hit, episode: passage.chapter ?? null, refs: hit.refs.map((ref) => canon.id(ref)) })) } });
        const logged = tokens.length;
        const checked = await executor.run('CheckConflicts', { projectId, text: passage.text, chapter: passage.chapter, line: passage.line }, caller(`eval-${passage.id}`));
        if (!checked.ok) throw new Error(`check of ${passage.id} failed: ${checked.error.code} ${checked.error.message}`);
        whole.add(passage, checked.data.conflicts as Hit[], canon);
        setWhole.add(passage, checked.data.conflicts as Hit[], canon);
        perPassage[passage.id] = lastCheckTokens(tokens, logged);
      }
      setFigures.push({
        name: set.name,
        published: set.published,
        passages: set.passages.length,
        cleanPassages: set.passages.filter((p) => p.expected.length === 0).length,
        planted: set.passages.reduce((n, p) => n + p.expected.length, 0),
        deterministic: setDeterministic.figures(),
        whole: setWhole.figures(),
        wholeBook: set.published ? await checkWholeBook(runtime.db, projectId, set.bundle) : undefined,
        ...(options.why && { why }),
      });
    }
    const counts = Object.values(perPassage);
    return {
      passages: setFigures.reduce((n, s) => n + s.passages, 0),
      cleanPassages: setFigures.reduce((n, s) => n + s.cleanPassages, 0),
      planted: setFigures.reduce((n, s) => n + s.planted, 0),
      sets: setFigures,
      deterministic: deterministic.figures(),
      whole: whole.figures(),
      promptTokens: { mean: Math.round(counts.reduce((a, b) => a + b, 0) / counts.length), max: Math.max(...counts), perPassage },
      large: options.large ? await largeProject(runtime, executor, fake, key, tokens) : undefined,
    };
  } finally {
    await runtime?.close();
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const squeeze = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * The sentences that hold the planted change: those of a passage that its chapter's stored text lacks (a planted case
 * is a minimal edit of a real passage); every sentence when the chapter has no text or all of them stand in it.
 */
function changedSentences(passage: Passage, trace: Trace, bundle: Bundle): Set<number> {
  const all = new Set(trace.sentences.map((_, n) => n));
  const chapter = bundle.chapters?.find((c) => c.id === passage.chapter)?.text;
  if (!chapter) return all;
  const book = squeeze(chapter);
  const changed = trace.sentences.flatMap((s, n) => (book.includes(squeeze(passage.text.slice(s.start, s.end))) ? [] : [n]));
  return changed.length > 0 ? new Set(changed) : all;
}

/**
 * The first stage where a missed (kind, entity) pair was lost, from what the core read (its trace) in the sentences
 * holding the change: (a) the entity is referred to there but no claim of the kind was read of it; (b) no reference
 * to the entity there, with a personal pronoun left unresolved or none, the entity named elsewhere in the passage or
 * not at all; (c) a claim of the kind was read there of
 * another entity only; (d) a claim of the entity was compared with the canon and agreed, or the canon held nothing to
 * compare with as of the passage; (e) a guard or frame set it aside (named); (f) the core found it but the hit cites
 * other ids.
 */
export function whyMissed(trace: Trace, kind: string, entity: string, focus: Set<number>): string {
  const claims = trace.claims.filter((c) => c.kind === kind && c.outcome !== 'unread');
  const own = claims.filter((c) => c.entity === entity);
  const there = own.filter((c) => focus.has(c.sentence));
  const mine = there.length > 0 ? there : own;
  const guard = mine.find((c) => !['hit', 'agrees', 'canon lacks'].includes(c.outcome));
  if (guard) return `e guard: ${guard.outcome}`;
  if (mine.some((c) => c.outcome === 'canon lacks')) return 'd value: canon lacks';
  if (mine.some((c) => c.outcome === 'agrees')) return 'd value: agrees';
  if (mine.length > 0) return 'f found, other refs';
  if (claims.some((c) => focus.has(c.sentence))) return 'c other entity';
  const refs = trace.refs.filter((r) => r.entity === entity && focus.has(r.sentence));
  if (refs.length > 0) return refs.every((r) => r.frame !== undefined) ? `e guard: frame: ${refs[0].frame}` : 'a not read';
  // Whether the passage names the entity at all tells a pronoun left short of a named antecedent from one whose
  // antecedent only the chapter before the passage (or nobody) names.
  const named = trace.refs.some((r) => r.entity === entity) ? 'named elsewhere' : 'not in passage';
  return trace.openPronouns.some((n) => focus.has(n)) ? `b holder: pronoun unresolved, ${named}` : `b holder: not referred to, ${named}`;
}

/** Each chapter of the book checked in place, as of itself (chapterCheck.ts): the book is canon, so every hit is a false alarm. */
async function checkWholeBook(store: SliceStore, projectId: string, bundle: Bundle): Promise<WholeBook> {
  const alarms: WholeBook['alarms'] = [];
  let words = 0;
  const chapters = (bundle.chapters ?? []).filter((c) => c.text);
  const timings: { chapter: string; words: number; ms: number }[] = [];
  for (const chapter of chapters) {
    const started = performance.now();
    const checked = await checkChapter(store, projectId, chapter.id);
    timings.push({ chapter: chapter.id, words: checked.words, ms: performance.now() - started });
    words += checked.words;
    for (const hit of checked.hits) alarms.push({ chapter: chapter.id, kind: hit.kind, title: `${hit.title} (line ${hit.line}: "${hit.quote}")` });
  }
  const scaled = timings.map((t) => (t.ms * 5_000) / Math.max(1, t.words)).sort((a, b) => a - b);
  const slowest = timings.reduce((a, b) => (b.ms > a.ms ? b : a), { chapter: '', words: 0, ms: 0 });
  return {
    chapters: chapters.length, words, alarms, perTenThousandWords: words === 0 ? 0 : (alarms.length * 10_000) / words,
    msPer5000Words: scaled[Math.floor(scaled.length / 2)] ?? 0, slowest,
  };
}

const largeRelationships = 20_000;

/**
 * The bench project (test/bench/seed.ts: 5,000 entities with names, aliases and facts) plus 20,000 relationships, and
 * a few passages naming 2 to 5 of its entities: the prompt carries only their slice of the canon.
 */
async function largeProject(runtime: Runtime, executor: Executor, fake: FakeLlm, key: { key: string; account: string }, tokens: number[]): Promise<LargeFigures & { core: CoreBench }> {
  const { prisma } = runtime.services;
  const { seed } = await import('../bench/seed.ts');
  const started = Date.now();
  const { projectId } = await seed(prisma, key.account);
  const entities = await prisma.entity.findMany({ where: { projectId }, select: { id: true, name: true, type: true, status: true }, orderBy: { id: 'asc' } });
  const random = prng(424242);
  const kinds = ['ally_of', 'enemy_of', 'sibling_of', 'owes', 'serves', 'loves', 'rival_of', 'member_of', 'located_in', 'owns'];
  const edges = new Map<string, object>();
  while (edges.size < largeRelationships) {
    const from = entities[Math.floor(random() * entities.length)].id;
    const to = entities[Math.floor(random() * entities.length)].id;
    const kind = kinds[Math.floor(random() * kinds.length)];
    if (from !== to) edges.set(`${from}|${to}|${kind}`, { id: newId('rel'), projectId, fromId: from, toId: to, kind, weight: 1 });
  }
  const rows = [...edges.values()];
  for (let i = 0; i < rows.length; i += 5_000) {
    await prisma.$executeRawUnsafe(
      `INSERT INTO "Relationship" ("id", "projectId", "fromId", "toId", "kind", "weight")
       SELECT "id", "projectId", "fromId", "toId", "kind", "weight" FROM jsonb_to_recordset($1::jsonb)
       AS x("id" text, "projectId" text, "fromId" text, "toId" text, "kind" text, "weight" float8)`,
      JSON.stringify(rows.slice(i, i + 5_000)),
    );
  }
  const seedSeconds = (Date.now() - started) / 1000;

  // Approved entities only: suggested ones are not canon, so the check does not send them.
  const characters = entities.filter((e) => e.type === 'character' && e.status === 'approved');
  const places = entities.filter((e) => e.type === 'location' && e.status === 'approved');
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)];
  const passages = [2, 3, 4, 5, 5].map((n) => {
    const people = new Set<string>();
    while (people.size < n - 1) people.add(pick(characters).name);
    const place = pick(places).name;
    const [first, ...rest] = people;
    return {
      named: n,
      text: `${first} came down to ${place} before the tide. ${rest.map((name) => `${name} was already waiting there.`).join(' ')} Nobody spoke of the debt.`,
    };
  });
  const checks: LargeFigures['checks'] = [];
  for (const [i, passage] of passages.entries()) {
    fake.script({ object: { conflicts: [] } });
    const slice = await loadCanonSlice(runtime.db, projectId, passage.text);
    const t0 = Date.now();
    const logged = tokens.length;
    const checked = await executor.run('CheckConflicts', { projectId, text: passage.text }, { requestId: `eval-large-${i}`, credential: key.key, llm });
    if (!checked.ok) throw new Error(`large check failed: ${checked.error.code} ${checked.error.message}`);
    const rulesAndPromises = { rules: slice.rules.map(({ id, name, facts }) => ({ id, name, facts })), open_promises: slice.promises.map(({ id, name, facts }) => ({ id, name, facts })) };
    checks.push({
      named: passage.named,
      promptTokens: lastCheckTokens(tokens, logged),
      rulesAndPromisesTokens: Math.ceil(JSON.stringify(rulesAndPromises).length / 4),
      ms: Date.now() - t0,
      slice: {
        entities: slice.entities.length,
        facts: [...slice.entities, ...slice.rules, ...slice.promises].reduce((n, e) => n + e.facts.length, 0),
        relationships: slice.relationships.length,
        rules: slice.rules.length,
        promises: slice.promises.length,
        beats: slice.beats.length,
      },
    });
  }
  const core = await coreBench(runtime.db, projectId, executor, fake, key, tokens, characters, places, random);
  return { entities: entities.length, relationships: rows.length, seedSeconds, checks, core };
}

/**
 * The core's bench line: a passage of about 1,000 words naming 20 entities of the large project (15 characters, 5
 * places), read by the deterministic core alone on its slice (the model and the database are not timed); the median of
 * 30 runs after 3 warm-ups (the first loads the English model), and the prompt tokens of one whole check of it.
 */
async function coreBench(
  store: SliceStore,
  projectId: string,
  executor: Executor,
  fake: FakeLlm,
  key: { key: string },
  tokens: number[],
  characters: { name: string }[],
  places: { name: string }[],
  random: () => number,
): Promise<CoreBench> {
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)];
  const people = new Set<string>();
  while (people.size < 15) people.add(pick(characters).name);
  const spots = new Set<string>();
  while (spots.size < 5) spots.add(pick(places).name);
  const { text, words } = corePassage([...people], [...spots]);
  const slice = await loadCanonSlice(store, projectId, text);
  const { medianMs, p90Ms, runs } = await timeCore(text, slice);
  fake.script({ object: { conflicts: [] } });
  const logged = tokens.length;
  const checked = await executor.run('CheckConflicts', { projectId, text }, { requestId: 'eval-core-bench', credential: key.key, llm });
  if (!checked.ok) throw new Error(`core bench check failed: ${checked.error.code} ${checked.error.message}`);
  return {
    words,
    named: slice.entities.length,
    entities: 5_000,
    runs,
    medianMs,
    p90Ms,
    promptTokens: lastCheckTokens(tokens, logged),
  };
}

const pct = (x: number) => x.toFixed(2);

export function formatReport(report: EvalReport): string {
  const lines: string[] = [];
  const row = (label: string, f: Figures) =>
    `  ${label.padEnd(34)} ${pct(f.precision).padStart(9)} ${pct(f.recall).padStart(7)} ${String(f.tp).padStart(4)} ${String(f.fp).padStart(4)} ${String(f.fn).padStart(4)}`;
  lines.push(`Conflict check evaluation: ${report.passages} passages (${report.cleanPassages} clean), ${report.planted} planted (kind, entity) pairs`);
  lines.push('');
  lines.push(`  ${''.padEnd(34)} ${'precision'.padStart(9)} ${'recall'.padStart(7)} ${'tp'.padStart(4)} ${'fp'.padStart(4)} ${'fn'.padStart(4)}`);
  lines.push(row('deterministic core, all kinds', report.deterministic.overall));
  lines.push(row('deterministic core, its own kinds', report.deterministic.ownKinds));
  lines.push(row('whole check (scripted model)', report.whole.overall));
  lines.push(row('whole check, deterministic kinds', report.whole.ownKinds));
  lines.push('');
  lines.push('Deterministic core alone, per kind it decides (all sets):');
  lines.push(`  ${'kind'.padEnd(34)} ${'precision'.padStart(9)} ${'recall'.padStart(7)} ${'tp'.padStart(4)} ${'fp'.padStart(4)} ${'fn'.padStart(4)}`);
  for (const kind of deterministicKinds) {
    const t = report.deterministic.perKind[kind] ?? { tp: 0, fp: 0, fn: 0 };
    lines.push(row(kind, { ...t, precision: t.tp + t.fp === 0 ? 1 : t.tp / (t.tp + t.fp), recall: t.tp + t.fn === 0 ? 1 : t.tp / (t.tp + t.fn) }));
  }
  lines.push('');
  lines.push('Deterministic core alone, its own kinds, per set:');
  lines.push(`  ${'set (passages, clean)'.padEnd(34)} ${'precision'.padStart(9)} ${'recall'.padStart(7)} ${'tp'.padStart(4)} ${'fp'.padStart(4)} ${'fn'.padStart(4)}`);
  for (const set of report.sets) lines.push(row(`${set.name}${set.published ? '*' : ''} (${set.passages}, ${set.cleanPassages})`, set.deterministic.ownKinds));
  const published = report.sets.filter((s) => s.published);
  if (published.length > 0) {
    const t = published.reduce((acc, s) => ({ tp: acc.tp + s.deterministic.ownKinds.tp, fp: acc.fp + s.deterministic.ownKinds.fp, fn: acc.fn + s.deterministic.ownKinds.fn }), { tp: 0, fp: 0, fn: 0 });
    lines.push(row('* published novels, together', { ...t, precision: t.tp + t.fp === 0 ? 1 : t.tp / (t.tp + t.fp), recall: t.tp + t.fn === 0 ? 1 : t.tp / (t.tp + t.fn) }));
    const written = report.sets.filter((s) => !s.published);
    const w = written.reduce((acc, s) => ({ tp: acc.tp + s.deterministic.ownKinds.tp, fp: acc.fp + s.deterministic.ownKinds.fp, fn: acc.fn + s.deterministic.ownKinds.fn }), { tp: 0, fp: 0, fn: 0 });
    lines.push(row('  written for the core, together', { ...w, precision: w.tp + w.fp === 0 ? 1 : w.tp / (w.tp + w.fp), recall: w.tp + w.fn === 0 ? 1 : w.tp / (w.tp + w.fn) }));
    lines.push('');
    lines.push('Whole-book false alarms (every chapter of each published novel checked as of itself by the core):');
    let words = 0;
    let alarms = 0;
    for (const s of published) {
      const b = s.wholeBook!;
      words += b.words;
      alarms += b.alarms.length;
      lines.push(
        `  ${s.name.padEnd(20)} ${String(b.chapters).padStart(4)} chapters ${b.words.toLocaleString('en').padStart(9)} words ${String(b.alarms.length).padStart(4)} alarms ${b.perTenThousandWords.toFixed(2).padStart(6)} per 10,000 words; a chapter in place: median ${b.msPer5000Words.toFixed(0)} ms per 5,000 words, slowest ${b.slowest.chapter} (${b.slowest.words} words) ${b.slowest.ms.toFixed(0)} ms`,
      );
      for (const a of b.alarms) lines.push(`      ${a.chapter.padEnd(8)} ${a.kind.padEnd(28)} ${a.title}`);
    }
    lines.push(`  ${'all'.padEnd(20)} ${''.padStart(13)} ${words.toLocaleString('en').padStart(9)} words ${String(alarms).padStart(4)} alarms ${(words === 0 ? 0 : (alarms * 10_000) / words).toFixed(2).padStart(6)} per 10,000 words`);
  }
  lines.push('');
  lines.push(`  ${'kind'.padEnd(28)} ${'planted'.padStart(7)}   ${'deterministic tp/fp/fn'.padStart(22)}   ${'whole tp/fp/fn'.padStart(14)}`);
  const kinds = [...new Set([...conflictKinds, ...Object.keys(report.whole.perKind), ...Object.keys(report.deterministic.perKind)])];
  for (const kind of kinds) {
    const d = report.deterministic.perKind[kind] ?? { tp: 0, fp: 0, fn: 0 };
    const w = report.whole.perKind[kind] ?? { tp: 0, fp: 0, fn: 0 };
    const planted = d.tp + d.fn;
    if (planted + d.fp + w.fp === 0) continue;
    lines.push(`  ${kind.padEnd(28)} ${String(planted).padStart(7)}   ${`${d.tp}/${d.fp}/${d.fn}`.padStart(22)}   ${`${w.tp}/${w.fp}/${w.fn}`.padStart(14)}`);
  }
  const list = (title: string, findings: Finding[]) => {
    lines.push('');
    lines.push(`${title}: ${findings.length === 0 ? 'none' : ''}`);
    for (const f of findings) lines.push(`  ${f.passage.padEnd(30)} ${f.pair}${f.title ? `  ("${f.title}")` : ''}`);
  };
  list('Deterministic core misses (own kinds)', report.deterministic.misses.filter((m) => deterministicKinds.includes(m.pair.split(':')[0])));
  list('Deterministic core false positives', report.deterministic.falsePositives);
  list('Whole check misses', report.whole.misses);
  list('Whole check false positives', report.whole.falsePositives);
  list('Whole check duplicate hits (one conflict reported twice)', report.whole.duplicates);
  const withWhy = report.sets.filter((s) => s.why);
  if (withWhy.length > 0) {
    lines.push('');
    lines.push("Deterministic core misses by the stage where they were lost (--why; counts only):");
    const short: Record<string, string> = { dead_character_active: 'dead', attribute_contradiction: 'attr', location_conflict: 'place', relationship_contradiction: 'kin', knowledge_violation: 'know' };
    const table = (label: string, why: Why) => {
      lines.push(`  ${label}`);
      lines.push(`    ${'stage'.padEnd(56)} ${deterministicKinds.map((k) => short[k].padStart(6)).join(' ')} ${'all'.padStart(6)}`);
      for (const stage of Object.keys(why).sort()) {
        const counts = deterministicKinds.map((k) => why[stage][k] ?? 0);
        lines.push(`    ${stage.slice(0, 56).padEnd(56)} ${counts.map((n) => String(n).padStart(6)).join(' ')} ${String(counts.reduce((a, b) => a + b, 0)).padStart(6)}`);
      }
    };
    const total: Why = {};
    for (const s of withWhy) {
      table(s.name, s.why!);
      for (const [stage, kinds] of Object.entries(s.why!)) for (const [k, n] of Object.entries(kinds)) (total[stage] ??= {})[k] = (total[stage][k] ?? 0) + n;
    }
    table('all sets run', total);
  }
  lines.push('');
  lines.push(`Prompt tokens per check (provider-reported input tokens): mean ${report.promptTokens.mean}, max ${report.promptTokens.max} over ${report.passages} checks`);
  if (report.large) {
    const l = report.large;
    lines.push('');
    lines.push(`Large project: ${l.entities} entities, ${l.relationships} relationships (seeded in ${l.seedSeconds.toFixed(1)} s)`);
    lines.push(`  ${'named'.padStart(5)} ${'prompt tokens'.padStart(13)} ${'of which rules+promises'.padStart(23)} ${'ms'.padStart(6)}   slice: entities / facts / relationships / rules / promises / beats`);
    for (const c of l.checks) {
      const s = c.slice;
      lines.push(
        `  ${String(c.named).padStart(5)} ${String(c.promptTokens).padStart(13)} ${`~${c.rulesAndPromisesTokens}`.padStart(23)} ${String(c.ms).padStart(6)}          ${[s.entities, s.facts, s.relationships, s.rules, s.promises, s.beats].join(' / ')}`,
      );
    }
    const c = l.core;
    lines.push('');
    lines.push(
      `Core bench: ${c.words} words naming ${c.named} entities of a ${c.entities.toLocaleString('en')}-entity project: median ${c.medianMs.toFixed(1)} ms, p90 ${c.p90Ms.toFixed(1)} ms over ${c.runs} runs; the whole check's prompt ${c.promptTokens} tokens`,
    );
  }
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // `--set name` (repeatable) runs only those sets; `--why` adds the table of the core's misses by stage.
  const only = process.argv.flatMap((arg, i) => (arg === '--set' && process.argv[i + 1] ? [process.argv[i + 1]] : []));
  const report = await runEvaluation({ databaseUrl: process.env.DATABASE_URL, large: process.argv.includes('--large'), sets: only, why: process.argv.includes('--why') });
  process.stdout.write(`${formatReport(report)}\n`);
}
