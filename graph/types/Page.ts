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

export const SearchRanking = builder.enumType('SearchRanking', {
  description: 'How search ranked: by words and meaning fused (hybrid), or by words alone (lexical)',
  values: {
    hybrid: { description: 'the lexical ranking and the ranking by meaning (embeddings), fused by reciprocal rank fusion' },
    lexical: { description: 'full text and name similarity only: no embedding provider, no vectors for the project yet, or the provider failed just now' },
  } as const,
});

export const EntityPage = builder.objectRef<SearchPage>('EntityPage').implement({
  fields: (t) => ({
    data: t.field({ type: [Entity], description: 'matches, best first', resolve: (page) => page.data }),
    hasMore: t.exposeBoolean('hasMore'),
    nextStartingAfter: t.exposeString('nextStartingAfter', { nullable: true }),
    ranking: t.field({ type: SearchRanking, resolve: (page) => page.ranking }),
  }),
});
