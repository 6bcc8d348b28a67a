import type { RouteDef } from '../route.ts';
import { GraphSubset, graphQueryParams, projectPath } from '../schemas.ts';

export const graph: RouteDef = {
  method: 'get',
  path: '/projects/{id}/graph',
  operationId: 'readGraph',
  summary: 'Read a subset of the relationship graph',
  description:
    'With root: the nodes within depth hops of the root (at most 500, nearest and best connected first) and the edges among them. Without root: the 50 most connected nodes and the edges among them. Node type is the entity type; edge kind is the relationship kind given at import (for example sibling_of).',
  scope: 'graph',
  cost: 1,
  params: projectPath,
  query: graphQueryParams,
  success: { status: 200, schema: GraphSubset, description: 'nodes and edges' },
  errors: [400, 402, 404],
  operation: 'Graph',
  variables: ({ params, query }) => ({ projectId: params.id, root: query.root, depth: query.depth }),
  respond: (data) => data.graph,
};
