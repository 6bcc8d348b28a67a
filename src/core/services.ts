// The domain services one gateway process (or CLI, or embedded MCP server) runs on.
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { openNeo4j } from '../db/neo4j.ts';
import type { Logger } from '../logger.ts';
import { AuditLog } from './audit/auditLog.ts';
import { AuthoringService } from './canon/authoring.ts';
import { BriefService } from './brief/brief.ts';
import { PromiseLedgerService } from './promises/ledger.ts';
import { KnowledgeService } from './knowledge/knowledge.ts';
import { CanonService } from './canon/canon.ts';
import { ChapterService } from './canon/chapters.ts';
import { ChapterNotices, prepareChapter } from './conflicts/chapterParses.ts';
import { FactService } from './canon/facts.ts';
import { ConflictChecker } from './conflicts/checker.ts';
import { EntityReader } from './canon/entities.ts';
import { CanonOverview } from './canon/overview.ts';
import { FallbackGraphStore } from './relationships/fallbackGraphStore.ts';
import type { GraphStore } from './relationships/graphStore.ts';
import { Neo4jGraphStore } from './relationships/neo4jGraphStore.ts';
import { GraphSyncWorker } from './relationships/neo4jSync.ts';
import { GraphOutbox } from './relationships/outbox.ts';
import { PostgresGraphStore } from './relationships/postgresGraphStore.ts';
import { Idempotency } from './metering/idempotency.ts';
import { Importer } from './ingest/importer.ts';
import { ExtractionService } from './ingest/manuscripts/extract.ts';
import { ManuscriptService } from './ingest/manuscripts/manuscripts.ts';
import { ManuscriptReader } from './ingest/manuscripts/readerPool.ts';
import { Exporter } from './ingest/exporter.ts';
import { KeyService } from './access/keys.ts';
import { Metering } from './metering/metering.ts';
import { ProjectService } from './canon/projects.ts';
import { CanonChanges } from './canon/canonChanges.ts';
import { EntityCards } from './canon/entityCards.ts';
import { ReadCache, ReadCacheStats } from './canon/readCache.ts';
import { ReviewService } from './canon/review.ts';
import { SearchService } from './canon/search.ts';
import { HybridRanker } from './embeddings/hybrid.ts';
import { EmbeddingProvider } from './embeddings/provider.ts';
import { QueryVectors } from './embeddings/queryVectors.ts';
import { EmbeddingStore } from './embeddings/store.ts';
import { EmbeddingWorker } from './embeddings/worker.ts';
import { TimelineService } from './timeline/timeline.ts';

export type Services = ReturnType<typeof createServices>;

export function createServices(db: Database, config: Config, logger: Logger) {
  const prisma = db.prisma;
  // A chapter written through the service is parsed for the check right after, off the writer's request.
  const chapterWritten = (projectId: string, chapterRowId: string, chars: number) => prepareChapter(prisma, projectId, chapterRowId, chars);
  const projects = new ProjectService(prisma, db.sql);
  const canonChanges = new CanonChanges(db.sql);
  const entities = new EntityReader(db.sql, new ReadCache(config.readCacheMb, canonChanges, config.readCacheStats ? new ReadCacheStats(config.readCacheStats) : undefined), new EntityCards(canonChanges), canonChanges);
  // Neo4j serves the graph when configured (PostgreSQL stays the source of truth, copied through the outbox).
  const neo4j = config.neo4j ? openNeo4j(config.neo4j) : undefined;
  const graphOutbox = new GraphOutbox(prisma, Boolean(neo4j));
  const postgresGraph = new PostgresGraphStore(prisma);
  const graph: GraphStore = neo4j ? new FallbackGraphStore(new Neo4jGraphStore(neo4j), postgresGraph, graphOutbox, logger) : postgresGraph;
  // Semantic search when an embedding provider is configured: vectors kept by the worker, queries ranked hybrid.
  const embeddingStore = new EmbeddingStore(db.sql);
  const embedder = config.embeddings ? new EmbeddingProvider(config.embeddings) : undefined;
  const hybrid = embedder && new HybridRanker(embeddingStore, new QueryVectors(embedder, config.embeddings!.queryTimeoutMs, logger), config.embeddings!);
  const knowledge = new KnowledgeService(prisma);
  return {
    config,
    logger,
    dbMode: db.mode,
    prisma,
    keys: new KeyService(prisma, db.sql),
    metering: new Metering(db.meteringSql),
    idempotency: new Idempotency(prisma),
    audit: new AuditLog(prisma),
    projects,
    entities,
    canon: new CanonService(prisma),
    overview: new CanonOverview(prisma),
    authoring: new AuthoringService(prisma, db.sql, db.sqlTransaction, entities, graphOutbox, db.yieldStore),
    facts: new FactService(prisma, db.sql, db.sqlTransaction),
    chapters: new ChapterService(prisma, chapterWritten),
    review: new ReviewService(prisma, graphOutbox),
    search: new SearchService(prisma, entities, projects, hybrid),
    importer: new Importer(prisma, graphOutbox, db.yieldStore),
    // Stateless over prisma: their own instances of the importer, chapters and review behave as the ones above.
    manuscripts: new ManuscriptService(prisma, new Importer(prisma, graphOutbox, db.yieldStore), new ChapterService(prisma, chapterWritten), new ManuscriptReader(config.manuscripts)),
    extraction: new ExtractionService(prisma, new ReviewService(prisma, graphOutbox), config.llm),
    exporter: new Exporter(prisma),
    conflicts: new ConflictChecker({ prisma, sql: db.sql }, config.llm),
    brief: new BriefService(db.sql),
    promises: new PromiseLedgerService(prisma),
    knowledge,
    timeline: new TimelineService(prisma, config.llm),
    graph,
    neo4j,
    /** drains the outbox to Neo4j; started by the gateway */
    graphSync: neo4j ? new GraphSyncWorker(prisma, neo4j, graphOutbox, db.connectionString, logger) : undefined,
    /** embeds what the embedding outbox holds; started by the gateway, run by `lore embeddings rebuild` */
    embeddingSync: embedder ? new EmbeddingWorker(embeddingStore, embedder, db.connectionString, logger) : undefined,
    /** parses the chapters other processes write, for the check; started by the gateway (PGlite serves one process) */
    chapterNotices: db.mode === 'postgres' ? new ChapterNotices(db.connectionString, prisma) : undefined,
  };
}
