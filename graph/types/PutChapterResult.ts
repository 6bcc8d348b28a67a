import type { PutChapterResult as Result } from '../../src/core/canon/chapters.ts';
import { builder } from '../builder.ts';
import { ChapterHeading } from './ChapterHeading.ts';

export const PutChapterResult = builder.objectRef<Result>('PutChapterResult').implement({
  fields: (t) => ({
    chapter: t.field({ type: ChapterHeading, resolve: (r) => r.chapter }),
    created: t.exposeBoolean('created', { description: 'true when the chapter is new, false when it replaced one' }),
    mentionsRecorded: t.exposeInt('mentionsRecorded', { description: "mentions recorded in this chapter (0 when its text, order and the project's names are unchanged)" }),
  }),
});
