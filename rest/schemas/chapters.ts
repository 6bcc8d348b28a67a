// Chapters (extension): list them, read one, put (create or replace) and delete one.
import { z } from 'zod';
import { conflictKinds, severities } from '../../src/core/conflicts/kinds.ts';
import { chapterOrdinal, chapterRef, chapterText, chapterTitle, maxChapterOrdinal } from '../../src/core/validation.ts';
import { pageQuery, projectPath } from '../schemas.ts';

export const chapterPath = projectPath.extend({ chapterId: chapterRef.meta({ description: 'the chapter id in the manuscript, e.g. ch-07' }) });

export const putChapterBody = z
  .object({
    title: chapterTitle.optional().meta({ description: 'at most 300 characters; absent keeps the current title (empty for a new chapter)' }),
    ordinal: chapterOrdinal.meta({ description: `its place in reading order, 0..${maxChapterOrdinal}` }),
    text: chapterText.meta({ description: 'the whole chapter text' }),
  })
  .meta({ id: 'PutChapterRequest' });

export const PutChapterResult = z
  .object({
    chapter: z.object({ id: z.string(), title: z.string(), ordinal: z.number().int() }),
    created: z.boolean().meta({ description: 'true when the chapter is new (201), false when it replaced one (200)' }),
    mentions_recorded: z.number().int().meta({ description: "mentions recorded in this chapter (0 when its text, order and the project's names are unchanged)" }),
  })
  .meta({ id: 'PutChapterResult' });

const ChapterHit = z
  .object({
    id: z.string().meta({ description: 'the pending conflict' }),
    severity: z.enum(severities),
    kind: z.enum(conflictKinds),
    title: z.string(),
    rationale: z.string(),
    refs: z.array(z.string()),
    line: z.number().int().meta({ description: 'the line of the chapter (1-based) the quoted words begin on' }),
    start: z.number().int().meta({ description: "the offset in the chapter's text of the quoted words' first character" }),
    end: z.number().int().meta({ description: 'the offset just past their last character' }),
    quote: z.string().meta({ description: 'the words of the chapter the hit stands on' }),
  })
  .meta({ id: 'ChapterHit' });
export const ChapterCheckResult = z
  .object({
    chapter: z.string(),
    words: z.number().int(),
    cached: z.boolean().meta({ description: 'answered from the last check of the same text and canon version' }),
    hits: z.array(ChapterHit),
    anchors_lost: z
      .array(z.object({ entity: z.string(), key: z.string(), anchor: z.string(), line: z.number().int().nullable() }))
      .meta({ description: 'state changes anchored in the chapter by a phrase no longer in its text: placed at the line they were given, or the chapter start' }),
  })
  .meta({ id: 'ChapterCheckResult' });

export const DeletedChapter = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'DeletedChapter' });

export const chaptersQueryParams = z.object({
  limit: pageQuery.limit,
  starting_after: chapterRef.optional().meta({ description: 'cursor: the last chapter id of the previous page; an id that is not a chapter of this project is 400 invalid_cursor' }),
});

const ChapterHeading = z.object({
  id: z.string().meta({ description: 'the chapter id in the manuscript: what as_of, from and until name' }),
  title: z.string(),
  ordinal: z.number().int().meta({ description: 'its place in reading order' }),
});

export const ChapterList = z
  .object({ data: z.array(ChapterHeading), has_more: z.boolean(), next_starting_after: z.string().optional() })
  .meta({ id: 'ChapterList' });

export const Chapter = ChapterHeading.extend({ text: z.string() }).meta({ id: 'Chapter' });
