// The domain services one gateway process (or CLI, or embedded MCP server) runs on.
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { openNeo4j } from '../db/neo4j.ts';
import type { Logger } from '../logger.ts';
import { CanonService } from './canon.ts';
import { ConflictChecker } from './conflicts/checker.ts';
import { EntityReader } from './entities.ts';
import { FallbackGraphStore } from './graph/fallbackGraphStore.ts';
import type { GraphStore } from './graph/graphStore.ts';
import { Neo4jGraphStore } from './graph/neo4jGraphStore.ts';
import { GraphSyncWorker } from './graph/neo4jSync.ts';
import { GraphOutbox } from './graph/outbox.ts';
import { PostgresGraphStore } from './graph/postgresGraphStore.ts';
import { Idempotency } from './idempotency.ts';
import { Importer } from './importer.ts';
import { KeyService } from './keys.ts';
import { Metering } from './metering.ts';
import { ProjectService } from './projects.ts';
import { ReadCache } from './readCache.ts';
import { SearchService } from './search.ts';
import { TimelineService } from './timeline.ts';

export type Services = ReturnType<typeof createServices>;

export function createServices(db: Database, config: Config, logger: Logger) {
  const prisma = db.prisma;
  const projects = new ProjectService(prisma, db.sql);
  const entities = new EntityReader(db.sql, new ReadCache(config.readCacheMb));
  // Neo4j serves the graph when configured (PostgreSQL stays the source of truth, copied through the outbox).
  const neo4j = config.neo4j ? openNeo4j(config.neo4j) : undefined;
  const graphOutbox = new GraphOutbox(prisma, Boolean(neo4j));
  const postgresGraph = new PostgresGraphStore(prisma);
  const graph: GraphStore = neo4j ? new FallbackGraphStore(new Neo4jGraphStore(neo4j), postgresGraph, graphOutbox, logger) : postgresGraph;
  return {
    config,
    logger,
    dbMode: db.mode,
    prisma,
    keys: new KeyService(prisma, db.sql),
    metering: new Metering(db.meteringSql),
    idempotency: new Idempotency(prisma),
    projects,
    entities,
    canon: new CanonService(prisma),
    search: new SearchService(prisma, entities, projects),
    importer: new Importer(prisma, graphOutbox),
    conflicts: new ConflictChecker(prisma, config.llm),
    timeline: new TimelineService(prisma, config.llm),
    graph,
    neo4j,
    /** drains the outbox to Neo4j; started by the gateway */
    graphSync: neo4j ? new GraphSyncWorker(prisma, neo4j, graphOutbox, db.connectionString, logger) : undefined,
  };
}
