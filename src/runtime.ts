// Opens the store and the services on it: shared by the gateway, the CLI and the embedded MCP server.
import type { Config } from './config.ts';
import { openDatabase, type Database, type EmbeddedClaim } from './db/database.ts';
import { createServices, type Services } from './core/services.ts';
import { createLogger, type Logger } from './logger.ts';

export type Runtime = { config: Config; db: Database; services: Services; logger: Logger; close(): Promise<void> };

/** `embedded`: the embedded store's lock, when the caller took it (else a command takes it: see openDatabase). */
export async function openRuntime(config: Config, logger = createLogger(config.logLevel), options: { embedded?: EmbeddedClaim } = {}): Promise<Runtime> {
  const db = await openDatabase(config, options);
  const services = createServices(db, config, logger);
  const close = async () => {
    await services.neo4j?.close();
    await services.manuscripts.close();
    await db.close();
  };
  return { config, db, services, logger, close };
}
