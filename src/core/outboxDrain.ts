// What the outbox workers (relationships/neo4jSync.ts, embeddings/worker.ts) share: one drainer at a time across
// processes, by a session-level advisory lock on a connection of the worker's own, and a pause that stop() cuts short.
import pg from 'pg';

export class DrainLock {
  private client?: pg.Client;

  constructor(
    private readonly connectionString: string,
    private readonly lockId: number,
  ) {}

  /** Runs `work` holding the lock; without `wait`, answers undefined when another session holds it. */
  async run<T>(work: () => Promise<T>, wait = false): Promise<T | undefined> {
    if (!this.client) {
      const client = new pg.Client({ connectionString: this.connectionString });
      // A lost connection also releases the lock: the next step reconnects.
      client.on('error', () => {
        if (this.client === client) this.client = undefined;
      });
      await client.connect();
      this.client = client;
    }
    const client = this.client;
    if (wait) await client.query('SELECT pg_advisory_lock($1)', [this.lockId]);
    else if (!(await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [this.lockId])).rows[0].ok) return undefined;
    try {
      return await work();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [this.lockId]).catch(() => {
        if (this.client === client) this.client = undefined;
        void client.end().catch(() => undefined);
      });
    }
  }

  async close(): Promise<void> {
    await this.client?.end().catch(() => undefined);
    this.client = undefined;
  }
}

/** A worker's wait between rounds, which `wake` ends early. */
export class Pause {
  private waking?: () => void;

  wait(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.waking = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  wake(): void {
    this.waking?.();
  }
}
