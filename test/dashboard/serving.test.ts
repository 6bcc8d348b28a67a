// The gateway serves the built dashboard at / and its client paths, without shadowing the API's own paths; without a
// build, / says how to make one.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardRouter } from '../../app/dashboard.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
}, 120_000);
afterAll(() => gw?.close());

const get = (path: string, accept = 'text/html') => fetch(`${gw.url}${path}`, { headers: { Accept: accept } });

describe('the dashboard as the gateway serves it', () => {
  it('when / and a client path are opened, then both answer the app, and its hashed assets are cached for good', async () => {
    for (const path of ['/', '/projects/prj_x/entities/ent_y']) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html).toContain('<div id="root"></div>');
      const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1];
      const asset = await get(script, '*/*');
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toMatch(/immutable/);
    }
  });

  it("when the API's paths are asked for as a browser would, then they answer as before, never the app", async () => {
    const missingRoute = await get('/api/v1/nowhere');
    expect(missingRoute.status).toBe(404);
    expect(missingRoute.headers.get('content-type')).toMatch(/problem\+json/);
    // A client path asked for by an API client (any type, not a page) is a 404 problem too.
    expect((await get('/projects/prj_x', '*/*')).status).toBe(404);
    expect((await get('/health', '*/*')).status).toBe(200);
    for (const path of ['/docs/nowhere', '/errors/nowhere', '/assets/missing.js']) expect((await get(path)).status).toBe(404);
    const graphql = await fetch(`${gw.url}/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: '{ usage { used } }' }) });
    expect((await graphql.json()).errors[0].extensions.code).toBe('AUTH_MISSING_KEY');
  });

  it("when the app's JavaScript is gzipped, then it weighs under 500 kB in all", () => {
    const assets = new URL('../../dashboard/dist/assets/', import.meta.url);
    const sizes = readdirSync(assets).filter((f) => f.endsWith('.js')).map((f) => [f, gzipSync(readFileSync(new URL(f, assets)), { level: 9 }).length] as const);
    const total = sizes.reduce((n, [, size]) => n + size, 0);
    process.stdout.write(`dashboard JavaScript gzipped: ${(total / 1024).toFixed(0)} kB (${sizes.map(([f, size]) => `${f.replace(/-[\w-]+\.js$/, '')} ${(size / 1024).toFixed(0)} kB`).join(', ')})\n`);
    expect(total).toBeLessThan(500 * 1024);
  });

  it('when the dashboard is not built, then / says in one line how to build it', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'lore-dashboard-'));
    const app = express().use(dashboardRouter(`${empty}/`));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { headers: { Accept: 'text/html' } });
      expect(res.status).toBe(503);
      expect(await res.text()).toMatch(/npm run build:dashboard/);
    } finally {
      server.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
