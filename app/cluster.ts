// `lore serve` with LORE_WORKERS > 1 (PostgreSQL only): one gateway process per worker, all on one port (node:cluster
// shares the listening socket), so a machine's cores all serve requests. Everything the workers share (quota, rate
// limits, idempotency, the canon version that keeps their read caches fresh) is in the database.
import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../src/config.ts';

type Listening = { type: 'listening'; url: string; store: string };

/**
 * Starts the workers one after another (so a start-up error is reported once, by the first worker), restarts one that
 * dies later, and stops them all on SIGINT/SIGTERM; announces the URL once every worker listens.
 */
export async function superviseWorkers(config: Config, announce: (url: string, store: string) => void): Promise<void> {
  let stopping = false;
  const listening = new Set<Worker>();
  /** Forks a worker; resolves once it listens. One that exits before then ends the primary: it printed why. */
  const fork = () =>
    new Promise<Listening>((resolve) => {
      const worker = cluster.fork();
      worker.on('message', (message: Listening) => {
        if (message.type !== 'listening') return;
        listening.add(worker);
        resolve(message);
      });
      worker.once('exit', (code, signal) => {
        if (stopping) return;
        if (!listening.delete(worker)) process.exit(1);
        process.stderr.write(`lore: worker ${worker.process.pid} exited (${code ?? signal}); starting another\n`);
        void fork();
      });
    });
  const first = await fork();
  for (let i = 1; i < config.workers; i++) await fork();
  const stop = () => {
    stopping = true;
    const exits = [...listening].map((w) => new Promise((resolve) => (w.isDead() ? resolve(undefined) : w.once('exit', resolve))));
    for (const worker of listening) worker.process.kill('SIGTERM');
    void Promise.all(exits).then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  announce(first.url, `${first.store}, ${config.workers} workers`);
}

/** In a worker: tells the primary the gateway listens. */
export function reportListening(url: string, store: string): void {
  process.send?.({ type: 'listening', url, store } satisfies Listening);
}

export const isWorker = () => cluster.isWorker;
