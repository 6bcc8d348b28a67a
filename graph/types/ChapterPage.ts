import type { ChapterHeading as Heading } from '../../src/core/canon/chapters.ts';
import type { Page } from '../../src/core/canon/canon.ts';
import { builder } from '../builder.ts';
import { ChapterHeading } from './ChapterHeading.ts';

export const ChapterPage = builder.objectRef<Page<Heading>>('ChapterPage').implement({
  fields: (t) => ({
    data: t.field({ type: [ChapterHeading], description: 'in reading order', resolve: (page) => page.data }),
    hasMore: t.exposeBoolean('hasMore'),
    nextStartingAfter: t.exposeString('nextStartingAfter', { nullable: true }),
  }),
});
