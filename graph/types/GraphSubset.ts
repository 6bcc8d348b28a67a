import type { GraphEdge, GraphNode, GraphSubset } from '../../src/core/relationships/graphStore.ts';
import { builder } from '../builder.ts';

const GraphNodeRef = builder.objectRef<GraphNode>('GraphNode').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    label: t.exposeString('label', { description: 'canonical name' }),
    type: t.exposeString('type', { description: 'entity type' }),
  }),
});

const GraphEdgeRef = builder.objectRef<GraphEdge>('GraphEdge').implement({
  fields: (t) => ({
    from: t.exposeString('from'),
    to: t.exposeString('to'),
    kind: t.exposeString('kind'),
    weight: t.exposeFloat('weight'),
  }),
});

export const GraphSubsetRef = builder.objectRef<GraphSubset>('GraphSubset').implement({
  fields: (t) => ({
    nodes: t.field({ type: [GraphNodeRef], resolve: (g) => g.nodes }),
    edges: t.field({ type: [GraphEdgeRef], resolve: (g) => g.edges }),
  }),
});
