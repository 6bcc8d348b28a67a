// Statements on every request's path (authentication, metering, ownership, recall, search) run on the pg pool under
// Prisma, each prepared once per connection under its name: Prisma's query compiler spends 0.7 ms of CPU on a
// one-row lookup and 8 ms on a recall page (measured on the bench data), the driver 0.15 ms and well under 1 ms.
import pg from 'pg';

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

/** A value a statement can be written out with (inline): text, a number, a boolean, null, or a list of text. */
export type Literal = string | number | boolean | null | readonly string[];

// Most values hold no quote nor backslash: those are quoted as they are, without pg.escapeLiteral's walk through
// every character (a write's state JSON or audit summary, each character appended to a string one by one).
const needsEscape = /['\\]/;
const quoted = (text: string): string => (needsEscape.test(text) ? pg.escapeLiteral(text) : `'${text}'`);
const arrayItem = /[\\"]/;

const literal = (value: Literal): string => {
  if (value === null) return 'NULL';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return quoted(value);
  return quoted(`{${value.map((item) => `"${arrayItem.test(item) ? item.replace(/[\\"]/g, (c) => `\\${c}`) : item}"`).join(',')}}`);
};

/** A statement's text cut at its parameters: `parts[i]` stands before the parameter numbered `params[i]` (from 0). */
type Template = { parts: string[]; params: number[] };
const templates = new WeakMap<Statement, Template>();

function templateOf(s: Statement): Template {
  let template = templates.get(s);
  if (!template) {
    const pieces = s.text.split(/\$(\d+)/);
    template = { parts: pieces.filter((_, i) => i % 2 === 0), params: pieces.filter((_, i) => i % 2 === 1).map((n) => Number(n) - 1) };
    templates.set(s, template);
  }
  return template;
}

/**
 * `s` with its parameters written in as literals, for a statement sent together with others in one simple query (one
 * round trip). Only for statements whose text holds no `$` but their parameters' (the parameters' casts stay). The
 * text is cut at its parameters once, not searched on every call.
 */
export const inline = (s: Statement, values: readonly Literal[]): string => {
  const { parts, params } = templateOf(s);
  let text = parts[0];
  for (let i = 0; i < params.length; i++) text += literal(values[params[i]]) + parts[i + 1];
  return text;
};

/**
 * What a transaction's writer holds: its statements' client, `atCommit` for a statement whose answer the writer does
 * not need, sent with the COMMIT in one round trip (an error in it fails the commit: nothing is written), and `batch`
 * for statements sent together in one round trip, each one's rows answered in order (a writer holding a lock that
 * others wait for sends its writes and reads at once instead of waiting for a turn of the event loop after each).
 */
export type TransactionSql = SqlClient & {
  atCommit(statement: Statement, values: Literal[]): void;
  batch(statements: readonly { statement: Statement; values: Literal[] }[]): Promise<Record<string, unknown>[][]>;
  /**
   * `batch`, with the statements kept for the COMMIT and the COMMIT itself in its round trip: the transaction's last,
   * so its locks are not held through another turn of the event loop. Nothing may be sent after it.
   */
  commit(statements: readonly { statement: Statement; values: Literal[] }[]): Promise<Record<string, unknown>[][]>;
};

/**
 * `lock`: an advisory lock (pg_advisory_xact_lock on the name's hash) taken as the transaction begins, `sharedLock`
 * the same lock in shared mode (pg_advisory_xact_lock_shared); `first`: a statement run right after it, whose rows
 * `work` is given. All go with the BEGIN in one round trip.
 */
export type TransactionStart = {
  lock?: string;
  sharedLock?: string;
  first?: { statement: Statement; values: Literal[] };
  /** statements run after `first`, in the same round trip, whose rows (one list each) `work` is given too */
  then?: { statement: Statement; values: Literal[] }[];
  /**
   * statements (inline) sent before the BEGIN in its round trip, such as another transaction of their own (a request's
   * admission); `received` takes their answers. An error in them leaves the transaction unopened.
   */
  ahead?: { statements: AheadStatement[]; received(results: pg.QueryResult[]): void };
  /** true: the COMMIT goes with the BEGIN too, in one round trip; `work` then reads the answers and sends nothing */
  commit?: true;
};

/** A statement sent ahead of a transaction's BEGIN: as written, or run prepared where the pool prepares (else inline). */
export type AheadStatement = string | { statement: Statement; values: Literal[] };

/** Runs `work` in one transaction, its statements on one connection of the pool (prepared where the pool prepares). */
export type SqlTransaction = <T, R extends object = Record<string, unknown>>(
  work: (sql: TransactionSql, first: R[], then: Record<string, unknown>[][]) => Promise<T>, start?: TransactionStart,
) => Promise<T>;

// A prepared statement is planned again on every EXECUTE while PostgreSQL expects its generic plan to cost more than a
// plan for the values at hand, which it does for every list parameter (`id = ANY($3)`: ten rows guessed, one given):
// planning the entity page's read took 1.8-2.1 ms of PostgreSQL's CPU a write, its generic plan 0.9 ms to run in all.
// The write transactions' statements look rows up by key, where the generic plan is the custom one; it also covers
// the statements of the functions they call (lore_create_fact).
const genericPlans = 'SET LOCAL plan_cache_mode = force_generic_plan';
const advisoryLock = statement('advisory_xact_lock', 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))');
const sharedAdvisoryLock = statement('advisory_xact_lock_shared', 'SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0))');

/**
 * Transactions on `pool` straight through the driver: for the writes on the hottest paths, where each statement sent
 * through Prisma's query compiler and its interactive transaction costs more than the statement itself. The BEGIN
 * with the lock and first statements, and the COMMIT with the statements kept for it, each go as one simple query (one
 * round trip: on PGlite, one turn at the store's thread and one message each way, where one by one took four to six).
 */
export function sqlTransaction(pool: pg.Pool, prepared: boolean): SqlTransaction {
  return async <T, R extends object>(work: (sql: TransactionSql, first: R[], then: Record<string, unknown>[][]) => Promise<T>, start: TransactionStart = {}) => {
    const client = await pool.connect();
    const atEnd: { statement: Statement; values: Literal[] }[] = [];
    const written = (s: Statement, values: Literal[]) => (prepared ? executed(s, values) : inline(s, values));
    let open = false;
    let committed = false;
    const sql: TransactionSql = {
      query: prepared ? (c) => client.query(c) : <T extends pg.QueryResultRow>(c: pg.QueryConfig) => client.query<T>({ text: c.text, values: c.values }),
      atCommit: (statement, values) => atEnd.push({ statement, values }),
      batch: async (statements) => {
        if (statements.length === 0) return [];
        if (prepared) await preparedOn(client, statements.map((s) => s.statement));
        return [await client.query(statements.map((s) => written(s.statement, s.values)).join(';\n'))].flat().map((r) => r.rows);
      },
      commit: async (statements) => {
        const all = [...statements, ...atEnd.splice(0)];
        if (prepared) await preparedOn(client, all.map((s) => s.statement));
        const results = [await client.query([...all.map((s) => written(s.statement, s.values)), 'COMMIT'].join(';\n'))].flat();
        open = false;
        committed = true;
        return results.slice(0, statements.length).map((r) => r.rows);
      },
    };
    const sent = [...(start.first ? [start.first] : []), ...(start.then ?? [])];
    const ahead = start.ahead?.statements ?? [];
    const aheadPrepared = ahead.filter((a): a is Exclude<AheadStatement, string> => typeof a !== 'string');
    // The statements sent with the BEGIN run prepared where the pool prepares: written out inline, each was parsed and
    // planned again on every call (an entity page's read alone took 1.4-3.7 ms of PostgreSQL's CPU to plan).
    if (prepared) {
      try {
        await preparedOn(client, [...aheadPrepared, ...sent].map((s) => s.statement));
      } catch (error) {
        client.release(error as Error);
        throw error;
      }
    }
    let broken: Error | undefined;
    const opening = [
      ...ahead.map((a) => (typeof a === 'string' ? a : written(a.statement, a.values))),
      'BEGIN',
      ...(prepared ? [genericPlans] : []),
      ...(start.lock !== undefined ? [inline(advisoryLock, [start.lock])] : []),
      ...(start.sharedLock !== undefined ? [inline(sharedAdvisoryLock, [start.sharedLock])] : []),
      ...sent.map((t) => written(t.statement, t.values)),
      ...(start.commit ? ['COMMIT'] : []),
    ];
    const following = start.then?.length ?? 0;
    const end = opening.length - (start.commit ? 1 : 0);
    try {
      open = true;
      const opened = [await client.query(opening.join(';\n'))].flat();
      start.ahead?.received(opened.slice(0, ahead.length));
      const first = (start.first ? opened[end - 1 - following].rows : []) as R[];
      const thenRows = opened.slice(end - following, end).map((r) => r.rows);
      if (start.commit) {
        open = false;
        const result = await work(sql, first, thenRows);
        if (atEnd.length > 0) throw new Error('a transaction committed with its opening sends nothing after it');
        return result;
      }
      const result = await work(sql, first, thenRows);
      if (committed) {
        if (atEnd.length > 0) throw new Error('a transaction sends nothing after its commit');
        return result;
      }
      // Prepared like the opening's statements: written out inline, an audit entry's insert was parsed and planned on
      // every commit.
      if (prepared && atEnd.length > 0) await preparedOn(client, atEnd.map((s) => s.statement));
      await client.query([...atEnd.map((s) => written(s.statement, s.values)), 'COMMIT'].join(';\n'));
      open = false;
      return result;
    } catch (error) {
      // Also after a failed BEGIN statement or COMMIT: the transaction may be open, aborted.
      if (open) await client.query('ROLLBACK').catch((failed: Error) => (broken = failed));
      throw error;
    } finally {
      client.release(broken);
    }
  };
}

// The statements prepared with SQL's PREPARE on each connection, under names of their own (the driver keeps its own
// protocol-level names, which share the session's namespace).
const sqlPrepared = new WeakMap<pg.PoolClient, Set<string>>();
const preparedName = (s: Statement) => `${s.name}_sql`;

/** Prepares on `client` those of `statements` it has not prepared yet: one round trip, the first time only. */
async function preparedOn(client: pg.PoolClient, statements: Statement[]): Promise<void> {
  let done = sqlPrepared.get(client);
  if (!done) sqlPrepared.set(client, (done = new Set()));
  const missing = [...new Set(statements)].filter((s) => !done.has(s.name));
  if (missing.length > 0) {
    await client.query(missing.map((s) => `PREPARE ${preparedName(s)} AS ${s.text}`).join(';\n'));
    for (const s of missing) done.add(s.name);
  }
}

/** `s` run by its prepared name with its parameters as literals, for a simple query of several statements. */
const executed = (s: Statement, values: readonly Literal[]) => `EXECUTE ${preparedName(s)}${values.length > 0 ? `(${values.map(literal).join(', ')})` : ''}`;

