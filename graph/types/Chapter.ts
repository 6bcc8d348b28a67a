import type { ChapterText } from '../../src/core/canon/chapters.ts';
import { builder } from '../builder.ts';

export const Chapter = builder.objectRef<ChapterText>('Chapter').implement({
  description: 'A chapter with its text.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'its id in the manuscript (e.g. ch-07): what as_of, from and until name' }),
    title: t.exposeString('title'),
    ordinal: t.exposeInt('ordinal', { description: 'its place in reading order' }),
    text: t.exposeString('text'),
  }),
});
