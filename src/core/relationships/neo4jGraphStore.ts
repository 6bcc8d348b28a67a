// The graph answered from Neo4j, with the same answers as PostgresGraphStore. Each answer is one parameterised
// statement matching nodes by (id, projectId), so a node of another project can never be reached: nearest distances
// come from a breadth-first SHORTEST search, and the edges among the chosen nodes come back in the same round trip
// (the driver sends a large parameter list in several TCP writes and pays Nagle's delay, so ids are not sent back).
import neo4j, { type Record as Neo4jRecord } from 'neo4j-driver';
import type { Neo4jClient } from '../../db/neo4j.ts';
import { compareEdges, graphLimits, type GraphEdge, type GraphQuery, type GraphStore, type GraphSubset } from './graphStore.ts';

// Degrees count a node's relationships in both directions (a self-loop once), as the PostgreSQL store does; ties go
// to the smaller id by code point. Relationships only ever join two nodes of one project.
const chosenWithEdges = `
  WITH collect(n) AS chosen
  UNWIND chosen AS a
  RETURN a.id AS id, a.label AS label, a.type AS type,
    [(a)-[r:REL]->(b) WHERE b IN chosen | {to: b.id, kind: r.kind, weight: r.weight}] AS out`;
const mostConnected = `
  MATCH (n:Entity {projectId: $projectId})
  WITH n, COUNT { (n)-[:REL]-() } AS degree
  ORDER BY degree DESC, n.id
  LIMIT $limit
  ${chosenWithEdges}`;
// A path quantifier takes no parameter, so there is one statement per allowed depth (no input reaches the text).
const neighbourhood = (depth: number) => `
  MATCH (root:Entity {id: $root, projectId: $projectId})
  MATCH path = SHORTEST 1 (root)-[:REL]-{0,${depth}}(n:Entity {projectId: $projectId})
  WITH n, length(path) AS distance, COUNT { (n)-[:REL]-() } AS degree
  ORDER BY distance, degree DESC, n.id
  LIMIT $limit
  ${chosenWithEdges}`;
const neighbourhoodAt = new Map([1, 2, 3].map((depth) => [depth, neighbourhood(depth)]));

export class Neo4jGraphStore implements GraphStore {
  readonly name = 'neo4j' as const;

  constructor(private readonly client: Neo4jClient) {}

  async subset({ projectId, root, depth }: GraphQuery): Promise<GraphSubset | undefined> {
    const statement = root ? neighbourhoodAt.get(depth) : mostConnected;
    if (!statement) throw new RangeError(`depth must be 1, 2 or 3, not ${depth}`);
    const limit = neo4j.int(root ? graphLimits.neighbourhoodNodes : graphLimits.topNodes);
    const { records } = await this.client.read((tx) => tx.run(statement, { projectId, root: root ?? null, limit }));
    // The root always comes back itself (distance 0), so no rows means it is not an entity of the project.
    if (root && records.length === 0) return undefined;
    return { nodes: records.map((r) => ({ id: r.get('id'), label: r.get('label'), type: r.get('type') })), edges: edgesOf(records) };
  }
}

function edgesOf(records: Neo4jRecord[]): GraphEdge[] {
  return records
    .flatMap((r) => (r.get('out') as { to: string; kind: string; weight: number }[]).map((e) => ({ from: r.get('id') as string, ...e })))
    .sort(compareEdges);
}
