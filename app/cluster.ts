// `lore serve` with LORE_WORKERS > 1 (PostgreSQL only): one gateway process per worker, all on one port (node:cluster
// shares the listening socket), so a machine's cores all serve requests. Everything the workers share (quota, rate
// limits, idempotency, the canon version that keeps their read caches fresh) is in the database.
import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../src/config.ts';

type Listening = { type: 'listening'; url: string; store: string };

/**
 * Starts the workers one after another (so a start-up error is reported once, by the first worker), restarts one that
 * dies later, and passes SIGINT/SIGTERM on to them all; announces the URL once every worker listens.
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
  // Each worker gets SIGTERM and shuts down within its own bound (LORE_SHUTDOWN_TIMEOUT_MS, then a few seconds for the
  // store); one that outlives even that is killed. The supervisor exits 0 only if every worker did.
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
    let failed = false;
    const exits = workers.map(
      (w) =>
        new Promise<void>((resolve) =>
          w.once('exit', (code) => {
            if (code !== 0) failed = true;
            resolve();
          }),
        ),
    );
    for (const worker of workers) worker.process.kill('SIGTERM');
    setTimeout(() => workers.forEach((w) => w.isDead() || w.process.kill('SIGKILL')), config.shutdownTimeoutMs + 10_000).unref();
    void Promise.all(exits).then(() => process.exit(failed ? 1 : 0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const first = await fork();
  for (let i = 1; i < config.workers; i++) await fork();
  announce(first.url, `${first.store}, ${config.workers} workers`);
}

/** In a worker: tells the primary the gateway listens. */
export function reportListening(url: string, store: string): void {
  process.send?.({ type: 'listening', url, store } satisfies Listening);
}

export const isWorker = () => cluster.isWorker;
