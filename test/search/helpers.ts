// What the semantic search tests share, on PostgreSQL and on PGlite: a search over HTTP, the names it answers, the
// ranking header, and waiting for the embedding worker to drain.
import { expect } from 'vitest';
import { EntitiesEnvelope } from '../../rest/schemas.ts';
import type { ApiResponse } from '../support/gateway.ts';
import { waitFor } from '../support/wait.ts';

export type Surface = { url: string; request(path: string, init?: RequestInit & { key?: string; json?: unknown }): Promise<ApiResponse> };

export async function search(gw: Surface, key: string, projectId: string, q: string, extra: Record<string, string> = {}) {
  const res = await gw.request(`/projects/${projectId}/search?${new URLSearchParams({ q, ...extra })}`, { key });
  expect(res.status, res.text).toBe(200);
  EntitiesEnvelope.parse(res.body);
  return { names: res.body.entities.map((e: { canonicalName: string }) => e.canonicalName) as string[], ranking: res.headers.get('lore-search-ranking'), res };
}

export async function health(gw: Surface) {
  const res = await fetch(`${gw.url}/health`);
  expect(res.status).toBe(200);
  return (await res.json()) as { embeddings?: { provider: string; model: string; vectors: string; outbox_pending: number; oldest_pending_age_seconds: number | null; last_error: string | null } };
}

/** Waits until the embedding outbox is empty (every vector stored). */
export function drained(gw: Surface, timeoutMs = 60_000) {
  return waitFor('the embedding outbox to drain', async () => ((await health(gw)).embeddings?.outbox_pending === 0 ? true : undefined), timeoutMs);
}

/** Every page of a search, `limit` at a time, following next_starting_after. */
export async function walk(gw: Surface, key: string, projectId: string, q: string, limit: number) {
  const names: string[] = [];
  let after: string | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const page = await search(gw, key, projectId, q, { limit: String(limit), ...(after ? { starting_after: after } : {}) });
    expect(page.ranking).toBe('hybrid');
    expect(page.names.length).toBeLessThanOrEqual(limit);
    names.push(...page.names);
    if (!page.res.body.has_more) {
      expect(page.res.body.next_starting_after).toBeUndefined();
      return names;
    }
    after = page.res.body.next_starting_after;
    expect(after).toBe(page.res.body.entities.at(-1).id);
  }
  throw new Error('more than 100 pages');
}

export const embeddingEnv = (fakeUrl: string, model = 'fake-embed-1') => ({
  LORE_EMBEDDINGS_URL: fakeUrl,
  LORE_EMBEDDINGS_MODEL: model,
  LORE_EMBEDDINGS_KEY: 'sk-fake-embeddings-key',
  LORE_EMBEDDINGS_MIN_SIMILARITY: '0.3',
});
