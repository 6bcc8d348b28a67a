import type { RouteDef } from '../route.ts';
import { EntitiesEnvelope, projectPath, searchQueryParams } from '../schemas.ts';

export const search: RouteDef = {
  method: 'get',
  path: '/projects/{id}/search',
  operationId: 'searchCanon',
  summary: 'Search canon',
  description: 'Ranked lexical search: full-text over names, aliases and approved facts, and trigram similarity over names and aliases (finds misspelt names). Best match first.',
  scope: 'search',
  cost: 2,
  params: projectPath,
  query: searchQueryParams,
  success: { status: 200, schema: EntitiesEnvelope, description: 'a page of matching entities' },
  errors: [400, 402, 404],
  operation: 'Search',
  cacheable: true,
  variables: ({ params, query }) => ({ projectId: params.id, q: query.q, limit: query.limit, startingAfter: query.starting_after }),
  respond: (data) => {
    const page = data.page as { data: unknown[] };
    return { ...page, entities: page.data };
  },
};
