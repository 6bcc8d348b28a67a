// Embeds what the outbox holds (the embeddings migration queues entities and facts in the transaction that changes
// their text): in batches, oldest first, after the write and never inside it. A provider outage stops the drain and
// retries with backoff, touching no row, so nothing is lost; a text the provider refuses on its own is retried alone,
// less and less often, while the others flow. One drainer at a time across processes (an advisory lock per step).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../logger.ts';
import { isProviderOutage, type EmbeddingProvider, type ProviderFailure } from './provider.ts';
import { textHash, type Backlog, type EmbeddingStore, type OutboxItem } from './store.ts';
import { DrainLock, Pause } from '../outboxDrain.ts';

const drainLockId = 4_242_005;
const batchSize = 64;
const idlePollMs = 500;
const backoff = { firstMs: 500, maxMs: 10_000 };
/** An item refused on its own: retried after 5 s, doubling, at most hourly. */
const itemRetry = { firstSeconds: 5, maxSeconds: 3_600 };
const batchTimeoutMs = 60_000;

/** The provider as a whole failed (unreachable, overloaded, refusing the key, too slow): the drain waits. */
class ProviderUnavailable extends Error {
  constructor(readonly failure: ProviderFailure) {
    super(failure.message);
  }
}

/** What GET /health shows for a failure that is not the provider's (the store's): its text stays in the log. */
const drainFailed = 'drain_failed';

export type EmbeddingHealth = Backlog & { provider: 'reachable' | 'unreachable' | 'unknown'; vectors: 'pgvector' | 'unavailable' | 'unknown' };
export type RebuildResult = { projectId: string | null; queued: number; waiting: number };

export class EmbeddingWorker {
  private loop?: Promise<void>;
  private stopping = false;
  private readonly pause = new Pause();
  private reachable: boolean | undefined;
  private vectors: boolean | undefined;
  /** the code of the last failure (GET /health shows it to anyone, so never the provider's text) */
  private lastError: string | undefined;
  /** the last store failure's text, logged again only when it changes */
  private lastDrainMessage: string | undefined;
  private readonly lock: DrainLock;

  constructor(
    private readonly store: EmbeddingStore,
    private readonly provider: EmbeddingProvider,
    connectionString: string,
    private readonly logger: Logger,
  ) {
    this.lock = new DrainLock(connectionString, drainLockId);
  }

  start(): void {
    this.stopping = false;
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.pause.wake();
    await this.loop;
    this.loop = undefined;
    await this.lock.close();
  }

  async health(): Promise<EmbeddingHealth> {
    const backlog = await this.store.backlog();
    return {
      ...backlog,
      lastError: this.lastError ?? backlog.lastError,
      provider: this.reachable === undefined ? 'unknown' : this.reachable ? 'reachable' : 'unreachable',
      vectors: this.vectors === undefined ? 'unknown' : this.vectors ? 'pgvector' : 'unavailable',
    };
  }

  /**
   * `lore embeddings rebuild`: queues every entity and approved fact of the project (or of all) to be embedded again
   * whatever is stored (for a model change), then embeds them here, alongside any gateway's worker. A provider outage
   * that outlasts `patienceMs` leaves the rest queued for the gateways and is thrown.
   */
  async rebuild(projectId?: string, patienceMs = 60_000): Promise<RebuildResult> {
    if (!(await this.store.available())) throw new Error('the database has no pgvector extension, so there is nowhere to keep vectors (see README, semantic search)');
    const queued = await this.store.queueAll(projectId);
    const projects = projectId ? [projectId] : undefined;
    let delayMs = 0;
    let failingSince: number | undefined;
    for (;;) {
      try {
        const handled = (await this.lock.run(() => this.drainBatch(projects), true)) ?? 0;
        failingSince = undefined;
        delayMs = 0;
        if (handled === 0) break;
      } catch (error) {
        failingSince ??= Date.now();
        if (Date.now() - failingSince > patienceMs) throw error;
        delayMs = Math.min(backoff.maxMs, Math.max(backoff.firstMs, delayMs * 2));
        await sleep(delayMs);
      }
    }
    // What is left failed on its own (the provider refused those texts): GET /health shows why.
    const waiting = projects ? await this.store.pendingIn(projects) : (await this.store.backlog()).pending;
    return { projectId: projectId ?? null, queued, waiting };
  }

  private async run(): Promise<void> {
    let delayMs = 0;
    while (!this.stopping) {
      await this.pause.wait(delayMs);
      if (this.stopping) break;
      try {
        if (!(await this.store.available())) {
          this.vectors = false;
          this.logger.warn('LORE_EMBEDDINGS_URL is set but the database has no pgvector extension: search stays lexical (see README, semantic search)');
          return;
        }
        this.vectors = true;
        const handled = (await this.lock.run(() => this.drainBatch())) ?? 0;
        delayMs = handled > 0 ? 0 : idlePollMs;
      } catch (error) {
        delayMs = Math.min(backoff.maxMs, Math.max(backoff.firstMs, delayMs * 2));
        this.failed(error, delayMs);
      }
    }
  }

  /** Settles the oldest due items (of `projectIds` only, when given); returns how many. */
  private async drainBatch(projectIds?: string[]): Promise<number> {
    const items = await this.store.dueItems(batchSize, projectIds);
    if (items.length === 0) return 0;
    const texts = await this.store.texts(items);
    const gone: OutboxItem[] = [];
    const current: OutboxItem[] = [];
    const fresh: { item: OutboxItem; entityId: string; text: string; hash: string }[] = [];
    for (const item of items) {
      const found = texts.get(item.itemId);
      if (!found?.text || !found.entityId) gone.push(item);
      else {
        const hash = textHash(found.text);
        if (!item.force && found.model === this.provider.model && found.textHash === hash) current.push(item);
        else fresh.push({ item, entityId: found.entityId, text: found.text, hash });
      }
    }
    await this.store.remove(gone);
    await this.store.finish(current);
    // Items that failed before go one at a time, so a text the provider refuses holds up no other.
    const retrying = fresh.filter((f) => f.item.attempts > 0);
    const batches = [fresh.filter((f) => f.item.attempts === 0), ...retrying.map((f) => [f])].filter((b) => b.length > 0);
    for (const batch of batches) {
      let vectors: number[][];
      try {
        vectors = await this.provider.embed(batch.map((f) => f.text), batchTimeoutMs);
      } catch (error) {
        const failure = this.provider.describe(error);
        if (isProviderOutage(error)) throw new ProviderUnavailable(failure);
        this.logger.warn({ items: batch.map((f) => f.item.itemId), error: failure.message }, 'the embedding provider refused texts: they are retried later');
        // The outbox keeps the code only: the provider's text may quote what it was sent.
        if (batch.length === 1) await this.store.failed(batch[0].item, failure.code, itemRetry.firstSeconds, itemRetry.maxSeconds);
        else for (const f of batch) await this.store.failed(f.item, failure.code, 0, 0); // retried alone, at once
        continue;
      }
      await this.store.write(this.provider.model, vectors[0].length, batch.map((f, i) => ({ ...f, vector: vectors[i] })));
      this.succeeded();
    }
    return items.length;
  }

  private succeeded(): void {
    if (this.reachable === false) this.logger.info('embedding provider reachable again: embedding what waited');
    this.reachable = true;
    this.lastError = undefined;
  }

  private failed(error: unknown, retryInMs: number): void {
    if (error instanceof ProviderUnavailable) {
      if (this.reachable !== false) this.logger.warn({ error: error.message, code: error.failure.code, retryInMs }, 'embedding provider unavailable: changes wait in the embedding outbox');
      this.reachable = false;
      this.lastError = error.failure.code;
      return;
    }
    const message = (error as Error)?.message ?? String(error);
    if (this.lastError !== drainFailed || message !== this.lastDrainMessage) this.logger.error({ error: message, retryInMs }, 'embedding outbox drain failed');
    this.lastError = drainFailed;
    this.lastDrainMessage = message;
  }
}
