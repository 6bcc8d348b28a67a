// A stored chapter checked in place by the deterministic core: the chapter is read in stretches that end at the line
// of a state change anchored inside it (a death told at line 212 makes the character dead after it, not before), or
// of a fact a character learns there (known_by with a line), each
// stretch as of its first line, and every hit carries the line and the characters of the chapter it quotes. The result
// is kept under the chapter's content hash and the project's canon version, so asking again about the same text and
// canon answers from it.
import { rows, statement } from '../../db/sql.ts';
import { projectNames } from '../names/projectNames.ts';
import { LoreError } from '../errors.ts';
import { firstIndex } from '../sorted.ts';
import { loadCanonSlice, type LostAnchor, type SliceStore } from './canonSlice.ts';
import { storeConflicts, type ConflictHit } from './checker.ts';
import { lineStarts, parseIsKept, parseKept, stretchesOf } from './chapterParses.ts';
import { findDeterministicConflicts } from './deterministic.ts';
import { wordsPerCall, type ConflictDraft } from './kinds.ts';

/** Quota: one call for each 2,000 words of the chapter started (a chapter kept from an earlier check costs one). */
export const chapterCheckCost = (words: number) => Math.max(1, Math.ceil(words / wordsPerCall));

/** A hit with where it stands in the chapter: its line (1-based) and characters (end exclusive), and the words there. */
export type ChapterHit = ConflictHit & { line: number; start: number; end: number; quote: string };
export type ChapterCheck = { chapter: string; words: number; hits: ChapterHit[]; anchorsLost: LostAnchor[]; cached: boolean };

const wordsIn = (text: string) => text.match(/\S+/g)?.length ?? 0;

/** The line (1-based) of the character at `offset`. */
const lineAt = (starts: number[], offset: number) => Math.max(1, firstIndex(starts.length, (i) => starts[i] <= offset));

type ChapterRow = { id: string; externalId: string; ordinal: number; text: string; contentHash: string; checkKey: string | null; checkResult: unknown; canonVersion: string; namesVersion: string; anchored: boolean };

// On the pool, not Prisma: the query compiler spent some 20 ms of CPU on this read of a 5,000-word chapter (measured),
// the driver well under one. `anchored` asks in SQL what stretchesOf's two reads ask (chapterParses.ts): change both
// together.
const chapterRead = statement('chapter_check_read', `
  SELECT c.id, c."externalId", c.ordinal, c.text, c."contentHash", k.key AS "checkKey", k.result AS "checkResult",
    p."canonVersion"::text AS "canonVersion", p."namesVersion"::text AS "namesVersion",
    EXISTS (SELECT 1 FROM "StateValue" s WHERE s."fromChapterId" = c.id AND (s."fromLine" IS NOT NULL OR s."fromAnchor" IS NOT NULL))
      OR EXISTS (SELECT 1 FROM "FactKnower" f WHERE f."fromChapterId" = c.id AND f."fromLine" IS NOT NULL) AS anchored
  FROM "Chapter" c JOIN "Project" p ON p.id = c."projectId" LEFT JOIN "ChapterCheck" k ON k."chapterId" = c.id
  WHERE c."projectId" = $1 AND c."externalId" = $2`);

/**
 * `charge(words)` is called once the chapter is read and before it is checked, unless a kept result answers: the
 * caller's quota for its length.
 */
export async function checkChapter(
  store: SliceStore,
  projectId: string,
  chapterId: string,
  charge: (words: number) => Promise<void> = async () => undefined,
): Promise<ChapterCheck> {
  const { prisma } = store;
  const [chapter] = await rows<ChapterRow>(store.sql, chapterRead, [projectId, chapterId]);
  if (!chapter) throw new LoreError('not_found', `Chapter ${chapterId} not found in project ${projectId}.`);
  const key = (version: bigint | string) => `${chapter.contentHash}:${version}`;
  if (chapter.checkKey === key(chapter.canonVersion)) return { ...(chapter.checkResult as Omit<ChapterCheck, 'cached'>), cached: true };

  const { text } = chapter;
  const words = wordsIn(text);
  const starts = lineStarts(text);
  // Charged beside the reads that place the stretches (reads only) and the parse: nothing is matched against the canon
  // before it is paid.
  const { namesVersion } = chapter;
  const reads = Promise.all([
    charge(words),
    // The project's names, read (when not kept at this version) once for every stretch.
    projectNames(store.sql, projectId, namesVersion),
    // A chapter with nothing anchored inside it is read whole (stretchesOf would answer that after two reads).
    chapter.anchored ? stretchesOf(prisma, projectId, chapter) : text.trim() ? [{ line: 1, from: 0, stretch: text }] : [],
  ]);
  if (!chapter.anchored && text.trim() && !parseIsKept(text)) {
    // The parse depends on the text alone (a chapter written here is parsed after its write, unpaid too): made while
    // the database charges the check and reads the names, so that a chapter no parse was kept for (one written by
    // another process) costs its parse beside those reads rather than after them.
    reads.catch(() => undefined);
    await new Promise<void>((resolve) => setImmediate(resolve));
    parseKept(text);
  }
  const [, , stretches] = await reads;

  const found: { draft: ConflictDraft; start: number; end: number }[] = [];
  const lost = new Map<string, LostAnchor>();
  const touched: Parameters<typeof storeConflicts>[3] = { entities: [], rules: [], promises: [] };
  // Every stretch's slice is read at once (the database works on the next while the core reads the first), each as of
  // its own line.
  const parts = stretches.map((part) => ({ ...part, slice: loadCanonSlice(store, projectId, part.stretch, { ordinal: chapter.ordinal, line: part.line, id: chapter.id, text, namesVersion }) }));
  // A failure surfaces where its slice is awaited, none left unhandled meanwhile.
  for (const part of parts) part.slice.catch(() => undefined);
  for (const { from, stretch, slice: loading } of parts) {
    const slice = await loading;
    for (const a of slice.anchorsLost) lost.set(`${a.entity}|${a.key}|${a.anchor}`, a);
    touched.entities.push(...slice.entities);
    touched.rules.push(...slice.rules);
    touched.promises.push(...slice.promises);
    for (const draft of findDeterministicConflicts(stretch, slice, chapter.externalId, parseKept(stretch))) {
      const at = draft.at ?? { start: 0, end: 0 };
      found.push({ draft, start: from + at.start, end: from + at.end });
    }
  }
  const stored = await storeConflicts(prisma, projectId, found.map((f) => f.draft), touched);
  const hits = stored.map(({ at: _, ...hit }, i) => ({ ...hit, line: lineAt(starts, found[i].start), start: found[i].start, end: found[i].end, quote: text.slice(found[i].start, found[i].end) }));
  const result = { chapter: chapter.externalId, words, hits, anchorsLost: [...lost.values()] };
  // Under the version the stored conflicts leave (storing raises it): a check of the same text and canon finds it.
  const version = stored.length === 0 ? chapter.canonVersion : (await prisma.project.findUniqueOrThrow({ where: { id: projectId }, select: { canonVersion: true } })).canonVersion;
  await prisma.chapterCheck.upsert({
    where: { chapterId: chapter.id },
    create: { chapterId: chapter.id, key: key(version), result },
    update: { key: key(version), result, createdAt: new Date() },
  });
  return { ...result, cached: false };
}
