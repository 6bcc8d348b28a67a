// The reader's parse of a chapter's stretches (chapterCheck.ts), kept in this process by their text. It depends on the
// text alone, so a check after a canon change only matches the canon against it; and a chapter written is parsed
// right after the write, off any request (prepareChapter): here when it was written here, and, on PostgreSQL, in every
// gateway when another process wrote it (the CLI, an import, a sync, MCP over stdio: ChapterNotices), so the check
// that follows an edit finds its parse made. A parse is found by the very text it was made of: an edited chapter never
// meets the parse of its old text.
import pg from 'pg';
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
 * character learns there (a change told at line n holds from line n + 1). Blank stretches are left out. chapterCheck's
 * `anchored` asks the same of a chapter in SQL: change both together.
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

/** Whether the parse of this text is kept. */
export const parseIsKept = (text: string): boolean => parses.has(text);

/**
 * The chapters waiting their parse, by row id, oldest first, with their length; a chapter written again waits once, as
 * its latest text. No more text waits than the kept parses hold: past that, the oldest would only push out the newest
 * (an import of a whole book), so it waits no longer and its first check parses it.
 */
const waiting = new Map<string, { projectId: string; chars: number }>();
let waitingChars = 0;
let preparing: Promise<void> = Promise.resolve();
let draining = false;

/**
 * After a chapter's text is written (its transaction committed): its stretches parsed, as the check will read them,
 * one chapter at a time and each after the requests already waiting. A failure costs only this head start: the check
 * parses what it does not find.
 */
export function prepareChapter(prisma: PrismaClient, projectId: string, chapterRowId: string, chars: number): void {
  const earlier = waiting.get(chapterRowId);
  if (earlier) {
    waiting.delete(chapterRowId);
    waitingChars -= earlier.chars;
  }
  waiting.set(chapterRowId, { projectId, chars });
  waitingChars += chars;
  for (const [id, { chars: length }] of waiting) {
    if (waitingChars <= parsedCharsKept || waiting.size === 1) break;
    waiting.delete(id);
    waitingChars -= length;
  }
  if (draining) return;
  draining = true;
  preparing = drain(prisma);
}

async function drain(prisma: PrismaClient): Promise<void> {
  try {
    for (let next = waiting.entries().next(); !next.done; next = waiting.entries().next()) {
      const [id, { projectId, chars }] = next.value;
      waiting.delete(id);
      waitingChars -= chars;
      await new Promise<void>((resolve) => setImmediate(resolve));
      try {
        const chapter = await prisma.chapter.findFirst({ where: { id, projectId }, select: { id: true, text: true } });
        if (!chapter) continue;
        for (const { stretch } of await stretchesOf(prisma, projectId, chapter)) parseKept(stretch);
      } catch {
        // Only the head start is lost.
      }
    }
  } finally {
    draining = false;
  }
}

/** Resolves once every chapter written so far is parsed (or failed to be). */
export const chapterParsesSettled = async (): Promise<void> => {
  while (draining) await preparing;
};

/** The channel the Chapter trigger tells of each chapter whose text is written (the parse26_chapter_written migration). */
const writtenChannel = 'lore_chapter_written';
const reconnectMs = 1_000;

/**
 * Chapters written by other processes, as PostgreSQL tells of them on commit (LISTEN on a connection of its own),
 * parsed ahead like those written here. The text written here is parsed already, and its notice finds that parse kept.
 * A notice missed while the connection is down costs only speed: the check parses what it does not find.
 */
export class ChapterNotices {
  private client?: pg.Client;
  private stopped = true;
  private retry?: NodeJS.Timeout;

  constructor(
    private readonly connectionString: string,
    private readonly prisma: PrismaClient,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.connect();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString });
    let lost = false;
    const reconnect = () => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = undefined;
      void client.end().catch(() => undefined);
      if (!this.stopped) this.retry = setTimeout(() => void this.connect(), reconnectMs);
    };
    client.on('error', reconnect);
    client.on('end', reconnect);
    client.on('notification', ({ payload }) => {
      // "<project id> <chapter row id> <length of its text>"
      const [projectId, chapterRowId, chars] = (payload ?? '').split(' ');
      if (projectId && chapterRowId) prepareChapter(this.prisma, projectId, chapterRowId, Number(chars) || 0);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${writtenChannel}`);
      if (this.stopped) return reconnect();
      this.client = client;
    } catch {
      reconnect();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
