// Cursor pages as the contract shapes them: data, has_more, next_starting_after.
import type { Page } from '../../src/core/canon/canon.ts';
import type { SearchPage } from '../../src/core/canon/search.ts';
import { builder } from '../builder.ts';
import { Entity } from './Entity.ts';
import { Mention } from './Mention.ts';
import type { MentionItem } from '../../src/core/canon/canon.ts';

export const MentionPage = builder.objectRef<Page<MentionItem>>('MentionPage').implement({
  fields: (t) => ({
    data: t.field({ type: [Mention], resolve: (page) => page.data }),
    hasMore: t.exposeBoolean('hasMore'),
    nextStartingAfter: t.exposeString('nextStartingAfter', { nullable: true }),
  }),
});

export const EntityPage = builder.objectRef<SearchPage>('EntityPage').implement({
  fields: (t) => ({
    data: t.field({ type: [Entity], description: 'matches, best first', resolve: (page) => page.data }),
    hasMore: t.exposeBoolean('hasMore'),
    nextStartingAfter: t.exposeString('nextStartingAfter', { nullable: true }),
  }),
});
