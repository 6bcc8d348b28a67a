// Chapters (extension): list them, read one, put (create or replace) and delete one.
import { z } from 'zod';
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
