// Mentions are derived from chapter text and the project's names: these keep them in step after a write, recomputing
// only what the write can have changed (the chapters it wrote, or the entities it renamed).
import { createHash, type Hash } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { mentionSortKey, type TxClient } from '../canon/canon.ts';
import { newId } from '../../ids.ts';
import { candidateLines, indexChapterWords, linesOfForms, wordRowsSql, wordsAsked, type WordRow } from './chapterWords.ts';
import { linesOf, MentionFinder, type Term } from './mentionFinder.ts';
import { chunk, insertRows, rawDb, rowsInsert, rowsPerInsert } from './rows.ts';
import { rows, statement, type Literal, type SqlClient, type Statement } from '../../db/sql.ts';
import type { Slices } from '../canon/slices.ts';
import { keepNames, placeOf, projectNames, type Derivation, type NamedEntity } from '../names/projectNames.ts';

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The project's names as mentions are found: `entities` in id order. */
export function termsOf(entities: { id: string; name: string; aliases: string[] }[]): { terms: Term[]; namesHash: string } {
  const terms = entities.flatMap((e) => [e.name, ...e.aliases].map((text) => ({ entityId: e.id, text })));
  return { terms, namesHash: sha256(JSON.stringify(terms)) };
}

async function projectTerms(tx: Pick<TxClient, 'entity'>, projectId: string): Promise<{ terms: Term[]; namesHash: string }> {
  return termsOf(await tx.entity.findMany({ where: { projectId }, select: { id: true, name: true, aliases: true }, orderBy: { id: 'asc' } }));
}

// The ordinal is part of the hash because each mention's sort key (reading order) carries it.
export const mentionHash = (c: { contentHash: string; ordinal: number }, namesHash: string) => sha256(`${c.contentHash}:${c.ordinal}:${namesHash}`);

export function mentionRows(projectId: string, chapterId: string, ordinal: number, found: ReturnType<MentionFinder['find']>) {
  return found.map((m) => {
    const id = newId('men');
    return { id, projectId, entityId: m.entityId, chapterId, line: m.line, column: m.column, snippet: m.snippet, sortKey: mentionSortKey(ordinal, m.line, m.column, id) };
  });
}

async function record(tx: TxClient, projectId: string, chapterId: string, ordinal: number, found: ReturnType<MentionFinder['find']>): Promise<number> {
  const rows = mentionRows(projectId, chapterId, ordinal, found);
  for (const part of chunk(rows, rowsPerInsert)) await insertRows(tx, 'Mention', part);
  return rows.length;
}

/** The project's names, and its chapters (of `chapterIds`, when given) whose mentions they and the text no longer match. */
async function staleChapters(db: Pick<TxClient, 'entity' | 'chapter'>, projectId: string, chapterIds?: string[]) {
  const { terms, namesHash } = await projectTerms(db, projectId);
  const chapters = await db.chapter.findMany({
    where: { projectId, ...(chapterIds ? { id: { in: chapterIds } } : {}) },
    select: { id: true, contentHash: true, mentionHash: true, wordsHash: true, ordinal: true },
  });
  return { terms, namesHash, stale: chapters.filter((c) => c.mentionHash !== mentionHash(c, namesHash)) };
}

/**
 * Re-records the mentions of chapters whose text, ordinal or the project's set of names changed since last time:
 * `chapterIds` limits it to those chapters (a chapter write), otherwise every stale chapter (an import). A new text's
 * words are indexed on the way.
 */
export async function recordChapterMentions(tx: TxClient, projectId: string, chapterIds?: string[]): Promise<number> {
  const { terms, namesHash, stale } = await staleChapters(tx, projectId, chapterIds);
  if (stale.length === 0) return 0;
  const finder = new MentionFinder(terms);
  let recorded = 0;
  for (const c of stale) {
    const { text } = await tx.chapter.findUniqueOrThrow({ where: { id: c.id }, select: { text: true } });
    if (c.wordsHash !== c.contentHash) await indexChapterWords(tx, projectId, [{ ...c, text }]);
    await tx.mention.deleteMany({ where: { chapterId: c.id } });
    recorded += await record(tx, projectId, c.id, c.ordinal, finder.find(text));
    await tx.chapter.update({ where: { id: c.id }, data: { mentionHash: mentionHash(c, namesHash) } });
  }
  return recorded;
}

/**
 * Re-records the mentions of every stale chapter, as recordChapterMentions does, but a chapter to a slice, for a large
 * import: the names are read once and each chapter is searched outside any transaction, so a slice holds the store only
 * for its writes. A chapter rewritten meanwhile is left to the write that rewrote it.
 */
export async function recordStaleMentions(prisma: PrismaClient, projectId: string, slices: Pick<Slices, 'one'>): Promise<number> {
  const { terms, namesHash, stale } = await staleChapters(prisma, projectId);
  if (stale.length === 0) return 0;
  const finder = new MentionFinder(terms);
  let recorded = 0;
  for (const c of stale) {
    const chapter = await prisma.chapter.findUnique({ where: { id: c.id }, select: { text: true } });
    if (!chapter) continue;
    const found = finder.find(chapter.text);
    recorded += await slices.one((db) =>
      db.$transaction(async (tx) => {
        const marked = await tx.chapter.updateMany({
          where: { id: c.id, contentHash: c.contentHash, ordinal: c.ordinal },
          data: { mentionHash: mentionHash(c, namesHash) },
        });
        if (marked.count === 0) return 0;
        if (c.wordsHash !== c.contentHash) await indexChapterWords(tx, projectId, [{ ...c, text: chapter.text }]);
        await tx.mention.deleteMany({ where: { chapterId: c.id } });
        return record(tx, projectId, c.id, c.ordinal, found);
      }),
    );
  }
  return recorded;
}

/**
 * Re-records the mentions of entities whose names or aliases changed, leaving other entities' mentions as they are.
 * Their names are looked up in the chapters' word index (chapters not indexed yet, such as those written before it
 * existed, are indexed first), and only the lines that hold all the words of one of them are read. Chapters that
 * were up to date before stay marked up to date under the new names.
 */
export async function recordEntityMentions(tx: TxClient, projectId: string, entityIds: string[], previousNamesHash: string): Promise<number> {
  if (entityIds.length === 0) return 0;
  const { terms, namesHash } = await projectTerms(tx, projectId);
  const wanted = new Set(entityIds);
  const finder = new MentionFinder(terms.filter((t) => wanted.has(t.entityId)));
  await tx.mention.deleteMany({ where: { projectId, entityId: { in: entityIds } } });
  const chapters = await tx.chapter.findMany({ where: { projectId }, select: { id: true, ordinal: true, contentHash: true, mentionHash: true, wordsHash: true } });
  const unindexed = chapters.filter((c) => c.wordsHash !== c.contentHash);
  if (unindexed.length > 0) {
    const texts = await tx.chapter.findMany({ where: { id: { in: unindexed.map((c) => c.id) } }, select: { id: true, contentHash: true, text: true } });
    await indexChapterWords(tx, projectId, texts);
  }
  const places = await candidateLines(tx, projectId, finder);
  const ordinals = new Map(chapters.map((c) => [c.id, c.ordinal]));
  const texts = places.size === 0 ? [] : await tx.chapter.findMany({ where: { id: { in: [...places.keys()] } }, select: { id: true, text: true } });
  const rows = texts.flatMap((c) => mentionRows(projectId, c.id, ordinals.get(c.id)!, finder.findOnLines(linesOf(c.text), places.get(c.id)!)));
  for (const part of chunk(rows, rowsPerInsert)) await insertRows(tx, 'Mention', part);
  const upToDate = chapters.filter((c) => c.mentionHash === mentionHash(c, previousNamesHash));
  if (upToDate.length > 0) {
    await tx.$executeRawUnsafe(
      `UPDATE "Chapter" c SET "mentionHash" = x.hash FROM jsonb_to_recordset($1::jsonb) AS x(id text, hash text) WHERE c.id = x.id`,
      JSON.stringify(upToDate.map((c) => ({ id: c.id, hash: mentionHash(c, namesHash) }))),
    );
  }
  return rows.length;
}

/** The hash of the project's names now: take it before a rename, for recordEntityMentions. */
export async function currentNamesHash(tx: TxClient, projectId: string): Promise<string> {
  return (await projectTerms(tx, projectId)).namesHash;
}

export type MentionRow = ReturnType<typeof mentionRows>[number];

/**
 * SQL: a digest of the project's chapters as mentions depend on them (which chapters, their order and their texts),
 * over "Chapter" rows aliased `c`, so two reads of it compare.
 */
const chaptersDigest = `md5(COALESCE(string_agg(c.id || ':' || c.ordinal || ':' || c."contentHash", ',' ORDER BY c.id), ''))`;

/** SQL: the digest findEntityMentions answers with, of the project `projectParam`, to compare under the project's lock. */
export const chaptersDigestSql = (projectParam: string) => `(SELECT ${chaptersDigest} FROM "Chapter" c WHERE c."projectId" = ${projectParam})`;

// The digest, the chapters whose words are not indexed yet (none, nearly always) and the index rows of the words asked
// ($2, wordsAsked's JSON; null: none), in one statement: each new entity or rename waited for two round trips in turn.
const mentionLookup = statement('mention_lookup', `
  SELECT (SELECT ${chaptersDigest} FROM "Chapter" c WHERE c."projectId" = $1) AS digest,
    ARRAY(SELECT c.id FROM "Chapter" c WHERE c."projectId" = $1 AND c."wordsHash" IS DISTINCT FROM c."contentHash") AS unindexed,
    (SELECT COALESCE(json_agg(r), '[]') FROM (${wordRowsSql('$1', '$2')}) r) AS words`);

const chapterTexts = statement('mention_chapter_texts', `SELECT id, ordinal, "contentHash", text FROM "Chapter" WHERE id = ANY($1::text[])`);

/**
 * The mentions of `entities` under the names given, found through the word index (chapters not indexed yet are indexed
 * first), as recordEntityMentions finds them. An entity's mentions depend on its own names and on the chapters alone,
 * so this may run before the project's writer lock is taken: what it found stands while the chapters' digest does.
 */
export async function findEntityMentions(sql: SqlClient, projectId: string, entities: NamedEntity[]): Promise<{ digest: string; rows: MentionRow[] }>;
/**
 * With `readOnly`: undefined instead of indexing chapters, whose index is written in several statements that belong in
 * a transaction; so that, outside one, this only reads.
 */
export async function findEntityMentions(sql: SqlClient, projectId: string, entities: NamedEntity[], readOnly: true): Promise<{ digest: string; rows: MentionRow[] } | undefined>;
export async function findEntityMentions(sql: SqlClient, projectId: string, entities: NamedEntity[], readOnly = false): Promise<{ digest: string; rows: MentionRow[] } | undefined> {
  const finder = new MentionFinder(termsOf(entities).terms);
  const { forms, json } = wordsAsked(finder);
  const [{ digest, unindexed, words }] = await rows<{ digest: string; unindexed: string[]; words: WordRow[] }>(sql, mentionLookup, [projectId, json]);
  let places: Map<string, number[]>;
  if (unindexed.length === 0) places = linesOfForms(forms, words);
  else if (readOnly) return undefined;
  else {
    const db = rawDb(sql);
    await indexChapterWords(db, projectId, await rows<{ id: string; contentHash: string; text: string }>(sql, chapterTexts, [unindexed]));
    places = await candidateLines(db, projectId, finder);
  }
  if (places.size === 0) return { digest, rows: [] };
  const texts = await rows<{ id: string; ordinal: number; text: string }>(sql, chapterTexts, [[...places.keys()]]);
  return { digest, rows: texts.flatMap((c) => mentionRows(projectId, c.id, c.ordinal, finder.findOnLines(linesOf(c.text), places.get(c.id)!))) };
}

/**
 * The names hash of a project (termsOf's) before and after one entity gets new names, and the names' version they are
 * of; `written(version)`, once the write has committed at that names version, keeps the names as it left them.
 */
export type NamesChange = { version: string | undefined; previous: string; next: string; written(version: string): void };

// termsOf's JSON text of an entity's names, built as text ('' for an entity without names).
const termsJson = (e: NamedEntity) => [e.name, ...e.aliases].map((text) => `{"entityId":${JSON.stringify(e.id)},"text":${JSON.stringify(text)}}`).join(',');
const side = (part: readonly string[]) => part.filter((text) => text !== '').join(',');

/** How many entities' terms the hash's state is kept after, at each checkpoint of NamesHasher. */
const hasherStride = 256;
type HashState = { hash: Hash; started: boolean };

/**
 * termsOf's hash of a project's names (mentionHash's part): the SHA-256 of its entities' terms JSON in id order, those
 * without names left out. The hash's state is kept every `hasherStride` entities (`started`: some term was hashed), so
 * the hash of the names with one entity's changed hashes only the text from the checkpoint before it on: for a new
 * entity, whose id sorts last, a few hundred entities' terms where it was every one's (on 5,000 entities, a third of
 * a new entity's CPU went to hashing them and building their text).
 */
class NamesHasher {
  constructor(
    /** each entity's terms JSON, in id order */
    readonly json: readonly string[],
    private readonly states: HashState[] = [{ hash: createHash('sha256').update('['), started: false }],
  ) {}

  /** The state after the entities before the `k`th checkpoint (never updated: copied first). */
  private stateAt(k: number): HashState {
    while (this.states.length <= k) {
      const last = this.states.length - 1;
      const { hash, started } = this.states[last];
      const piece = side(this.json.slice(last * hasherStride, (last + 1) * hasherStride));
      this.states.push(piece === '' ? { hash, started } : { hash: hash.copy().update(started ? `,${piece}` : piece), started: true });
    }
    return this.states[k];
  }

  /** The hash of the names with `own` (an entity's terms JSON) in place of the entity at `at` (`present`) or added there. */
  with(at: number, present: boolean, own: string): string {
    const k = Math.floor(at / hasherStride);
    const state = this.stateAt(k);
    const hash = state.hash.copy();
    let started = state.started;
    for (const piece of [side(this.json.slice(k * hasherStride, at)), own, side(this.json.slice(present ? at + 1 : at))]) {
      if (piece === '') continue;
      hash.update(started ? `,${piece}` : piece);
      started = true;
    }
    return hash.update(']').digest('hex');
  }

  /** The hash of the names as they stand. */
  get current(): string {
    const k = Math.floor(this.json.length / hasherStride);
    return this.with(k * hasherStride, false, '');
  }

  /** The hasher of `json`, these names with the entity at `at` changed or added: the checkpoints before it carried over. */
  after(at: number, json: readonly string[]): NamesHasher {
    return new NamesHasher(json, this.states.slice(0, Math.floor(at / hasherStride) + 1));
  }
}

/** The names' hasher, patched from the first entity changed on: its terms JSON made again for the changed ones alone. */
const hasherOf: Derivation<NamesHasher> = {
  build: (entities) => new NamesHasher(entities.map(termsJson)),
  patch: (hasher, { before, after, first, changed }) => {
    const own = new Set(changed.map((c) => c.id));
    const json = hasher.json.slice(0, first);
    // The entities left unchanged stand in the same order before and after: each keeps its JSON.
    let j = first;
    for (let i = first; i < after.length; i++) {
      if (own.has(after[i].id)) {
        json.push(termsJson(after[i]));
        continue;
      }
      while (before[j].id !== after[i].id) j++;
      json.push(hasher.json[j++]);
    }
    return hasher.after(first, json);
  },
};
const noNames = hasherOf.build([]);

/**
 * The project's names hash now and once `entity` has the names given (a new entity, or one renamed), with the version
 * of the project's names (Project.namesVersion) they were read at: while it stands, so do they. `version`: the names
 * version the caller just read (projectNames'): under a writer's locks, the names the writer before it kept in this
 * process answer without another round trip while the lock is held.
 */
export async function namesChange(sql: SqlClient, projectId: string, entity: NamedEntity, version?: string): Promise<NamesChange> {
  const names = await projectNames(sql, projectId, version);
  const hasher = names?.derived(hasherOf) ?? noNames;
  const { at, present } = placeOf(names?.entities ?? [], entity.id);
  const own = termsJson(entity);
  const nextHash = hasher.with(at, present, own);
  return {
    version: names?.version,
    previous: hasher.current,
    next: nextHash,
    written: (next) => {
      // This write raised the version by one; more, and another write changed names too: they are read again.
      if (!names || BigInt(next) !== BigInt(names.version) + 1n) return;
      keepNames(projectId, names.changed(next, [{ id: entity.id, entity: { id: entity.id, name: entity.name, aliases: [...entity.aliases] } }]));
    },
  };
}

// Chapters up to date under the names hash $2 marked up to date under $3 (mentionHash in SQL: ASCII text throughout).
const chapterMentionHash = (namesHash: string) => `encode(sha256(convert_to(c."contentHash" || ':' || c.ordinal || ':' || ${namesHash}, 'UTF8')), 'hex')`;
// Answers the names version the write leaves: its insert or rename of the entity raises it by one as it commits (the
// mixes28_names_at_commit migration), and no other names writer can commit first (the writer's locks).
const namesChangedMark = statement('names_changed_mark', `
  WITH marked AS (
    UPDATE "Chapter" c SET "mentionHash" = ${chapterMentionHash('$3::text')} WHERE c."projectId" = $1 AND c."mentionHash" = ${chapterMentionHash('$2::text')}
  )
  SELECT ("namesVersion" + 1)::text AS version FROM "Project" WHERE id = $1`);

const mentionsOfEntityDelete = statement('mentions_of_entity_delete', `DELETE FROM "Mention" WHERE "entityId" = $1`);

/**
 * Records an entity's mentions found by findEntityMentions in place of its earlier ones (`renamed`), and marks the
 * chapters that were up to date under the project's names before as up to date under the names now, as
 * recordEntityMentions does. Answers the project's names version after the write (for NamesChange.written).
 */
export async function recordFoundMentions(sql: SqlClient, projectId: string, entityId: string, found: MentionRow[], renamed: boolean, names: NamesChange): Promise<string> {
  let version = '';
  for (const write of foundMentionsWrites(projectId, entityId, found, renamed, names)) {
    const answered = await rows<{ version: string }>(sql, write.statement, write.values);
    if (write.statement === namesChangedMark) version = answered[0].version;
  }
  return version;
}

/**
 * recordFoundMentions' statements, for a writer to send in one batch (TransactionSql.batch): the last one answers the
 * names version (one row, `version`).
 */
export function foundMentionsWrites(projectId: string, entityId: string, found: MentionRow[], renamed: boolean, names: NamesChange): { statement: Statement; values: Literal[] }[] {
  return [
    ...(renamed ? [{ statement: mentionsOfEntityDelete, values: [entityId] }] : []),
    ...chunk(found, rowsPerInsert).map((part) => rowsInsert('Mention', part)),
    { statement: namesChangedMark, values: [projectId, names.previous, names.next] },
  ];
}
