import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tierPolicies } from '../../src/core/access/tiers.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectProblem as expectProblemAt } from '../support/problem.ts';
import type { ApiResponse } from '../support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw?.close());

const expectProblem = (res: ApiResponse, status: number, code: string, instance: string) =>
  expectProblemAt(res, status, code, { instance, site: gw.url });

describe('authentication', () => {
  it('when no key is sent, then 401 AUTH_MISSING_KEY on every endpoint', async () => {
    for (const path of ['/projects', '/usage', '/projects/prj_x/recall', '/projects/prj_x/search?q=a', '/projects/prj_x/graph']) {
      expectProblem(await gw.request(path), 401, 'AUTH_MISSING_KEY', `/api/v1${path.split('?')[0]}`);
    }
    expectProblem(await gw.request('/projects', { method: 'POST', json: { name: 'x' } }), 401, 'AUTH_MISSING_KEY', '/api/v1/projects');
  });

  it('when the key is malformed or unknown, then 401 AUTH_INVALID_KEY', async () => {
    expectProblem(await gw.request('/usage', { key: 'not-a-key' }), 401, 'AUTH_INVALID_KEY', '/api/v1/usage');
    expectProblem(await gw.request('/usage', { key: `sk_lore_${'A'.repeat(40)}` }), 401, 'AUTH_INVALID_KEY', '/api/v1/usage');
    expectProblem(await gw.request('/usage', { headers: { Authorization: 'Basic abc' } }), 401, 'AUTH_INVALID_KEY', '/api/v1/usage');
  });

  it('when the key has expired, then 401 AUTH_EXPIRED_KEY', async () => {
    const { key } = await gw.createKey('pro', { expiresAt: new Date(Date.now() - 1000) });
    expectProblem(await gw.request('/usage', { key }), 401, 'AUTH_EXPIRED_KEY', '/api/v1/usage');
  });

  it('when a key is revoked, then it stops at once', async () => {
    const created = await gw.createKey('pro');
    expect((await gw.request('/usage', { key: created.key })).status).toBe(200);
    await gw.gateway.runtime.services.keys.revoke(created.id);
    expectProblem(await gw.request('/usage', { key: created.key }), 401, 'AUTH_INVALID_KEY', '/api/v1/usage');
  });

  it('when a key is rotated, then the old one stops, the new one works and the projects stay', async () => {
    const old = await gw.createKey('pro');
    const created = await gw.request('/projects', { method: 'POST', key: old.key, json: { name: 'Kept across rotation' } });
    expect(created.status).toBe(201);
    const rotated = await gw.gateway.runtime.services.keys.rotate(old.id);
    expect(rotated.key).toMatch(/^sk_lore_[0-9A-Za-z]{40}$/);
    expect(rotated.account).toBe(old.account);
    expect((await gw.request('/projects', { key: old.key })).status).toBe(401);
    const list = await gw.request('/projects', { key: rotated.key });
    expect(list.body.data.map((p: any) => p.id)).toContain(created.body.id);
  });

  it('when keys are created, then the secret has the contract format and only its hash is stored', async () => {
    const created = await gw.createKey('indie');
    expect(created.key).toMatch(/^sk_lore_[0-9A-Za-z]{32,}$/);
    const row = await gw.gateway.runtime.services.prisma.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    expect(JSON.stringify(row)).not.toContain(created.key);
    expect(JSON.stringify(row)).not.toContain(created.key.slice(12));
  });

  it('when the legacy x-api-key header is used, then it works and carries the four deprecation headers', async () => {
    const { key } = await gw.createKey('pro');
    const res = await gw.request('/usage', { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('deprecation')).toBe('true');
    expect(res.headers.get('sunset')).toBe('2026-05-01T00:00:00Z');
    expect(res.headers.get('link')).toBe(`<${gw.url}/docs/auth#migration>; rel="deprecation"`);
    expect(res.headers.get('x-deprecation-notice')).toMatch(/Authorization: Bearer/);
    const bearer = await gw.request('/usage', { key });
    expect(bearer.headers.get('deprecation')).toBeNull();
  });
});

describe('scopes by tier', () => {
  it('when each tier is created, then its scopes are exactly the contract table', () => {
    expect([...tierPolicies.free.scopes].sort()).toEqual(['graph', 'recall', 'remember', 'search']);
    expect([...tierPolicies.indie.scopes].sort()).toEqual(['check', 'graph', 'recall', 'remember', 'search', 'timeline', 'usage']);
    expect([...tierPolicies.pro.scopes].sort()).toEqual(
      ['check', 'graph', 'projects:read', 'projects:write', 'recall', 'remember', 'search', 'timeline', 'usage'],
    );
    expect(tierPolicies.studio.scopes).toContain('audit:read');
    expect(tierPolicies.studio.scopes).not.toContain('managed_llm');
    expect(tierPolicies.studio_managed.scopes).toContain('managed_llm');
  });

  it('when a free key lists or creates projects, then 403 insufficient_scope', async () => {
    const { key } = await gw.createKey('free');
    expectProblem(await gw.request('/projects', { key }), 403, 'insufficient_scope', '/api/v1/projects');
    const res = await gw.request('/projects', { method: 'POST', key, json: { name: 'x' } });
    expectProblem(res, 403, 'insufficient_scope', '/api/v1/projects');
    expect(res.body.detail).toContain('projects:write');
  });

  it('when an indie key lists projects, then 403, and usage (any scope) answers 200', async () => {
    const { key } = await gw.createKey('indie');
    expect((await gw.request('/projects', { key })).status).toBe(403);
    expect((await gw.request('/usage', { key })).status).toBe(200);
  });
});

describe('every response', () => {
  it('when anything is answered, then it carries X-Request-Id and Lore-Api-Version 1.0', async () => {
    const { key } = await gw.createKey('pro');
    for (const res of [await gw.request('/projects', { key }), await gw.request('/nowhere', { key }), await gw.request(`${gw.url}/health`)]) {
      expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
      expect(res.headers.get('lore-api-version')).toBe('1.0');
    }
  });

  it('when a path is unknown or the method wrong, then a 404 or 405 problem', async () => {
    const { key } = await gw.createKey('pro');
    expectProblem(await gw.request('/nowhere', { key }), 404, 'not_found', '/api/v1/nowhere');
    const res = await gw.request('/usage', { method: 'DELETE', key });
    expectProblem(res, 405, 'method_not_allowed', '/api/v1/usage');
    expect(res.headers.get('allow')).toBe('GET');
  });
});

describe('feature flag', () => {
  it('when TRACK_2_API_ENABLED=false, then /api/v1 answers 503 feature_disabled', async () => {
    const off = await startTestGateway({ TRACK_2_API_ENABLED: 'false' });
    try {
      const { key } = await off.createKey('pro');
      const res = await off.request('/projects', { key });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('feature_disabled');
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    } finally {
      await off.close();
    }
  });
});
