// The relationship graph behind GET /graph and the GraphQL graph field. PostgreSQL is the default store; a Neo4j
// store answers the same interface when configured.

export type GraphNode = { id: string; label: string; type: string };
export type GraphEdge = { from: string; to: string; kind: string; weight: number };
export type GraphSubset = { nodes: GraphNode[]; edges: GraphEdge[] };

export type GraphQuery = {
  projectId: string;
  /** entity id; without it the project's most connected nodes are returned */
  root?: string;
  /** 1..3 hops from the root */
  depth: number;
};

/** Bounds that keep a response readable and fast; documented in the README and the OpenAPI description. */
export const graphLimits = { topNodes: 50, neighbourhoodNodes: 500 } as const;

/** Text order of every store (ids, kinds): by code point, so an answer does not depend on a database's collation. */
export const byCodePoint = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/** Edge order of every store: from, to, kind. */
export function compareEdges(a: GraphEdge, b: GraphEdge): number {
  return byCodePoint(a.from, b.from) || byCodePoint(a.to, b.to) || byCodePoint(a.kind, b.kind);
}

export interface GraphStore {
  readonly name: 'postgres' | 'neo4j';
  /** Nodes and edges around `root` (or the most connected nodes); undefined when the root is not an entity of the project. */
  subset(query: GraphQuery): Promise<GraphSubset | undefined>;
}
