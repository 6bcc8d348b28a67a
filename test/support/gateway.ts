// A real gateway on a loopback port over its own PostgreSQL database, and helpers to call it over HTTP.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { KeyOptions } from '../../src/core/access/keys.ts';
import { startGateway, type Gateway } from '../../app/gateway.ts';
import { adminUrl, databaseUrl } from './env.ts';
import { saltmarshBundle } from './fixtures.ts';
import { apiRequest, spawnGateways, type GatewayProcess } from './processes.ts';

export async function createTestDatabase(): Promise<string> {
  const name = `${inject('templateDatabase')}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('templateDatabase')}`);
  } finally {
    await admin.end();
  }
  return databaseUrl(name);
}

export type TestGateway = {
  url: string;
  api: string;
  databaseUrl: string;
  gateway: Gateway;
  createKey(tier: KeyOptions['tier'], options?: Omit<KeyOptions, 'tier'>): Promise<{ id: string; key: string; account: string }>;
  request(path: string, init?: RequestInit & { key?: string; json?: unknown }): Promise<ApiResponse>;
  graphql(query: string, variables?: Record<string, unknown>, key?: string): Promise<{ data?: any; errors?: any[] }>;
  close(): Promise<void>;
};

export type ApiResponse = { status: number; headers: Headers; body: any; text: string };

export async function startTestGateway(env: Record<string, string> = {}): Promise<TestGateway> {
  const dbUrl = env.DATABASE_URL ?? (await createTestDatabase());
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LORE_LOG_LEVEL: 'silent', ...env, DATABASE_URL: dbUrl });
  const gateway = await startGateway(config);
  const api = `${gateway.url}/api/v1`;
  const request = apiRequest(api);
  return {
    url: gateway.url,
    api,
    databaseUrl: dbUrl,
    gateway,
    createKey: (tier, options = {}) => gateway.runtime.services.keys.create({ tier, ...options }),
    request,
    async graphql(query, variables = {}, key) {
      const res = await request(`${gateway.url}/graphql`, { method: 'POST', key, json: { query, variables } });
      return res.body;
    },
    close: async () => {
      await gateway.close();
    },
  };
}

/** Imports a bundle through the GraphQL mutation, as `lore import` does. */
export async function importBundle(gw: TestGateway, key: string, bundle: unknown, projectId?: string) {
  const result = await gw.graphql(
    'mutation ($bundle: JSON!, $projectId: ID) { importBundle(bundle: $bundle, projectId: $projectId) { projectId changed counts { entitiesCreated mentionsRecorded } } }',
    { bundle, projectId },
    key,
  );
  if (result.errors) throw new Error(`import failed: ${JSON.stringify(result.errors)}`);
  return result.data.importBundle as { projectId: string; changed: boolean; counts: { entitiesCreated: number; mentionsRecorded: number } };
}

/** A gateway of its own with a pro key's owner, the saltmarsh project imported and Mara Voss's entity id. */
export async function gatewayWithSaltmarsh() {
  const gw = await startTestGateway();
  const owner = await gw.createKey('pro');
  const { projectId } = await importBundle(gw, owner.key, saltmarshBundle());
  const recall = await gw.request(`/projects/${projectId}/recall?q=Mara Voss`, { key: owner.key });
  return { gw, owner, projectId, maraId: recall.body.entities[0].id as string };
}

/** A project's entity ids by canonical name, read through recall as any client would. */
export async function entityIdsByName(gw: TestGateway, key: string, projectId: string): Promise<Record<string, string>> {
  const recall = await gw.request(`/projects/${projectId}/recall?limit=100`, { key });
  if (recall.status !== 200) throw new Error(`recall failed: ${recall.text}`);
  return Object.fromEntries(recall.body.entities.map((e: { canonicalName: string; id: string }) => [e.canonicalName, e.id]));
}

/** `count` more gateways on `databaseUrl()`, started before the enclosing tests and stopped after them. */
export function sharedGateways(count: number, databaseUrl: () => string): GatewayProcess[] {
  const processes: GatewayProcess[] = [];
  beforeAll(async () => {
    processes.push(...(await spawnGateways(count, databaseUrl())));
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
  });
  return processes;
}
