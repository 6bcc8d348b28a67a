// Statements on every request's path (authentication, metering, ownership, recall, search) run on the pg pool under
// Prisma, each prepared once per connection under its name: Prisma's query compiler spends 0.7 ms of CPU on a
// one-row lookup and 8 ms on a recall page (measured on the bench data), the driver 0.15 ms and well under 1 ms.
import type pg from 'pg';

export type Statement = { readonly name: string; readonly text: string };

export const statement = (name: string, text: string): Statement => ({ name: `lore_${name}`, text });

/** What these statements run on: a pg pool (src/db/database.ts makes one that does not prepare for PGlite). */
export interface SqlClient {
  query<T extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<T>>;
}

/**
 * PGlite has one session, which every connection to it shares (the gateway's, the CLI's): a statement prepared under a
 * name by one would clash with the same name from another, so there every statement goes unnamed.
 */
export function unprepared(pool: pg.Pool): SqlClient {
  return { query: <T extends pg.QueryResultRow>(config: pg.QueryConfig) => pool.query<T>({ text: config.text, values: config.values }) };
}

export async function rows<T extends object>(sql: SqlClient, s: Statement, values: unknown[]): Promise<T[]> {
  return (await sql.query<T & pg.QueryResultRow>({ name: s.name, text: s.text, values })).rows;
}

/**
 * A timestamp parameter for a `timestamp(3)` column (Prisma keeps UTC there, without a zone): sent as text, so the
 * session's time zone cannot shift it.
 */
export const utcTimestamp = (date: Date) => date.toISOString().slice(0, 23);

/** Runs `work` in one transaction, its statements on one connection of the pool (prepared where the pool prepares). */
export type SqlTransaction = <T>(work: (sql: SqlClient) => Promise<T>) => Promise<T>;

/**
 * Transactions on `pool` straight through the driver: for the writes on the hottest paths, where each statement sent
 * through Prisma's query compiler and its interactive transaction costs more than the statement itself.
 */
export function sqlTransaction(pool: pg.Pool, prepared: boolean): SqlTransaction {
  return async (work) => {
    const client = await pool.connect();
    const sql: SqlClient = prepared ? client : { query: <T extends pg.QueryResultRow>(c: pg.QueryConfig) => client.query<T>({ text: c.text, values: c.values }) };
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      try {
        const result = await work(sql);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((failed: Error) => (broken = failed));
        throw error;
      }
    } finally {
      client.release(broken);
    }
  };
}
