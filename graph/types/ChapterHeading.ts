import type { ChapterHeading as Heading } from '../../src/core/canon/chapters.ts';
import { builder } from '../builder.ts';

export const ChapterHeading = builder.objectRef<Heading>('ChapterHeading').implement({
  description: 'A chapter without its text.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'its id in the manuscript (e.g. ch-07)' }),
    title: t.exposeString('title'),
    ordinal: t.exposeInt('ordinal', { description: 'its place in reading order' }),
  }),
});
