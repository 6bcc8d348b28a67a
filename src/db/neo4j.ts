// The Neo4j client: one driver per process (NEO4J_URL, NEO4J_USER, NEO4J_PASSWORD), managed transactions only, and the
// schema Lore's graph relies on. Graph model: (:Entity {id, projectId, label, type}) nodes and
// [:REL {id, kind, weight}] relationships between two entities of the same project.
import neo4j, { Neo4jError, type Driver, type ManagedTransaction } from 'neo4j-driver';
import type { Config } from '../config.ts';

export type Neo4jClient = {
  driver: Driver;
  /** the URL without credentials, for logs and errors */
  url: string;
  read<T>(work: (tx: ManagedTransaction) => Promise<T>): Promise<T>;
  write<T>(work: (tx: ManagedTransaction) => Promise<T>): Promise<T>;
  /** Creates the constraint and index if they are missing (idempotent). */
  ensureSchema(): Promise<void>;
  close(): Promise<void>;
};

const schemaStatements = [
  'CREATE CONSTRAINT lore_entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE',
  'CREATE INDEX lore_entity_project IF NOT EXISTS FOR (n:Entity) ON (n.projectId)',
];

export function openNeo4j(config: NonNullable<Config['neo4j']>): Neo4jClient {
  const driver = neo4j.driver(config.url, neo4j.auth.basic(config.user, config.password), {
    // Integers come back as JS numbers: counts and degrees here stay far below 2^53.
    disableLosslessIntegers: true,
    // Fail fast while Neo4j is down: reads fall back to PostgreSQL and the outbox worker retries with its own backoff.
    connectionTimeout: 5_000,
    connectionAcquisitionTimeout: 10_000,
    maxTransactionRetryTime: 1_000,
    userAgent: 'lore',
  });
  const withSession = async <T>(mode: 'READ' | 'WRITE', work: (tx: ManagedTransaction) => Promise<T>): Promise<T> => {
    const session = driver.session({ defaultAccessMode: mode === 'READ' ? neo4j.session.READ : neo4j.session.WRITE });
    try {
      return mode === 'READ' ? await session.executeRead(work) : await session.executeWrite(work);
    } finally {
      await session.close();
    }
  };
  return {
    driver,
    url: redact(config.url),
    read: (work) => withSession('READ', work),
    write: (work) => withSession('WRITE', work),
    async ensureSchema() {
      // Schema changes cannot share a transaction with each other or with data changes.
      for (const statement of schemaStatements) await withSession('WRITE', (tx) => tx.run(statement));
    },
    close: () => driver.close(),
  };
}

/**
 * True when Neo4j could not be reached or could not serve (down, restarting, leader change, wrong credentials):
 * the cases where reads fall back to PostgreSQL. A Cypher error is a bug and is not one of them.
 */
export function isNeo4jUnavailable(error: unknown): boolean {
  if (!(error instanceof Neo4jError)) return false;
  return (
    neo4j.isRetriableError(error) ||
    error.code.startsWith('Neo.ClientError.Security.') ||
    error.code.startsWith('Neo.TransientError.') ||
    error.code === 'Neo.ClientError.Database.DatabaseNotFound'
  );
}

function redact(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}
