import type { TimelineEntry as Entry, TimelinePage as Page } from '../../src/core/timeline/timeline.ts';
import { builder } from '../builder.ts';

const Beat = builder.objectRef<Entry['beats'][number]>('Beat').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    summary: t.exposeString('summary'),
    entities: t.exposeStringList('entities', { description: 'entity ids' }),
  }),
});

const TimelineEntry = builder.objectRef<Entry>('TimelineEntry').implement({
  fields: (t) => ({
    id: t.exposeID('id', { description: 'the cursor for starting_after' }),
    chapter: t.exposeString('chapter'),
    ordinal: t.exposeInt('ordinal'),
    beats: t.field({ type: [Beat], resolve: (e) => e.beats }),
  }),
});

export const TimelinePage = builder.objectRef<Page>('TimelinePage').implement({
  fields: (t) => ({
    data: t.field({ type: [TimelineEntry], resolve: (p) => p.data }),
    hasMore: t.exposeBoolean('hasMore'),
    nextStartingAfter: t.exposeString('nextStartingAfter', { nullable: true }),
  }),
});
