// Issue 25, item 1: a store that cannot be reached is 503 store_unavailable with Retry-After on every surface (REST,
// GraphQL, MCP, the CLI), never a scope or auth error; once it is back, the gateway answers again by itself. The store
// is a real PostgreSQL reached through a TCP relay the test can cut, as a network or a database restart would.
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanFailure, lore } from '../support/cli.ts';
import { createTestDatabase } from '../support/gateway.ts';
import { spawnGateway, type GatewayProcess } from '../support/processes.ts';
import { callTool, connectMcp, expectToolError, textOf, type McpSession } from '../mcp/harness.ts';

/** A TCP relay to PostgreSQL that can be cut (every connection dropped, the port refusing) and restored. */
async function relay(target: URL) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const up = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  await up();
  return {
    url: (() => {
      const url = new URL(target);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    })(),
    up,
    down: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server!.close(() => resolve());
      }),
  };
}

let store: Awaited<ReturnType<typeof relay>>;
let gateway: GatewayProcess;
let mcp: McpSession;
let key: string;
let dataDir: string;

beforeAll(async () => {
  store = await relay(new URL(await createTestDatabase()));
  dataDir = await mkdtemp(path.join(tmpdir(), 'lore-unavailable-'));
  const created = await lore(['keys', 'create', '--tier', 'pro', '--json'], { DATABASE_URL: store.url });
  expect(created.code, created.stderr).toBe(0);
  key = JSON.parse(created.stdout).key;
  gateway = await spawnGateway(store.url);
  mcp = await connectMcp({ DATABASE_URL: store.url, LORE_API_KEY: key, LORE_LOG_LEVEL: 'silent' }, ['bin/lore.mjs', 'mcp', '--embedded']);
}, 180_000);

afterAll(async () => {
  await mcp?.close();
  await gateway?.stop();
  await store?.down().catch(() => undefined);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const graphql = (query: string) =>
  fetch(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query }),
  });

describe('a store that cannot be reached', { timeout: 120_000 }, () => {
  it('when PostgreSQL goes away, then REST, GraphQL, MCP and the CLI say store_unavailable with Retry-After, and all answer again once it is back', async () => {
    expect((await gateway.request('/projects', { key })).status).toBe(200);
    const before = await callTool(mcp, 'lore_author_recall', { project: 'prj_00000000000000000000000000' });
    expect(textOf(before)).toMatch(/^Lore error not_found/);

    await store.down();

    const rest = await fetch(`${gateway.api}/projects`, { headers: { Authorization: `Bearer ${key}` } });
    const problem = await rest.json();
    expect(rest.status, JSON.stringify(problem)).toBe(503);
    expect(problem.code).toBe('store_unavailable');
    expect(rest.headers.get('retry-after')).toBe('5');

    const graph = await graphql('{ projects { id } }');
    const body = await graph.json();
    expect(body.errors?.[0]?.extensions?.code, JSON.stringify(body)).toBe('store_unavailable');
    expect(graph.status).toBe(503);
    expect(graph.headers.get('retry-after')).toBe('5');

    expect((await fetch(`${gateway.url}/health`)).status).toBe(503);

    const tool = await callTool(mcp, 'lore_author_recall', { project: 'prj_00000000000000000000000000' });
    expect(expectToolError(tool, 'store_unavailable', 503)).toContain('Wait 5 seconds');

    const exported = await lore(['export', '--project', 'prj_00000000000000000000000000', '--key', key], { LORE_API_URL: gateway.url, LORE_DATA_DIR: dataDir });
    expectCleanFailure(exported, /^lore: export failed \(store_unavailable\)/m);

    await store.up();
    expect((await gateway.request('/projects', { key })).status).toBe(200);
    const again = await callTool(mcp, 'lore_author_recall', { project: 'prj_00000000000000000000000000' });
    expect(textOf(again)).toMatch(/^Lore error not_found/);
  });
});
