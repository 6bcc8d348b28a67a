// Shared steps of the graph tests: import a bundle through GraphQL and learn its ids, wait for the outbox to drain.
import { expect } from 'vitest';
import { importBundle, type TestGateway } from '../support/gateway.ts';
import { waitFor } from '../support/wait.ts';
import type { Bundle } from './fixtures.ts';
import type { ImportedGraph } from './graphStoreContract.ts';

export async function importGraph(gw: TestGateway, key: string, bundle: Bundle, projectId?: string): Promise<ImportedGraph> {
  const result = await importBundle(gw, key, bundle, projectId);
  const rows = await gw.gateway.runtime.services.prisma.entity.findMany({ where: { projectId: result.projectId }, select: { id: true, key: true } });
  return { projectId: result.projectId, bundle, idOf: new Map(rows.map((r) => [r.key, r.id])) };
}

export type GraphSyncHealth = { neo4j: string; outbox_pending: number; oldest_pending_age_seconds: number | null; last_error: string | null };

export async function graphSync(gw: { url: string; request: TestGateway['request'] }): Promise<GraphSyncHealth> {
  const res = await gw.request(`${gw.url}/health`);
  expect(res.status).toBe(200);
  return res.body.graph_sync;
}

/** Waits until Neo4j holds every change recorded so far (the outbox is empty and the worker reaches Neo4j). */
export function drained(gw: { url: string; request: TestGateway['request'] }, timeoutMs = 120_000): Promise<GraphSyncHealth> {
  return waitFor(
    'the graph outbox to drain',
    async () => {
      const sync = await graphSync(gw);
      return sync.outbox_pending === 0 && sync.neo4j === 'reachable' ? sync : undefined;
    },
    timeoutMs,
  );
}
