import type { ChapterText } from '../../src/core/canon/chapters.ts';
import { builder } from '../builder.ts';
import { ChapterName } from './ChapterName.ts';

export const Chapter = builder.objectRef<ChapterText & { projectId: string }>('Chapter').implement({
  description: 'A chapter with its text.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'its id in the manuscript (e.g. ch-07): what as_of, from and until name' }),
    title: t.exposeString('title'),
    ordinal: t.exposeInt('ordinal', { description: 'its place in reading order' }),
    text: t.exposeString('text'),
    names: t.field({
      type: [ChapterName],
      description: 'the names Lore recognises in the text (mentions of entities), in reading order',
      resolve: (chapter, _args, ctx) => ctx.services.overview.chapterNames(chapter.projectId, chapter.id),
    }),
  }),
});
