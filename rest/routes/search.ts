import type { RouteDef } from '../route.ts';
import { EntitiesEnvelope, projectPath, searchQueryParams } from '../schemas.ts';

export const search: RouteDef = {
  method: 'get',
  path: '/projects/{id}/search',
  operationId: 'searchCanon',
  summary: 'Search canon',
  description:
    'Ranked search: full-text over names, aliases and approved facts, and trigram similarity over names and aliases (finds misspelt names); ' +
    'where the server has an embedding provider and the project has vectors, fused with a ranking by meaning (reciprocal rank fusion). ' +
    'Best match first. The Lore-Search-Ranking header says which way the page was ranked.',
  scope: 'search',
  cost: 2,
  params: projectPath,
  query: searchQueryParams,
  success: { status: 200, schema: EntitiesEnvelope, description: 'a page of matching entities' },
  errors: [400, 402, 404],
  operation: 'Search',
  cacheable: true,
  headers: {
    'Lore-Search-Ranking': {
      description:
        '`hybrid`: words and meaning fused; `lexical`: words only (no embedding provider, no vectors for the project yet, or the provider failed just now)',
      value: (data) => (data.page as { ranking: string }).ranking,
    },
  },
  items: (data) => (data.page as { data: unknown[] }).data,
  variables: ({ params, query }) => ({ projectId: params.id, q: query.q, limit: query.limit, startingAfter: query.starting_after }),
  respond: (data) => {
    // The ranking travels in the header: the envelope stays the contract's.
    const { ranking: _, ...page } = data.page as { data: unknown[]; ranking: string };
    return { ...page, entities: page.data };
  },
};
