// Chapters written one at a time: put (create or replace) and delete, keeping what derives from a chapter in step:
// its own mentions (no other chapter's), the latest state when the reading order changes, and the story time of
// facts and state values, which name chapters.
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { newId } from '../../ids.ts';
import { LoreError } from '../errors.ts';
import { recordChapterMentions, sha256 } from '../ingest/mentions.ts';
import type { FieldError } from '../validation.ts';
import { holdProject, type Page, type TxClient } from './canon.ts';
import { recomputeLatestState } from './storyTime.ts';

/** `chapterId`: the chapter's id in the manuscript (Chapter.externalId). `title` absent: kept (empty for a new chapter). */
export type PutChapterInput = { projectId: string; chapterId: string; title?: string; ordinal: number; text: string };
export type ChapterHeading = { id: string; title: string; ordinal: number };
export type PutChapterResult = { chapter: ChapterHeading; created: boolean; mentionsRecorded: number };
export type DeleteChapterResult = { id: string; deleted: true };
export type ChapterText = ChapterHeading & { text: string };

/** How many of the facts and state values in the way an in_use refusal lists. */
const listedUsers = 50;

type SpanUser = {
  what: string;
  fromChapterId: string | null;
  untilChapterId: string | null;
  fromChapter: { externalId: string; ordinal: number } | null;
  untilChapter: { externalId: string; ordinal: number } | null;
};

export class ChapterService {
  /** `written`: told of each chapter put, by row id, once its transaction has committed (the check's parse, made ahead). */
  constructor(
    private readonly prisma: PrismaClient,
    private readonly written: (projectId: string, chapterRowId: string, chars: number) => void = () => undefined,
  ) {}

  async put(input: PutChapterInput): Promise<PutChapterResult> {
    const { result, rowId } = await this.prisma.$transaction(
      async (tx) => {
        await holdProject(tx, input.projectId);
        const current = await tx.chapter.findUnique({
          where: { projectId_externalId: { projectId: input.projectId, externalId: input.chapterId } },
          select: { id: true, title: true, ordinal: true, contentHash: true },
        });
        const holder = await tx.chapter.findUnique({ where: { projectId_ordinal: { projectId: input.projectId, ordinal: input.ordinal } }, select: { externalId: true } });
        if (holder && holder.externalId !== input.chapterId) {
          throw new LoreError('already_exists', `input.ordinal: ordinal ${input.ordinal} is chapter ${holder.externalId}'s; each place in the reading order holds one chapter.`, {
            errors: [{ path: 'input.ordinal', message: `is chapter ${holder.externalId}'s` }],
          });
        }
        const contentHash = sha256(input.text);
        const title = input.title ?? current?.title ?? '';
        let rowId: string;
        if (!current) {
          rowId = newId('chp');
          await tx.chapter.create({ data: { id: rowId, projectId: input.projectId, externalId: input.chapterId, title, ordinal: input.ordinal, text: input.text, contentHash } });
        } else {
          rowId = current.id;
          const reordered = current.ordinal !== input.ordinal;
          if (reordered) await requireSpansKept(tx, input.projectId, current.id, input.ordinal);
          if (reordered || current.title !== title || current.contentHash !== contentHash) {
            await tx.chapter.update({ where: { id: current.id }, data: { title, ordinal: input.ordinal, text: input.text, contentHash } });
          }
          // Which timed value starts last, so which one is the latest state, follows the reading order.
          if (reordered) await recomputeLatestState(tx, await entitiesWithTimedValues(tx, input.projectId));
        }
        const mentionsRecorded = await recordChapterMentions(tx, input.projectId, [rowId]);
        return { rowId, result: { chapter: { id: input.chapterId, title, ordinal: input.ordinal }, created: !current, mentionsRecorded } };
      },
      { timeout: 120_000, maxWait: 30_000 },
    );
    this.written(input.projectId, rowId, input.text.length);
    return result;
  }

  /**
   * Deletes a chapter with its mentions and beats. Refused (409 in_use, listing them) while live facts or state values
   * hold from or until it; retired facts (history) keep their text and lose the reference.
   */
  async delete(projectId: string, chapterId: string): Promise<DeleteChapterResult> {
    return this.prisma.$transaction(async (tx) => {
      await holdProject(tx, projectId);
      const chapter = await tx.chapter.findUnique({ where: { projectId_externalId: { projectId, externalId: chapterId } }, select: { id: true } });
      if (!chapter) throw new LoreError('not_found', `Chapter ${chapterId} not found in project ${projectId}.`);
      const users = await spanUsers(tx, projectId, chapter.id);
      if (users.length > 0) {
        const errors = users.slice(0, listedUsers).map((u) => ({ path: 'chapterId', message: `${u.what} ${describeSpan(u)}` }));
        const more = users.length > listedUsers ? `; and ${users.length - listedUsers} more` : '';
        throw new LoreError('in_use', `Chapter ${chapterId} is the from or until of ${users.length} live fact(s) or state value(s): ${errors.slice(0, 5).map((e) => e.message).join('; ')}${more}. Change or retire them first.`, { errors });
      }
      await tx.fact.updateMany({ where: { projectId, fromChapterId: chapter.id, retiredAt: { not: null } }, data: { fromChapterId: null } });
      await tx.fact.updateMany({ where: { projectId, untilChapterId: chapter.id, retiredAt: { not: null } }, data: { untilChapterId: null } });
      await tx.chapter.delete({ where: { id: chapter.id } });
      return { id: chapterId, deleted: true as const };
    });
  }

  /** The project's chapters in reading order, a page at a time; `startingAfter` is the last chapter id of the previous page. */
  async list(projectId: string, limit: number, startingAfter?: string): Promise<Page<ChapterHeading>> {
    let after: { ordinal: number; id: string } | undefined;
    if (startingAfter) {
      const cursor = await this.prisma.chapter.findUnique({ where: { projectId_externalId: { projectId, externalId: startingAfter } }, select: { ordinal: true, id: true } });
      if (!cursor) throw new LoreError('invalid_cursor', `starting_after ${startingAfter} is not a chapter of this project.`);
      after = cursor;
    }
    const rows = await this.prisma.chapter.findMany({
      where: { projectId, ...(after && { OR: [{ ordinal: { gt: after.ordinal } }, { ordinal: after.ordinal, id: { gt: after.id } }] }) },
      orderBy: [{ ordinal: 'asc' }, { id: 'asc' }],
      take: limit + 1,
      select: { externalId: true, title: true, ordinal: true },
    });
    const page = rows.slice(0, limit).map((r) => ({ id: r.externalId, title: r.title, ordinal: r.ordinal }));
    return { data: page, hasMore: rows.length > limit, nextStartingAfter: rows.length > limit ? page[page.length - 1].id : null };
  }

  async get(projectId: string, chapterId: string): Promise<ChapterText> {
    const row = await this.prisma.chapter.findUnique({
      where: { projectId_externalId: { projectId, externalId: chapterId } },
      select: { externalId: true, title: true, ordinal: true, text: true },
    });
    if (!row) throw new LoreError('not_found', `Chapter ${chapterId} not found in project ${projectId}.`);
    return { id: row.externalId, title: row.title, ordinal: row.ordinal, text: row.text };
  }

  /** The manuscript ids (externalId) of chapter rows, in the order of the ids; null for one that is gone. */
  async externalIds(ids: readonly string[]): Promise<(string | null)[]> {
    const rows = await this.prisma.chapter.findMany({ where: { id: { in: [...ids] } }, select: { id: true, externalId: true } });
    const byId = new Map(rows.map((r) => [r.id, r.externalId]));
    return ids.map((id) => byId.get(id) ?? null);
  }
}

const spanSelect = {
  fromChapterId: true,
  untilChapterId: true,
  fromChapter: { select: { externalId: true, ordinal: true } },
  untilChapter: { select: { externalId: true, ordinal: true } },
} as const;

/** Live facts and state values whose span starts or ends at the chapter row. */
async function spanUsers(tx: TxClient, projectId: string, chapterRowId: string): Promise<SpanUser[]> {
  const at = { projectId, OR: [{ fromChapterId: chapterRowId }, { untilChapterId: chapterRowId }] };
  const facts = await tx.fact.findMany({ where: { ...at, retiredAt: null }, select: { id: true, entityId: true, ...spanSelect }, orderBy: { id: 'asc' } });
  const values = await tx.stateValue.findMany({ where: at, select: { id: true, entityId: true, key: true, ...spanSelect }, orderBy: { id: 'asc' } });
  return [
    ...facts.map((f) => ({ ...f, what: `fact ${f.id} of entity ${f.entityId}` })),
    ...values.map((v) => ({ ...v, what: `state value ${v.key} (${v.id}) of entity ${v.entityId}` })),
  ];
}

const describeSpan = (u: SpanUser) =>
  [u.fromChapter && `holds from ${u.fromChapter.externalId}`, u.untilChapter && `until ${u.untilChapter.externalId}`].filter(Boolean).join(' ');

/** A new ordinal must leave every span that starts or ends at the chapter with its end after its start (409 in_use otherwise). */
async function requireSpansKept(tx: TxClient, projectId: string, chapterRowId: string, ordinal: number): Promise<void> {
  const errors: FieldError[] = [];
  for (const user of await spanUsers(tx, projectId, chapterRowId)) {
    const from = user.fromChapterId === chapterRowId ? ordinal : user.fromChapter?.ordinal;
    const until = user.untilChapterId === chapterRowId ? ordinal : user.untilChapter?.ordinal;
    if (from !== undefined && until !== undefined && until <= from) {
      errors.push({ path: 'input.ordinal', message: `${user.what} ${describeSpan(user)}: ordinal ${ordinal} would put its until before its from` });
    }
  }
  if (errors.length > 0) {
    throw new LoreError('in_use', `input.ordinal: ${errors.length} fact(s) or state value(s) would end before they begin: ${errors.slice(0, 5).map((e) => e.message).join('; ')}`, {
      errors: errors.slice(0, listedUsers),
    });
  }
}

async function entitiesWithTimedValues(tx: TxClient, projectId: string): Promise<string[]> {
  const rows = await tx.stateValue.findMany({ where: { projectId }, distinct: ['entityId'], select: { entityId: true } });
  return rows.map((r) => r.entityId);
}
