// Mentions are derived from chapter text and the project's names: these keep them in step after a write, recomputing
// only what the write can have changed (the chapters it wrote, or the entities it renamed).
import { createHash } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { mentionSortKey, type TxClient } from '../canon/canon.ts';
import { newId } from '../../ids.ts';
import { candidateLines, indexChapterWords } from './chapterWords.ts';
import { linesOf, MentionFinder, type Term } from './mentionFinder.ts';
import { chunk, insertRows, rowsPerInsert } from './rows.ts';
import type { Slices } from '../canon/slices.ts';

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
