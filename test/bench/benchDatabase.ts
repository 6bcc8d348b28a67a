// What both benches share: a database of their own on the PostgreSQL server they are pointed at (DATABASE_URL or
// TEST_DATABASE_URL), and a clean-up, on completion and on Ctrl-C, that stops the servers they started and drops that
// database unless BENCH_KEEP_DB=1.
import pg from 'pg';
import type { ServerProcess } from '../support/processes.ts';

export function benchDatabase(name: string) {
  const chosen = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const serverUrl = chosen ?? 'postgresql://postgres:postgres@127.0.0.1:5432/postgres';
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const running: ServerProcess[] = [];
  const closers: (() => Promise<unknown>)[] = [];

  /** Runs `work` on a connection to the server's admin database. */
  async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: serverUrl });
    try {
      await client.connect();
    } catch (error) {
      throw new Error(`the bench needs PostgreSQL at ${new URL(serverUrl).host} (set DATABASE_URL or TEST_DATABASE_URL): ${(error as Error).message}`);
    }
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }

  let cleaning: Promise<void> | undefined;
  const cleanup = (): Promise<void> =>
    (cleaning ??= (async () => {
      await Promise.allSettled(running.map((s) => s.stop()));
      await Promise.allSettled(closers.map((close) => close()));
      if (process.env.BENCH_KEEP_DB !== '1') await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).catch(() => undefined);
    })());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void cleanup().finally(() => process.exit(130)));
  }

  return {
    name,
    serverUrl,
    databaseUrl: url.toString(),
    admin,
    /**
     * Whether the bench may run on the embedded store instead: no server was named and none answers at the default
     * address (a fresh clone on a machine without PostgreSQL).
     */
    onlyEmbedded: async (): Promise<boolean> => {
      if (chosen) return false;
      const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 2_000 });
      try {
        await client.connect();
        return false;
      } catch {
        return true;
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    /** A fresh, empty database. */
    recreate: () =>
      admin(async (c) => {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.query(`CREATE DATABASE ${name}`);
      }),
    /** Stopped by the clean-up. */
    track<S extends ServerProcess>(server: S): S {
      running.push(server);
      return server;
    },
    /** Also run by the clean-up, after the servers stop. */
    onCleanup(close: () => Promise<unknown>) {
      closers.push(close);
    },
    cleanup,
  };
}
