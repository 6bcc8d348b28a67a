// `lore serve` with LORE_WORKERS > 1 (PostgreSQL only): one gateway process per worker, all on one port (node:cluster
// shares the listening socket), so a machine's cores all serve requests. Everything the workers share (quota, rate
// limits, idempotency, the canon version that keeps their read caches fresh) is in the database.
import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config.ts';

export type WorkerMessage = { type: 'listening'; url: string; store: string } | { type: 'failed' };

/**
 * Starts the workers one after another (so a start-up error is reported once, by the first worker), restarts one that
 * dies later, and stops them all on SIGINT/SIGTERM. Resolves with the URL once every worker listens.
 */
export async function superviseWorkers(config: Config, announce: (url: string, store: string) => void): Promise<void> {
  let stopping = false;
  const started = (worker: Worker) =>
    new Promise<WorkerMessage & { type: 'listening' }>((resolve) => {
      worker.on('message', (message: WorkerMessage) => {
        if (message.type === 'listening') resolve(message);
      });
      worker.once('exit', () => {
        // A worker that could not start has printed why; the others would fail the same way.
        if (!stopping && !listening.has(worker)) process.exit(1);
      });
    });
  const listening = new Set<Worker>();
  let first: WorkerMessage & { type: 'listening' } = { type: 'listening', url: '', store: '' };
  for (let i = 0; i < config.workers; i++) {
    const worker = cluster.fork();
    first = await started(worker);
    listening.add(worker);
  }
  cluster.on('exit', (worker, code, signal) => {
    if (stopping || !listening.has(worker)) return;
    listening.delete(worker);
    process.stderr.write(`lore: worker ${worker.process.pid} exited (${code ?? signal}); starting another\n`);
    const replacement = cluster.fork();
    void started(replacement).then(() => listening.add(replacement));
  });
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
  process.send?.({ type: 'listening', url, store } satisfies WorkerMessage);
}

export const isWorker = () => cluster.isWorker;
