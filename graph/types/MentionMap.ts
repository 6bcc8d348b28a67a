import type { MentionMap as Map, MentionMapRow as Row } from '../../src/core/canon/overview.ts';
import { builder } from '../builder.ts';
import { ChapterHeading } from './ChapterHeading.ts';
import { EntityType } from './Entity.ts';

export const MentionMapRow = builder.objectRef<Row>('MentionMapRow').implement({
  description: "An entity's mentions per chapter.",
  fields: (t) => ({
    entityId: t.exposeID('entityId'),
    canonicalName: t.exposeString('name'),
    type: t.expose('type', { type: EntityType }),
    total: t.exposeInt('total', { description: 'mentions in all chapters' }),
    counts: t.exposeIntList('counts', { description: 'mentions in each chapter, in the order of MentionMap.chapters' }),
  }),
});

export const MentionMap = builder.objectRef<Map>('MentionMap').implement({
  description: 'How often entities are mentioned in each chapter: who appears where, and who vanishes for a stretch.',
  fields: (t) => ({
    chapters: t.field({ type: [ChapterHeading], description: 'every chapter, in reading order', resolve: (map) => map.chapters }),
    rows: t.field({ type: [MentionMapRow], description: 'the most mentioned entities first', resolve: (map) => map.rows }),
  }),
});
