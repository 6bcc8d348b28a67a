// Query vectors for search: each distinct query text is embedded once (a small LRU cache per process; concurrent
// requests for the same text share one call), and a failing provider is left alone for a few seconds, so searches
// answer lexically at once instead of each waiting for it to fail again.
import { LRUCache } from 'lru-cache';
import type { Logger } from '../../logger.ts';
import type { EmbeddingProvider } from './provider.ts';

const cachedQueries = 1_000;
const pauseAfterFailureMs = 5_000;

export class QueryVectors {
  private readonly cache = new LRUCache<string, number[]>({ max: cachedQueries });
  private readonly pending = new Map<string, Promise<number[] | undefined>>();
  private pausedUntil = 0;

  constructor(
    private readonly provider: EmbeddingProvider,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {}

  /** The query's vector if it is kept from an earlier search, without asking the provider. */
  cached(text: string): number[] | undefined {
    return this.cache.get(text);
  }

  /** The query's vector, or undefined when the provider failed (now, or within the last few seconds). */
  vectorFor(text: string): Promise<number[] | undefined> {
    const cached = this.cache.get(text);
    if (cached) return Promise.resolve(cached);
    if (Date.now() < this.pausedUntil) return Promise.resolve(undefined);
    let vector = this.pending.get(text);
    if (!vector) {
      vector = this.provider.embed([text], this.timeoutMs).then(
        ([v]) => {
          this.cache.set(text, v);
          return v;
        },
        (error: unknown) => {
          this.pausedUntil = Date.now() + pauseAfterFailureMs;
          this.logger.warn({ error: this.provider.describe(error).message }, 'embedding a search query failed: searches rank lexically for a few seconds');
          return undefined;
        },
      );
      this.pending.set(text, vector);
      void vector.finally(() => this.pending.delete(text));
    }
    return vector;
  }
}
