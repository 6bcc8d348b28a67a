// Each chapter's words and the lines they stand on (ChapterWordBucket), written once per version of the text, so a name
// write looks its names up rather than reading the book: a name can only stand on a line that holds all of its words,
// and the finder then reads just those lines, so what it records is what a scan of every chapter would. A chapter's
// words are kept in a fixed number of buckets by a hash of the word: a chapter is a few dozen rows to write, and a
// lookup reads only the buckets of the words it asks for.
import { type MentionFinder, wordLines } from './mentionFinder.ts';
import { chunk, insertRows, type RawDb as Db, type Row } from './rows.ts';

// Changing it changes every word's bucket: a migration must then empty Chapter.wordsHash so chapters are indexed again.
const buckets = 64;
// A bucket row holds about 1/64 of a chapter's words with their lines: a few kilobytes.
const bucketsPerInsert = 500;

/** FNV-1a over the word's UTF-16 code units: stable across runtimes, as stored buckets require. */
function bucketOf(word: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % buckets;
}

/** The index rows of one version of a chapter's text. */
export function chapterWordRows(projectId: string, chapterId: string, text: string): Row<'ChapterWordBucket'>[] {
  const byBucket = new Map<number, Record<string, number[]>>();
  for (const [word, lines] of wordLines(text)) {
    const bucket = bucketOf(word);
    const words = byBucket.get(bucket) ?? {};
    words[word] = lines;
    byBucket.set(bucket, words);
  }
  return [...byBucket].map(([bucket, words]) => ({ chapterId, projectId, bucket, words }));
}

/**
 * Indexes the words of these versions of chapters. A chapter is claimed first (its wordsHash set, under its row lock),
 * so two writers indexing one chapter do not both write it, and a chapter whose text changed since `contentHash` is
 * left to the write that changed it.
 */
export async function indexChapterWords(db: Db, projectId: string, chapters: { id: string; contentHash: string; text: string }[]): Promise<void> {
  if (chapters.length === 0) return;
  const claimed = await db.$queryRawUnsafe<{ id: string }[]>(
    `UPDATE "Chapter" c SET "wordsHash" = x.hash FROM jsonb_to_recordset($1::jsonb) AS x(id text, hash text)
      WHERE c.id = x.id AND c."contentHash" = x.hash AND c."wordsHash" <> x.hash RETURNING c.id`,
    JSON.stringify(chapters.map((c) => ({ id: c.id, hash: c.contentHash }))),
  );
  if (claimed.length === 0) return;
  const ids = new Set(claimed.map((c) => c.id));
  await db.$executeRawUnsafe(`DELETE FROM "ChapterWordBucket" WHERE "chapterId" = ANY($1::text[])`, [...ids]);
  const rows = chapters.filter((c) => ids.has(c.id)).flatMap((c) => chapterWordRows(projectId, c.id, c.text));
  for (const part of chunk(rows, bucketsPerInsert)) await insertRows(db, 'ChapterWordBucket', part);
}

/** The words a lookup of the finder's names asks the index for, with their buckets (null: none to ask). */
export function wordsAsked(finder: MentionFinder): { forms: string[][]; json: string | null } {
  const forms = finder.forms().map((words) => [...new Set(words)]);
  const words = [...new Set(forms.flat())];
  return { forms, json: words.length === 0 ? null : JSON.stringify(words.map((word) => ({ word, bucket: bucketOf(word) }))) };
}

/** SQL: the index rows (chapterId, word, lines) of the project `projectParam` for the words of `wordsParam` (wordsAsked's JSON). */
export const wordRowsSql = (projectParam: string, wordsParam: string) => `SELECT b."chapterId", w.word, b.words -> w.word AS lines
       FROM "ChapterWordBucket" b JOIN jsonb_to_recordset(${wordsParam}::jsonb) AS w(word text, bucket int) ON b.bucket = w.bucket
      WHERE b."projectId" = ${projectParam} AND b.words ? w.word`;

/**
 * The lines of the project's chapters where one of the finder's names may stand (every word of one of its forms is on
 * the line), by chapter id, ascending. The chapters must be indexed.
 */
export async function candidateLines(db: Db, projectId: string, finder: MentionFinder): Promise<Map<string, number[]>> {
  const { forms, json } = wordsAsked(finder);
  if (json === null) return new Map();
  return linesOfForms(forms, await db.$queryRawUnsafe<WordRow[]>(wordRowsSql('$1', '$2'), projectId, json));
}

export type WordRow = { chapterId: string; word: string; lines: number[] };

/** candidateLines' answer from the index rows of the words asked (wordsAsked's forms). */
export function linesOfForms(forms: string[][], rows: WordRow[]): Map<string, number[]> {
  const byChapter = new Map<string, Map<string, number[]>>();
  for (const row of rows) {
    const chapter = byChapter.get(row.chapterId) ?? new Map<string, number[]>();
    chapter.set(row.word, row.lines);
    byChapter.set(row.chapterId, chapter);
  }
  const places = new Map<string, number[]>();
  for (const [chapterId, linesOfWord] of byChapter) {
    const found = new Set<number>();
    for (const form of forms) {
      const lists = form.map((word) => linesOfWord.get(word));
      if (lists.some((list) => list === undefined)) continue;
      const [shortest, ...others] = (lists as number[][]).sort((a, b) => a.length - b.length);
      const sets = others.map((list) => new Set(list));
      for (const line of shortest) if (sets.every((set) => set.has(line))) found.add(line);
    }
    if (found.size > 0) places.set(chapterId, [...found].sort((a, b) => a - b));
  }
  return places;
}
