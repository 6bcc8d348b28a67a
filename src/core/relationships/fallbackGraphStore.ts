// The graph store used when Neo4j is configured: Neo4j answers, unless its copy of the project may be behind (changes
// of the project wait in the outbox) or Neo4j cannot be reached. Then PostgreSQL, the source of truth, answers: a
// read is never staler than PostgreSQL and never fails because Neo4j is down.
import { isNeo4jUnavailable } from '../../db/neo4j.ts';
import type { Logger } from '../../logger.ts';
import type { GraphQuery, GraphStore, GraphSubset } from './graphStore.ts';
import type { Neo4jGraphStore } from './neo4jGraphStore.ts';
import type { GraphOutbox } from './outbox.ts';
import type { PostgresGraphStore } from './postgresGraphStore.ts';

/** After Neo4j fails to answer, reads go straight to PostgreSQL for this long instead of waiting on Neo4j each time. */
const skipNeo4jMs = 5_000;

export class FallbackGraphStore implements GraphStore {
  readonly name = 'neo4j' as const;
  private neo4jSkippedUntil = 0;

  constructor(
    private readonly neo4j: Neo4jGraphStore,
    private readonly postgres: PostgresGraphStore,
    private readonly outbox: GraphOutbox,
    private readonly logger: Logger,
  ) {}

  async subset(query: GraphQuery): Promise<GraphSubset | undefined> {
    if (Date.now() < this.neo4jSkippedUntil || (await this.outbox.hasPending(query.projectId))) return this.postgres.subset(query);
    try {
      return await this.neo4j.subset(query);
    } catch (error) {
      if (!isNeo4jUnavailable(error)) throw error;
      this.logger.warn({ err: (error as Error).message }, 'Neo4j unavailable: graph reads answered from PostgreSQL');
      this.neo4jSkippedUntil = Date.now() + skipNeo4jMs;
      return this.postgres.subset(query);
    }
  }
}
