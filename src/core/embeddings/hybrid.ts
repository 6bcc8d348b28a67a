// Hybrid ranking for search: the lexical ranking (full text and trigram, as lexical search ranks) fused with the
// ranking by meaning (the entities whose search text or approved facts lie nearest to the query's vector) by
// reciprocal rank fusion, in the statement that reads the page (store.ts fusedRanking). It answers "lexical" when it
// cannot rank by meaning: the database has no pgvector, the project has no vector of the configured model yet, or
// the provider could not embed the query just now.
import type { EmbeddingsConfig } from '../../config.ts';
import type { QueryVectors } from './queryVectors.ts';
import type { EmbeddingStore, HybridSearch } from './store.ts';

/** How deep each ranking goes into the fusion: the best lexical matches, and the entities nearest by meaning. */
export const lexicalDepth = 1_000;
export const vectorDepth = 50;

export type SearchRanking = 'hybrid' | 'lexical';

export type RankOutcome =
  /** the project may still turn out to have no vector of the model (the page's statement tells) */
  | { ranking: 'hybrid'; search: HybridSearch }
  /** `transient`: the provider failed; the answer is not to be kept in a cache */
  | { ranking: 'lexical'; transient: boolean }
  | { ranking: 'not_found' };

export class HybridRanker {
  constructor(
    private readonly store: EmbeddingStore,
    private readonly queries: QueryVectors,
    private readonly config: EmbeddingsConfig,
  ) {}

  /** How to rank the query by meaning, once its vector is known. */
  async rank(accountId: string, projectId: string, q: string): Promise<RankOutcome> {
    if (!(await this.store.available())) return { ranking: 'lexical', transient: false };
    // A query searched before has its vector kept (queryVectors.ts): the page's statement alone says whether the
    // project is the account's and has vectors, one round trip in all. Another query is sent to the provider only
    // once the probe has said both.
    let vector = this.queries.cached(q);
    if (!vector) {
      const { owned, vectors } = await this.store.probe(accountId, projectId, this.config.model);
      if (!owned) return { ranking: 'not_found' };
      if (!vectors) return { ranking: 'lexical', transient: false };
      vector = await this.queries.vectorFor(q);
      if (!vector) return { ranking: 'lexical', transient: true };
    }
    await this.store.ensureDimension(vector.length);
    return { ranking: 'hybrid', search: { model: this.config.model, vector, maxDistance: 1 - this.config.minSimilarity, lexicalDepth, vectorDepth } };
  }
}
