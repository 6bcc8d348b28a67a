// Copies the graph from PostgreSQL to Neo4j: the gateway's worker drains the outbox (in id order per project, with
// idempotent MERGE statements, so a row applied twice changes nothing), and `lore graph rebuild` copies projects whole.
// One drainer at a time across processes (a PostgreSQL advisory lock per step), so a project's rows are never applied
// out of order by two gateways.
import neo4j from 'neo4j-driver';
import pg from 'pg';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { isNeo4jUnavailable, type Neo4jClient } from '../../db/neo4j.ts';
import type { Logger } from '../../logger.ts';
import { LoreError } from '../errors.ts';
import { itemsPerRow, type GraphEdgeChange, type GraphNodeChange, type GraphOutbox, type GraphRemovals, type OutboxHealth } from './outbox.ts';
import { DrainLock, Pause } from '../outboxDrain.ts';

const drainLockId = 4_242_002;
const projectsPerStep = 16;
const rowsPerProjectPerStep = 8;
const deletesPerTransaction = 10_000;
const idlePollMs = 250;
const heartbeatMs = 5_000;
const backoff = { firstMs: 500, maxMs: 5_000 };

// A node keeps the project it was created in: a MERGE never moves a node to another project.
const upsertNodes = `
  UNWIND $items AS item
  MERGE (n:Entity {id: item.id})
  ON CREATE SET n.projectId = $projectId
  WITH n, item WHERE n.projectId = $projectId
  SET n.label = item.label, n.type = item.type`;
// Both ends must be nodes of the project; PostgreSQL's uniqueness (from, to, kind) is the MERGE key.
const upsertEdges = `
  UNWIND $items AS item
  MATCH (a:Entity {id: item.from, projectId: $projectId})
  MATCH (b:Entity {id: item.to, projectId: $projectId})
  MERGE (a)-[r:REL {kind: item.kind}]->(b)
  SET r.id = item.id, r.weight = item.weight`;
// Removals, matched within the project only: a node or edge of another project is never touched.
const deleteEdges = `
  UNWIND $items AS item
  MATCH (:Entity {id: item.from, projectId: $projectId})-[r:REL {id: item.id}]->(:Entity {id: item.to, projectId: $projectId})
  DELETE r`;
const deleteNodes = `
  UNWIND $ids AS id
  MATCH (n:Entity {id: id, projectId: $projectId})
  DETACH DELETE n`;
const deleteProjectEdges = `
  MATCH (:Entity {projectId: $projectId})-[r:REL]->()
  WITH r LIMIT $limit
  DELETE r
  RETURN count(*) AS deleted`;
const deleteProjectNodes = `
  MATCH (n:Entity {projectId: $projectId})
  WITH n LIMIT $limit
  DETACH DELETE n
  RETURN count(*) AS deleted`;
const deleteOtherProjects = `
  MATCH (n:Entity) WHERE NOT n.projectId IN $projectIds
  WITH n LIMIT $limit
  DETACH DELETE n
  RETURN count(*) AS deleted`;
const countProject = `
  MATCH (n:Entity {projectId: $projectId})
  RETURN count(n) AS nodes, sum(COUNT { (n)-[:REL]->() }) AS edges`;

type OutboxRow = { id: bigint; op: string; payload: unknown };
export type GraphSyncHealth = OutboxHealth & { neo4j: 'reachable' | 'unreachable' | 'unknown' };
export type RebuildResult = { projectId: string; nodes: number; edges: number };

export class GraphSyncWorker {
  private loop?: Promise<void>;
  private stopping = false;
  private readonly pause = new Pause();
  private schemaReady = false;
  private reachable: boolean | undefined;
  private lastError: string | undefined;
  private lastContact = 0;
  private readonly lock: DrainLock;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly neo4j: Neo4jClient,
    private readonly outbox: GraphOutbox,
    private readonly connectionString: string,
    private readonly logger: Logger,
  ) {
    this.lock = new DrainLock(connectionString, drainLockId);
  }

  start(): void {
    this.stopping = false;
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.pause.wake();
    await this.loop;
    this.loop = undefined;
    await this.lock.close();
  }

  async health(): Promise<GraphSyncHealth> {
    const outbox = await this.outbox.health();
    return {
      ...outbox,
      // This process's own failure first (it is the freshest), else the one recorded on the oldest stuck row; as a code
      // only (the driver's, else graph_sync_failed): /health answers anyone, and the message may carry what it should not.
      lastError: errorCode(this.lastError ?? outbox.lastError),
      neo4j: this.reachable === undefined ? 'unknown' : this.reachable ? 'reachable' : 'unreachable',
    };
  }

  /**
   * `lore graph rebuild`: replaces the Neo4j graph of one project (or of every project, removing nodes of projects
   * PostgreSQL does not have) with a copy from PostgreSQL, then applies whatever the outbox still holds for them.
   */
  async rebuild(projectId?: string): Promise<RebuildResult[]> {
    let projectIds: string[];
    if (projectId) {
      if (!(await this.prisma.project.findUnique({ where: { id: projectId }, select: { id: true } }))) {
        throw new LoreError('not_found', `Project ${projectId} not found.`);
      }
      projectIds = [projectId];
    } else {
      projectIds = (await this.prisma.project.findMany({ select: { id: true }, orderBy: { id: 'asc' } })).map((p) => p.id);
    }
    await this.neo4j.ensureSchema();
    for (const id of projectIds) await this.outbox.requestRebuild(id);
    await this.withOwnLock(async () => {
      if (!projectId) await this.deleteInBatches(deleteOtherProjects, { projectIds });
      for (const id of projectIds) {
        while ((await this.drainProject(id)) > 0);
      }
    });
    const results: RebuildResult[] = [];
    for (const id of projectIds) {
      const counts = await this.neo4j.read((tx) => tx.run(countProject, { projectId: id }));
      results.push({ projectId: id, nodes: counts.records[0].get('nodes'), edges: counts.records[0].get('edges') ?? 0 });
    }
    return results;
  }

  private async run(): Promise<void> {
    let delayMs = 0;
    while (!this.stopping) {
      await this.pause.wait(delayMs);
      if (this.stopping) break;
      try {
        if (!this.schemaReady) {
          await this.neo4j.ensureSchema();
          this.schemaReady = true;
          await this.copyIfEmpty();
        }
        const applied = await this.drainStep();
        // While there is nothing to copy, an occasional round trip keeps the health endpoint's view of Neo4j current.
        if (applied > 0 || Date.now() - this.lastContact > heartbeatMs) {
          if (applied === 0) await this.neo4j.driver.getServerInfo();
          this.lastContact = Date.now();
        }
        this.succeeded();
        delayMs = applied > 0 ? 0 : idlePollMs;
      } catch (error) {
        delayMs = Math.min(backoff.maxMs, Math.max(backoff.firstMs, delayMs * 2));
        this.failed(error, delayMs);
      }
    }
  }

  /** Applies the oldest rows of up to `projectsPerStep` projects; a project that fails does not hold up the others. */
  private async drainStep(): Promise<number> {
    if ((await this.pendingProjects()).length === 0) return 0;
    return (await this.lock.run(async () => {
      let applied = 0;
      let failure: unknown;
      // Read again under the lock: another process may have drained them meanwhile.
      for (const projectId of await this.pendingProjects()) {
        if (this.stopping) break;
        try {
          applied += await this.drainProject(projectId);
        } catch (error) {
          if (isNeo4jUnavailable(error)) throw error;
          failure ??= error;
        }
      }
      if (failure) throw failure;
      return applied;
    })) ?? 0;
  }

  private async pendingProjects(): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<{ projectId: string }[]>`
      SELECT "projectId" FROM "GraphOutbox" GROUP BY "projectId" ORDER BY MIN(id) LIMIT ${projectsPerStep}::int`;
    return rows.map((r) => r.projectId);
  }

  /**
   * Applies a project's oldest rows in id order; returns how many rows it removed from the outbox. A pending rebuild
   * goes first: the copy it makes covers every earlier row, including one that keeps failing.
   */
  private async drainProject(projectId: string): Promise<number> {
    const rebuild = await this.prisma.graphOutbox.findFirst({ where: { projectId, op: 'rebuild' }, select: { id: true, op: true, payload: true } });
    const rows: OutboxRow[] = rebuild
      ? [rebuild]
      : await this.prisma.graphOutbox.findMany({
          where: { projectId },
          orderBy: { id: 'asc' },
          take: rowsPerProjectPerStep,
          select: { id: true, op: true, payload: true },
        });
    let removed = 0;
    for (const row of rows) {
      try {
        if (row.op === 'rebuild') return await this.copyProject(projectId);
        await this.apply(projectId, row);
        // deleteMany: a project deleted meanwhile has taken its rows with it.
        await this.prisma.graphOutbox.deleteMany({ where: { id: row.id } });
        removed++;
      } catch (error) {
        await this.prisma.graphOutbox
          .update({ where: { id: row.id }, data: { attempts: { increment: 1 }, lastError: describe(error) } })
          .catch(() => undefined);
        throw error;
      }
    }
    return removed;
  }

  private async apply(projectId: string, row: OutboxRow): Promise<void> {
    if (row.op === 'nodes' || row.op === 'edges') {
      const { items } = row.payload as { items: GraphNodeChange[] | GraphEdgeChange[] };
      await this.neo4j.write((tx) => tx.run(row.op === 'nodes' ? upsertNodes : upsertEdges, { projectId, items }));
    } else if (row.op === 'delete') {
      const { nodes, edges } = row.payload as GraphRemovals;
      await this.neo4j.write(async (tx) => {
        if (edges.length > 0) await tx.run(deleteEdges, { projectId, items: edges });
        if (nodes.length > 0) await tx.run(deleteNodes, { projectId, ids: nodes });
      });
    } else if (row.op === 'dropProject') {
      // In batches (a project may be large); a batch applied twice deletes nothing more.
      await this.deleteInBatches(deleteProjectEdges, { projectId });
      await this.deleteInBatches(deleteProjectNodes, { projectId });
    } else {
      throw new Error(`unknown outbox operation ${row.op} (row ${row.id})`);
    }
  }

  /**
   * Replaces the project's graph in Neo4j with PostgreSQL's. Every row up to the newest one seen before reading
   * PostgreSQL is covered by the copy (a project's rows are numbered in commit order) and is removed.
   */
  private async copyProject(projectId: string): Promise<number> {
    const newest = await this.prisma.graphOutbox.aggregate({ where: { projectId }, _max: { id: true } });
    const [entities, relationships] = await Promise.all([
      this.prisma.entity.findMany({ where: { projectId }, select: { id: true, name: true, type: true }, orderBy: { id: 'asc' } }),
      this.prisma.relationship.findMany({
        where: { projectId },
        select: { id: true, fromId: true, toId: true, kind: true, weight: true },
        orderBy: { id: 'asc' },
      }),
    ]);
    await this.deleteInBatches(deleteProjectEdges, { projectId });
    await this.deleteInBatches(deleteProjectNodes, { projectId });
    const nodes: GraphNodeChange[] = entities.map((e) => ({ id: e.id, label: e.name, type: e.type }));
    const edges: GraphEdgeChange[] = relationships.map((r) => ({ id: r.id, from: r.fromId, to: r.toId, kind: r.kind, weight: r.weight }));
    for (let i = 0; i < nodes.length; i += itemsPerRow) {
      await this.neo4j.write((tx) => tx.run(upsertNodes, { projectId, items: nodes.slice(i, i + itemsPerRow) }));
    }
    for (let i = 0; i < edges.length; i += itemsPerRow) {
      await this.neo4j.write((tx) => tx.run(upsertEdges, { projectId, items: edges.slice(i, i + itemsPerRow) }));
    }
    const { count } = await this.prisma.graphOutbox.deleteMany({ where: { projectId, id: { lte: newest._max.id ?? 0n } } });
    this.logger.info({ projectId, nodes: nodes.length, edges: edges.length }, 'graph copied to Neo4j');
    return count;
  }

  /** A Neo4j with no Lore nodes next to a PostgreSQL with entities (a new or wiped Neo4j): copy every such project. */
  private async copyIfEmpty(): Promise<void> {
    const neo4jEmpty = (await this.neo4j.read((tx) => tx.run('MATCH (n:Entity) RETURN n.id LIMIT 1'))).records.length === 0;
    if (!neo4jEmpty) return;
    const projects = await this.prisma.entity.findMany({ distinct: ['projectId'], select: { projectId: true } });
    if (projects.length > 0) this.logger.warn({ projects: projects.length }, 'Neo4j holds no graph yet: copying every project from PostgreSQL');
    for (const { projectId } of projects) await this.outbox.requestRebuild(projectId);
  }

  private async deleteInBatches(statement: string, params: Record<string, unknown>): Promise<void> {
    const limit = deletesPerTransaction;
    while ((await this.neo4j.write((tx) => tx.run(statement, { ...params, limit: neo4j.int(limit) }))).records[0].get('deleted') >= limit);
  }

  /** A rebuild: waits for the drain lock in a session of its own (so it excludes this process's worker too). */
  private async withOwnLock(work: () => Promise<void>): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString });
    await client.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [drainLockId]);
      await work();
    } finally {
      // Ending the session releases the lock.
      await client.end().catch(() => undefined);
    }
  }

  private succeeded(): void {
    if (this.reachable === false) this.logger.info({ neo4j: this.neo4j.url }, 'Neo4j reachable again: draining the graph outbox');
    this.reachable = true;
    this.lastError = undefined;
  }

  private failed(error: unknown, retryInMs: number): void {
    const message = describe(error);
    this.lastContact = 0; // the next round checks Neo4j even with nothing to copy
    if (isNeo4jUnavailable(error)) {
      if (this.reachable !== false) this.logger.warn({ neo4j: this.neo4j.url, err: message }, 'Neo4j unreachable: graph changes wait in the outbox');
      this.reachable = false;
    } else if (message !== this.lastError) {
      this.logger.error({ err: message, retryInMs }, 'graph outbox drain failed');
    }
    this.lastError = message;
  }
}

/** The code a described error starts with ("Neo.ClientError.Security.Unauthorized: …"), else graph_sync_failed. */
function errorCode(described: string | null | undefined): string | null {
  if (!described) return null;
  return /^([A-Za-z][\w.]*): /.exec(described)?.[1] ?? 'graph_sync_failed';
}

function describe(error: unknown): string {
  const e = error as { code?: string; message?: string };
  return (e.code ? `${e.code}: ` : '') + (e.message ?? String(error)).slice(0, 500);
}
