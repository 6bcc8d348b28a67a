// The transactional outbox between PostgreSQL (the source of truth) and Neo4j: graph changes are recorded in the
// transaction that makes them, and GraphSyncWorker (neo4jSync.ts) copies them to Neo4j afterwards.
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { TxClient } from '../canon/canon.ts';
import { statement, type Literal, type Statement, type TransactionSql } from '../../db/sql.ts';

export type GraphNodeChange = { id: string; label: string; type: string };
export type GraphEdgeChange = { id: string; from: string; to: string; kind: string; weight: number };
export type GraphChanges = { nodes: GraphNodeChange[]; edges: GraphEdgeChange[] };
/** An edge to remove: its id and its two ends (so the worker finds it through the nodes' index). */
export type GraphEdgeRef = { id: string; from: string; to: string };
/** Removed nodes (their edges go with them) and removed edges. */
export type GraphRemovals = { nodes: string[]; edges: GraphEdgeRef[] };
/**
 * "nodes" and "edges" upsert ({ items }), "delete" removes ({ nodes, edges }: GraphRemovals), "dropProject" removes every
 * node of a deleted project, "rebuild" copies the whole project from PostgreSQL.
 */
export type OutboxOp = 'nodes' | 'edges' | 'delete' | 'dropProject' | 'rebuild';

/** Items per outbox row: each row becomes one Neo4j transaction. */
export const itemsPerRow = 1_000;

export type OutboxHealth = { pending: number; oldestPendingAgeSeconds: number | null; lastError: string | null };

export class GraphOutbox {
  /**
   * @param detailed true when Neo4j is configured: every change is recorded. Without Neo4j a changed project only gets
   * one "rebuild" row, so the table stays small and a Neo4j configured later copies just the projects that changed.
   */
  constructor(
    private readonly prisma: PrismaClient,
    readonly detailed: boolean,
  ) {}

  /** Records graph changes inside the caller's transaction (which must be the one that makes them). */
  async record(tx: TxClient, projectId: string, changes: GraphChanges): Promise<void> {
    if (changes.nodes.length === 0 && changes.edges.length === 0) return;
    if (!this.detailed) return this.markForRebuild(tx, projectId);
    await lockProject(tx, projectId);
    const rows = [
      ...chunk(changes.nodes, itemsPerRow).map((items) => ({ projectId, op: 'nodes', payload: { items } })),
      ...chunk(changes.edges, itemsPerRow).map((items) => ({ projectId, op: 'edges', payload: { items } })),
    ];
    await tx.graphOutbox.createMany({ data: rows });
  }

  /**
   * record for a writer going straight through the driver (src/db/sql.ts), for a few nodes: one statement, which takes
   * the project's row lock before its row takes an id, as lockProject does, sent with the transaction's COMMIT. Sent
   * earlier, it held that row through the writer's later round trips, and every other writer of the project waited
   * for it to commit (each raises the project's canon version on that row as it commits).
   */
  recordNodes(sql: TransactionSql, projectId: string, nodes: GraphNodeChange[]): void {
    for (const s of this.nodesStatements(projectId, nodes)) sql.atCommit(s.statement, s.values);
  }

  /** recordNodes' statements, for a writer that sends them itself, last before its COMMIT. */
  nodesStatements(projectId: string, nodes: GraphNodeChange[]): { statement: Statement; values: Literal[] }[] {
    if (nodes.length === 0) return [];
    if (!this.detailed) return [{ statement: rebuildMark, values: [projectId] }];
    return chunk(nodes, itemsPerRow).map((items) => ({ statement: nodesInsert, values: [projectId, JSON.stringify({ items })] }));
  }

  /** Records removed nodes and edges inside the caller's transaction (which must be the one that removes them). */
  async recordDeletes(tx: TxClient, projectId: string, removed: GraphRemovals): Promise<void> {
    if (removed.nodes.length === 0 && removed.edges.length === 0) return;
    if (!this.detailed) return this.markForRebuild(tx, projectId);
    await lockProject(tx, projectId);
    const rows = [
      ...chunk(removed.nodes, itemsPerRow).map((nodes) => ({ projectId, op: 'delete', payload: { nodes, edges: [] } })),
      ...chunk(removed.edges, itemsPerRow).map((edges) => ({ projectId, op: 'delete', payload: { nodes: [], edges } })),
    ];
    await tx.graphOutbox.createMany({ data: rows });
  }

  /**
   * The project is being deleted in the caller's transaction, which must call this while the Project row still exists:
   * its lock numbers the "dropProject" row after every committed row of the project. The project's waiting rows go
   * (they are moot, and one that kept failing would hold the removal up); without Neo4j nothing is left behind.
   */
  async recordProjectDeleted(tx: TxClient, projectId: string): Promise<void> {
    await lockProject(tx, projectId);
    await tx.graphOutbox.deleteMany({ where: { projectId } });
    if (this.detailed) await tx.graphOutbox.create({ data: { projectId, op: 'dropProject' } });
  }

  /** Queues a copy of the whole project from PostgreSQL (`lore graph rebuild`, an empty Neo4j). */
  requestRebuild(projectId: string): Promise<void> {
    return this.prisma.$transaction((tx) => this.markForRebuild(tx, projectId));
  }

  /** True while changes of the project are waiting: Neo4j may not show them yet. */
  async hasPending(projectId: string): Promise<boolean> {
    return (await this.prisma.graphOutbox.findFirst({ where: { projectId }, select: { id: true } })) !== null;
  }

  async health(): Promise<OutboxHealth> {
    const [row] = await this.prisma.$queryRaw<{ pending: number; oldest: Date | null; error: string | null }[]>`
      SELECT COUNT(*)::int AS pending, MIN("createdAt") AS oldest,
        (SELECT "lastError" FROM "GraphOutbox" WHERE "lastError" IS NOT NULL ORDER BY id LIMIT 1) AS error
      FROM "GraphOutbox"`;
    return {
      pending: row.pending,
      oldestPendingAgeSeconds: row.oldest ? Math.max(0, Math.round((Date.now() - row.oldest.getTime()) / 1000)) : null,
      lastError: row.error,
    };
  }

  /** Queues a copy of the whole project inside the caller's transaction (a staged import's project, as it goes live). */
  async markForRebuild(tx: TxClient, projectId: string): Promise<void> {
    await lockProject(tx, projectId);
    // One rebuild row per project, and a new one rather than the older: a worker may be copying the project right now
    // from a snapshot taken before this transaction commits, and deletes the rows up to the one it started from.
    await tx.graphOutbox.deleteMany({ where: { projectId, op: 'rebuild' } });
    await tx.graphOutbox.create({ data: { projectId, op: 'rebuild' } });
  }
}

/**
 * Writers of one project queue on its row lock before their rows take ids, so a project's rows are numbered in
 * commit order and the worker, reading in id order, never applies an older change after a newer one.
 */
async function lockProject(tx: TxClient, projectId: string): Promise<void> {
  await tx.$queryRaw`SELECT id FROM "Project" WHERE id = ${projectId} FOR UPDATE`;
}

const nodesInsert = statement('graph_outbox_nodes', `
  WITH p AS (SELECT id FROM "Project" WHERE id = $1 FOR UPDATE)
  INSERT INTO "GraphOutbox" ("projectId", op, payload) SELECT id, 'nodes', $2::jsonb FROM p`);

// markForRebuild in one statement: the project's row lock, the older rebuild row gone, a new one.
const rebuildMark = statement('graph_outbox_rebuild', `
  WITH p AS (SELECT id FROM "Project" WHERE id = $1 FOR UPDATE),
  gone AS (DELETE FROM "GraphOutbox" o USING p WHERE o."projectId" = p.id AND o.op = 'rebuild')
  INSERT INTO "GraphOutbox" ("projectId", op) SELECT id, 'rebuild' FROM p`);

function chunk<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
}
