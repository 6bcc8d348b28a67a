// The graph answered from Neo4j, with the same answers as PostgresGraphStore: every statement is parameterised and
// matches nodes by (id, projectId), so a node of another project can never be reached. One read transaction per
// call; the walk runs level by level, each level bringing its nodes' labels and degrees, so the order (nearest, best
// connected, id) is decided as in PostgreSQL.
import neo4j, { type ManagedTransaction, type Record as Neo4jRecord } from 'neo4j-driver';
import type { Neo4jClient } from '../../db/neo4j.ts';
import { byCodePoint, compareEdges, graphLimits, type GraphEdge, type GraphNode, type GraphQuery, type GraphStore, type GraphSubset } from './graphStore.ts';

// Degrees count a node's relationships in both directions (a self-loop once), as the PostgreSQL store does. The far
// ends need no project filter: relationships are only ever created between two nodes of one project.
const rootNode = `
  MATCH (n:Entity {id: $root, projectId: $projectId})
  RETURN n.id AS id, n.label AS label, n.type AS type, COUNT { (n)-[:REL]-() } AS degree`;
const neighbours = `
  UNWIND $ids AS id
  MATCH (:Entity {id: id, projectId: $projectId})-[:REL]-(n:Entity {projectId: $projectId})
  WITH DISTINCT n
  RETURN n.id AS id, n.label AS label, n.type AS type, COUNT { (n)-[:REL]-() } AS degree`;
const mostConnected = `
  MATCH (n:Entity {projectId: $projectId})
  WITH n, COUNT { (n)-[:REL]-() } AS degree
  ORDER BY degree DESC, n.id
  LIMIT $limit
  RETURN n.id AS id, n.label AS label, n.type AS type`;
// Not UNWIND here: with the list on both ends the planner would seek every b for every a.
const edgesAmong = `
  MATCH (a:Entity)-[r:REL]->(b:Entity)
  WHERE a.id IN $ids AND a.projectId = $projectId AND b.id IN $ids AND b.projectId = $projectId
  RETURN a.id AS from, b.id AS to, r.kind AS kind, r.weight AS weight`;

type Found = GraphNode & { degree: number; distance: number };
const toNode = (r: Neo4jRecord): GraphNode => ({ id: r.get('id'), label: r.get('label'), type: r.get('type') });

export class Neo4jGraphStore implements GraphStore {
  readonly name = 'neo4j' as const;

  constructor(private readonly client: Neo4jClient) {}

  subset({ projectId, root, depth }: GraphQuery): Promise<GraphSubset | undefined> {
    return this.client.read(async (tx) => {
      let nodes: GraphNode[];
      if (root) {
        const found = await this.neighbourhood(tx, projectId, root, depth);
        if (!found) return undefined;
        nodes = found;
      } else {
        nodes = (await tx.run(mostConnected, { projectId, limit: neo4j.int(graphLimits.topNodes) })).records.map(toNode);
      }
      return { nodes, edges: await this.edges(tx, projectId, nodes) };
    });
  }

  /** Breadth-first to `depth`, then nearest first, best connected first, id: the bound keeps the same nodes as PostgreSQL. */
  private async neighbourhood(tx: ManagedTransaction, projectId: string, root: string, depth: number): Promise<GraphNode[] | undefined> {
    const [start] = (await tx.run(rootNode, { root, projectId })).records;
    if (!start) return undefined;
    const found = new Map<string, Found>([[root, { ...toNode(start), degree: start.get('degree'), distance: 0 }]]);
    let frontier = [root];
    for (let distance = 1; distance <= depth && frontier.length > 0; distance++) {
      const next: string[] = [];
      for (const r of (await tx.run(neighbours, { ids: frontier, projectId })).records) {
        const id = r.get('id') as string;
        if (found.has(id)) continue;
        found.set(id, { ...toNode(r), degree: r.get('degree'), distance });
        next.push(id);
      }
      frontier = next;
    }
    return [...found.values()]
      .sort((a, b) => a.distance - b.distance || b.degree - a.degree || byCodePoint(a.id, b.id))
      .slice(0, graphLimits.neighbourhoodNodes)
      .map(({ id, label, type }) => ({ id, label, type }));
  }

  private async edges(tx: ManagedTransaction, projectId: string, nodes: GraphNode[]): Promise<GraphEdge[]> {
    if (nodes.length === 0) return [];
    const result = await tx.run(edgesAmong, { ids: nodes.map((n) => n.id), projectId });
    return result.records
      .map((r): GraphEdge => ({ from: r.get('from'), to: r.get('to'), kind: r.get('kind'), weight: r.get('weight') }))
      .sort(compareEdges);
  }
}
