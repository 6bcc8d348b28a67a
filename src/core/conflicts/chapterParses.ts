// The reader's parse of a chapter's stretches (chapterCheck.ts), kept in this process by their text. It depends on the
// text alone, so a check after a canon change only matches the canon against it; and a chapter written here is parsed
// right after the write, off its request (prepareChapter), so the check that follows an edit finds its parse made. A
// parse is found by the very text it was made of: an edited chapter never meets the parse of its old text.
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { placePoint } from '../canon/storyPoints.ts';
import { parse, type Parsed } from './deterministic.ts';

/**
 * Most recently used last; up to a million characters of text in all (about 40 MB: a parse holds some 42 bytes per
 * character).
 */
const parses = new Map<string, Parsed>();
const parsedCharsKept = 1_000_000;
let parsedChars = 0;

export function parseKept(text: string): Parsed {
  let parsed = parses.get(text);
  if (parsed) parses.delete(text);
  else {
    parsed = parse(text);
    parsedChars += text.length;
    for (const kept of parses.keys()) {
      if (parsedChars <= parsedCharsKept) break;
      parses.delete(kept);
      parsedChars -= kept.length;
    }
  }
  parses.set(text, parsed);
  return parsed;
}

/** The offset of each line's first character. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** A stretch of a chapter: its first line (1-based), the offset of its first character, and its text. */
export type Stretch = { line: number; from: number; stretch: string };

/**
 * The stretches a chapter is read in: they end at the line of a state change anchored inside it, or of a fact a
 * character learns there (a change told at line n holds from line n + 1). Blank stretches are left out.
 */
export async function stretchesOf(prisma: PrismaClient, projectId: string, chapter: { id: string; text: string }): Promise<Stretch[]> {
  const { text } = chapter;
  const [points, learned] = await Promise.all([
    prisma.stateValue.findMany({
      where: { projectId, fromChapterId: chapter.id, OR: [{ fromLine: { not: null } }, { fromAnchor: { not: null } }] },
      select: { fromLine: true, fromAnchor: true },
    }),
    // A fact learned at a line of the chapter is known after it, as a change told there holds after it.
    prisma.factKnower.findMany({ where: { projectId, fromChapterId: chapter.id, fromLine: { not: null } }, select: { fromLine: true } }),
  ]);
  const starts = lineStarts(text);
  const breaks = [...new Set([...points.map((p) => placePoint(text, p).line), ...learned.map((k) => k.fromLine)].filter((line): line is number => line !== null && line < starts.length).map((line) => line + 1))];
  const lines = [1, ...breaks.sort((a, b) => a - b)];
  return lines
    .map((line, n) => {
      const from = starts[line - 1];
      const to = n + 1 < lines.length ? starts[lines[n + 1] - 1] : text.length;
      return { line, from, stretch: text.slice(from, to) };
    })
    .filter((part) => part.stretch.trim());
}

// The chapters written here wait their parse in one line, each after the writer's response has gone.
let preparing: Promise<void> = Promise.resolve();

/**
 * After a chapter's text is written (its transaction committed): its stretches parsed, as the check will read them.
 * A failure costs only this head start: the check parses what it does not find.
 */
export function prepareChapter(prisma: PrismaClient, projectId: string, chapterRowId: string): void {
  preparing = preparing
    .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
    .then(async () => {
      const chapter = await prisma.chapter.findFirst({ where: { id: chapterRowId, projectId }, select: { id: true, text: true } });
      if (!chapter) return;
      for (const { stretch } of await stretchesOf(prisma, projectId, chapter)) parseKept(stretch);
    })
    .catch(() => undefined);
}

/** Resolves once every chapter written so far is parsed (or failed to be). */
export const chapterParsesSettled = (): Promise<void> => preparing;
