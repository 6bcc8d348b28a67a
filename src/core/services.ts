// The domain services one gateway process (or CLI, or embedded MCP server) runs on.
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { CanonService } from './canon.ts';
import type { GraphStore } from './graph/graphStore.ts';
import { PostgresGraphStore } from './graph/postgresGraphStore.ts';
import { Idempotency } from './idempotency.ts';
import { Importer } from './importer.ts';
import { KeyService } from './keys.ts';
import { Metering } from './metering.ts';
import { ProjectService } from './projects.ts';
import { SearchService } from './search.ts';

export type Services = ReturnType<typeof createServices>;

export function createServices(db: Database, config: Config, logger: Logger) {
  const prisma = db.prisma;
  const graph: GraphStore = new PostgresGraphStore(prisma);
  return {
    config,
    logger,
    dbMode: db.mode,
    prisma,
    keys: new KeyService(prisma),
    metering: new Metering(prisma),
    idempotency: new Idempotency(prisma),
    projects: new ProjectService(prisma),
    canon: new CanonService(prisma),
    search: new SearchService(prisma),
    importer: new Importer(prisma),
    graph,
  };
}
