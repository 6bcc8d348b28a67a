// Quotas: what each endpoint costs, what a failure costs (nothing), 402 once the quota is spent, and that concurrent
// calls on one or several gateway processes never spend past it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageSummary } from '../../rest/schemas.ts';
import { gatewayWithSaltmarsh, sharedGateways, startTestGateway, type ApiResponse, type TestGateway } from '../support/gateway.ts';
import { expectProblem } from '../support/problem.ts';

let gw: TestGateway;
let owner: { id: string; key: string; account: string };
let projectId: string;
let entityId: string;

beforeAll(async () => {
  ({ gw, owner, projectId, maraId: entityId } = await gatewayWithSaltmarsh());
});
afterAll(() => gw?.close());

/** Another key on the owner's account: it sees the saltmarsh project and has a quota of its own. */
const ownerKey = (tier: 'free' | 'pro' | 'enterprise', options: { customQuota?: number; customRate?: number } = {}) =>
  gw.createKey(tier, { accountId: owner.account, ...options });

async function usage(key: string, via: { request: TestGateway['request'] } = gw) {
  const res = await via.request('/usage', { key });
  expect(res.status).toBe(200);
  return UsageSummary.strict().parse(res.body);
}

describe('usage summary', () => {
  it('when each tier reads /usage, then period, quota and rate are the contract table', async () => {
    const expected = {
      free: { period: 'day', quota: 50, rate_limit_per_minute: 30 },
      indie: { period: 'month', quota: 1_000, rate_limit_per_minute: 60 },
      pro: { period: 'month', quota: 10_000, rate_limit_per_minute: 60 },
      studio: { period: 'month', quota: 100_000, rate_limit_per_minute: 600 },
      studio_managed: { period: 'month', quota: 100_000, rate_limit_per_minute: 600 },
    } as const;
    for (const [tier, limits] of Object.entries(expected)) {
      const created = await gw.createKey(tier as keyof typeof expected);
      const summary = await usage(created.key);
      // A new key has not opened a rate-limit window: the whole minute's requests remain.
      expect(summary, tier).toEqual({
        api_key_id: created.id, used: 0, remaining: limits.quota, ...limits,
        rate_limit_remaining: limits.rate_limit_per_minute, rate_limit_reset_seconds: 60,
      });
    }
  });

  it('when an enterprise key has a custom quota and rate, then /usage reports them', async () => {
    const created = await gw.createKey('enterprise', { customQuota: 1234, customRate: 77 });
    expect(await usage(created.key)).toEqual({
      api_key_id: created.id, period: 'month', used: 0, quota: 1234, remaining: 1234, rate_limit_per_minute: 77,
      rate_limit_remaining: 77, rate_limit_reset_seconds: 60,
    });
  });
});

describe('cost per endpoint', () => {
  it('when each endpoint is called once, then /usage rises by exactly its contract cost', async () => {
    const { key } = await ownerKey('pro');
    const calls: [string, number, () => Promise<ApiResponse>][] = [
      ['GET /projects', 0, () => gw.request('/projects', { key })],
      ['POST /projects', 1, () => gw.request('/projects', { method: 'POST', key, json: { name: 'Costs one' } })],
      ['recall', 1, () => gw.request(`/projects/${projectId}/recall`, { key })],
      ['mentions', 1, () => gw.request(`/projects/${projectId}/recall/${entityId}/mentions`, { key })],
      ['approve', 1, () => gw.request(`/projects/${projectId}/canon/${entityId}/approve`, { method: 'POST', key, json: { fact: 'Mara never sleeps ashore.' } })],
      ['search', 2, () => gw.request(`/projects/${projectId}/search?q=Heron`, { key })],
      ['graph', 1, () => gw.request(`/projects/${projectId}/graph`, { key })],
      ['usage', 0, () => gw.request('/usage', { key })],
    ];
    let total = 0;
    for (const [name, cost, call] of calls) {
      const before = (await usage(key)).used;
      const res = await call();
      expect(res.status, `${name}: ${res.text}`).toBeLessThan(300);
      const after = await usage(key);
      expect(after.used - before, name).toBe(cost);
      expect(after.remaining).toBe(after.quota - after.used);
      total += cost;
    }
    expect((await usage(key)).used).toBe(total);
  });

  it('when GET /projects and /usage are called many times, then nothing is spent', async () => {
    const { key } = await ownerKey('pro');
    for (let i = 0; i < 5; i++) {
      expect((await gw.request('/projects', { key })).status).toBe(200);
      expect((await gw.request('/usage', { key })).status).toBe(200);
    }
    expect((await usage(key)).used).toBe(0);
  });

  it('when one key spends, then another key of the same account keeps its own count', async () => {
    const a = await ownerKey('pro');
    const b = await ownerKey('pro');
    expect((await gw.request(`/projects/${projectId}/search?q=Keth`, { key: a.key })).status).toBe(200);
    expect((await usage(a.key)).used).toBe(2);
    expect((await usage(b.key)).used).toBe(0);
  });
});

describe('failed requests cost nothing', () => {
  it('when requests fail with 400, 403 or 404, then /usage is unchanged', async () => {
    const { key } = await ownerKey('pro');
    const failures: [number, () => Promise<ApiResponse>][] = [
      [404, () => gw.request('/projects/prj_unknown/recall', { key })],
      [404, () => gw.request('/projects/prj_unknown/graph', { key })],
      [404, () => gw.request('/projects/prj_unknown/search?q=Mara', { key })],
      [404, () => gw.request(`/projects/${projectId}/recall/ent_unknown/mentions`, { key })],
      [404, () => gw.request(`/projects/${projectId}/canon/ent_unknown/approve`, { method: 'POST', key })],
      [400, () => gw.request(`/projects/${projectId}/recall/${entityId}/mentions?limit=0`, { key })],
      [400, () => gw.request(`/projects/${projectId}/recall/${entityId}/mentions?limit=101`, { key })],
      [400, () => gw.request(`/projects/${projectId}/search?q=Mara&limit=abc`, { key })],
      [400, () => gw.request(`/projects/${projectId}/search`, { key })],
      [400, () => gw.request(`/projects/${projectId}/recall/${entityId}/mentions?starting_after=no%20such`, { key })],
      [400, () => gw.request('/projects', { method: 'POST', key, json: { name: '' } })],
    ];
    for (const [status, call] of failures) {
      const res = await call();
      expect(res.status, res.text).toBe(status);
    }
    expect((await usage(key)).used).toBe(0);

    // A scope failure is refused before any spending too.
    const free = await ownerKey('free');
    expect((await gw.request('/projects', { method: 'POST', key: free.key, json: { name: 'x' } })).status).toBe(403);
    expect((await usage(free.key)).used).toBe(0);
  });

  it('when another account asks for a project, then 404 and nothing spent', async () => {
    const stranger = await gw.createKey('pro');
    expectProblem(await gw.request(`/projects/${projectId}/recall`, { key: stranger.key }), 404, 'not_found');
    expect((await usage(stranger.key)).used).toBe(0);
  });

  it('when a request is replayed with its Idempotency-Key, then the replay costs nothing', async () => {
    const { key } = await ownerKey('pro');
    const send = () => gw.request('/projects', { method: 'POST', key, json: { name: 'Replayed' }, headers: { 'Idempotency-Key': 'quota-replay-1' } });
    const first = await send();
    expect(first.status).toBe(201);
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect((await usage(key)).used).toBe(1);
  });
});

describe('quota exceeded', () => {
  it('when a custom quota of 5 is spent, then the next call is a 402 quota-exceeded problem and zero-cost calls still work', async () => {
    const { key } = await ownerKey('enterprise', { customQuota: 5 });
    for (let i = 0; i < 5; i++) expect((await gw.request(`/projects/${projectId}/recall`, { key })).status).toBe(200);
    const res = await gw.request(`/projects/${projectId}/recall`, { key });
    expectProblem(res, 402, 'quota_exceeded');
    expect(res.body.type).toBe(`${gw.url}/errors/quota-exceeded`);
    expect(res.body.instance).toBe(`/api/v1/projects/${projectId}/recall`);
    expect(res.body.detail).toMatch(/quota/i);
    expect(res.headers.get('retry-after')).toBeNull();
    expectProblem(await gw.request('/projects', { method: 'POST', key, json: { name: 'Too late' } }), 402, 'quota_exceeded');

    expect(await usage(key)).toMatchObject({ used: 5, quota: 5, remaining: 0 });
    const list = await gw.request('/projects', { key });
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: { name: string }) => p.name)).not.toContain('Too late');
  });

  it('when LORE_SITE_URL is set, then the quota-exceeded type is under that site', async () => {
    const site = await startTestGateway({ LORE_SITE_URL: 'https://lore.example.com/' });
    try {
      const { key } = await site.createKey('enterprise', { customQuota: 1 });
      expect((await site.request('/projects', { method: 'POST', key, json: { name: 'Only one' } })).status).toBe(201);
      const res = await site.request('/projects', { method: 'POST', key, json: { name: 'One too many' } });
      expectProblem(res, 402, 'quota_exceeded');
      expect(res.body.type).toBe('https://lore.example.com/errors/quota-exceeded');
    } finally {
      await site.close();
    }
  });

  it('when a call costs more than what remains, then 402 and the remainder is kept for a cheaper call', async () => {
    const { key } = await ownerKey('enterprise', { customQuota: 3 });
    expect((await gw.request(`/projects/${projectId}/search?q=Mara`, { key })).status).toBe(200);
    expectProblem(await gw.request(`/projects/${projectId}/search?q=Mara`, { key }), 402, 'quota_exceeded');
    expect((await usage(key)).used).toBe(2);
    expect((await gw.request(`/projects/${projectId}/graph`, { key })).status).toBe(200);
    expect(await usage(key)).toMatchObject({ used: 3, remaining: 0 });
  });

  it('when a free key spends its 50 daily calls, then 402 quota_exceeded', async () => {
    const { key } = await ownerKey('free');
    // 25 searches at 2 calls each stay under the free tier's 30 requests per minute.
    for (let i = 0; i < 25; i++) {
      const res = await gw.request(`/projects/${projectId}/search?q=Gull`, { key });
      expect(res.status, res.text).toBe(200);
    }
    expect(await usage(key)).toMatchObject({ period: 'day', used: 50, remaining: 0 });
    expectProblem(await gw.request(`/projects/${projectId}/graph`, { key }), 402, 'quota_exceeded');
    expect((await usage(key)).used).toBe(50);
  });
});

describe('concurrency', () => {
  it('when 200 calls race for a quota of 50 on one gateway, then exactly 50 succeed and the rest get 402', async () => {
    const { key } = await ownerKey('enterprise', { customQuota: 50, customRate: 10_000 });
    const results = await Promise.all(Array.from({ length: 200 }, () => gw.request(`/projects/${projectId}/recall`, { key })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(50);
    expect(statuses.filter((s) => s === 402)).toHaveLength(150);
    expect(await usage(key)).toMatchObject({ used: 50, remaining: 0 });
  });

  it('when calls of different costs race for the last units, then a call is refused only when it no longer fits', async () => {
    const { key } = await ownerKey('enterprise', { customQuota: 7, customRate: 10_000 });
    const calls = Array.from({ length: 12 }, (_, i) =>
      i % 2 === 0 ? { cost: 2, path: `/projects/${projectId}/search?q=Mara` } : { cost: 1, path: `/projects/${projectId}/recall?q=Mara` },
    );
    const statuses = (await Promise.all(calls.map((c) => gw.request(c.path, { key })))).map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 402), String(statuses)).toBe(true);
    const spent = calls.reduce((sum, c, i) => sum + (statuses[i] === 200 ? c.cost : 0), 0);
    const { used } = await usage(key);
    expect(used).toBe(spent);
    expect(used).toBeLessThanOrEqual(7);
    for (const [i, c] of calls.entries()) if (statuses[i] === 402) expect(c.cost).toBeGreaterThan(7 - used);
  });

  describe('across gateway processes sharing one database', () => {
    const processes = sharedGateways(2, () => gw.databaseUrl);

    it('when 200 calls for a quota of 50 are split over three gateways, then successes never exceed 50 and used equals them', async () => {
      const { key } = await ownerKey('enterprise', { customQuota: 50, customRate: 10_000 });
      const gateways = [...processes, gw];
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) => gateways[i % gateways.length].request(`/projects/${projectId}/recall`, { key })),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.every((s) => s === 200 || s === 402), String(statuses)).toBe(true);
      const succeeded = statuses.filter((s) => s === 200).length;
      expect(succeeded).toBe(50);
      for (const via of gateways) expect(await usage(key, via)).toMatchObject({ used: succeeded, remaining: 0 });
    });

    it('when creations race on several gateways, then the quota holds and exactly the successful ones exist', async () => {
      const { key } = await ownerKey('enterprise', { customQuota: 20, customRate: 10_000 });
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          processes[i % processes.length].request('/projects', { method: 'POST', key, json: { name: `Race ${i}` } })),
      );
      const created = results.filter((r) => r.status === 201);
      expect(created).toHaveLength(20);
      expect(results.filter((r) => r.status === 402)).toHaveLength(40);
      const names = (await gw.request('/projects', { key })).body.data.map((p: { name: string }) => p.name);
      expect(names.filter((n: string) => n.startsWith('Race '))).toHaveLength(20);
      expect((await usage(key)).used).toBe(20);
    });
  });
});
