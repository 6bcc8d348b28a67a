// Opens the store and the services on it: shared by the gateway, the CLI and the embedded MCP server.
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/database.ts';
import { createServices, type Services } from './core/services.ts';
import { createLogger, type Logger } from './logger.ts';

export type Runtime = { config: Config; db: Database; services: Services; logger: Logger; close(): Promise<void> };

export async function openRuntime(config: Config, logger = createLogger(config.logLevel)): Promise<Runtime> {
  const db = await openDatabase(config);
  const services = createServices(db, config, logger);
  const close = async () => {
    await services.neo4j?.close();
    await services.manuscripts.close();
    await db.close();
  };
  return { config, db, services, logger, close };
}
