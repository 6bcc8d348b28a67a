// The graph answered from the relationship table with a recursive walk, scoped by project in every statement.
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { compareEdges, graphLimits, type GraphEdge, type GraphNode, type GraphQuery, type GraphStore, type GraphSubset } from './graphStore.ts';

export class PostgresGraphStore implements GraphStore {
  readonly name = 'postgres' as const;

  constructor(private readonly prisma: PrismaClient) {}

  async subset({ projectId, root, depth }: GraphQuery): Promise<GraphSubset | undefined> {
    let nodeIds: string[];
    if (root) {
      const exists = await this.prisma.entity.findFirst({ where: { id: root, projectId }, select: { id: true } });
      if (!exists) return undefined;
      // Breadth-first by distance, then by degree, so the bound keeps the nearest and best connected nodes.
      const rows = await this.prisma.$queryRaw<{ id: string }[]>`
        WITH RECURSIVE walk(id, distance) AS (
          SELECT ${root}::text, 0
          UNION
          SELECT CASE WHEN r."fromId" = w.id THEN r."toId" ELSE r."fromId" END, w.distance + 1
          FROM walk w
          JOIN "Relationship" r ON r."projectId" = ${projectId} AND (r."fromId" = w.id OR r."toId" = w.id)
          WHERE w.distance < ${depth}::int
        ),
        nearest AS (SELECT id, MIN(distance) AS distance FROM walk GROUP BY id)
        SELECT n.id FROM nearest n
        ORDER BY n.distance,
          (SELECT COUNT(*) FROM "Relationship" r WHERE r."projectId" = ${projectId} AND (r."fromId" = n.id OR r."toId" = n.id)) DESC,
          n.id COLLATE "C"
        LIMIT ${graphLimits.neighbourhoodNodes}::int`;
      nodeIds = rows.map((r) => r.id);
    } else {
      const rows = await this.prisma.$queryRaw<{ id: string }[]>`
        SELECT e.id FROM "Entity" e
        LEFT JOIN (
          -- A self-loop counts once, as in the walk's order above.
          SELECT id, COUNT(*) AS degree FROM (
            SELECT "fromId" AS id FROM "Relationship" WHERE "projectId" = ${projectId}
            UNION ALL
            SELECT "toId" AS id FROM "Relationship" WHERE "projectId" = ${projectId} AND "toId" <> "fromId"
          ) ends GROUP BY id
        ) d ON d.id = e.id
        WHERE e."projectId" = ${projectId}
        ORDER BY COALESCE(d.degree, 0) DESC, e.id COLLATE "C"
        LIMIT ${graphLimits.topNodes}::int`;
      nodeIds = rows.map((r) => r.id);
    }
    return this.load(projectId, nodeIds);
  }

  private async load(projectId: string, nodeIds: string[]): Promise<GraphSubset> {
    if (nodeIds.length === 0) return { nodes: [], edges: [] };
    const [entities, relationships] = await Promise.all([
      this.prisma.entity.findMany({ where: { projectId, id: { in: nodeIds } }, select: { id: true, name: true, type: true } }),
      this.prisma.relationship.findMany({
        where: { projectId, fromId: { in: nodeIds }, toId: { in: nodeIds } },
        select: { fromId: true, toId: true, kind: true, weight: true },
      }),
    ]);
    const byId = new Map(entities.map((e) => [e.id, e]));
    const nodes: GraphNode[] = nodeIds.flatMap((id) => {
      const e = byId.get(id);
      return e ? [{ id: e.id, label: e.name, type: e.type }] : [];
    });
    const edges: GraphEdge[] = relationships.map((r) => ({ from: r.fromId, to: r.toId, kind: r.kind, weight: r.weight })).sort(compareEdges);
    return { nodes, edges };
  }
}
