// Rate limits: 429 rate_limited with Retry-After once a key passes its requests per minute, on one gateway and across
// gateway processes sharing one database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Problem } from '../../rest/schemas.ts';
import { sharedGateways, startTestGateway, type ApiResponse, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let account: string;
let projectId: string;

beforeAll(async () => {
  gw = await startTestGateway();
  const owner = await gw.createKey('pro');
  account = owner.account;
  projectId = (await gw.request('/projects', { method: 'POST', key: owner.key, json: { name: 'Rate limited' } })).body.id;
});
afterAll(() => gw?.close());

/** Quota as the /usage endpoint would report it, read without spending a request of the limited key. */
async function used(key: string): Promise<number> {
  const { services } = gw.gateway.runtime;
  return (await services.metering.usage(await services.keys.authenticate(key))).used;
}

function expectRateLimited(res: ApiResponse, instance: string, baseUrl = gw.url) {
  expect(res.status, res.text).toBe(429);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(Problem.parse(res.body)).toMatchObject({ status: 429, code: 'rate_limited', instance });
  expect(res.body.type).toBe(`${baseUrl}/errors/rate-limited`);
  const retryAfter = res.headers.get('retry-after');
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  expect(res.body.retry_after).toBe(Number(retryAfter));
  return Number(retryAfter);
}

describe('per-minute limit', () => {
  it('when a free key sends its 31st request in a minute, then 429 rate_limited with Retry-After', async () => {
    const { key } = await gw.createKey('free', { accountId: account });
    for (let i = 0; i < 30; i++) {
      const res = await gw.request(`/projects/${projectId}/recall`, { key });
      expect(res.status, `request ${i + 1}: ${res.text}`).toBe(200);
    }
    expectRateLimited(await gw.request(`/projects/${projectId}/recall`, { key }), `/api/v1/projects/${projectId}/recall`);
    // The refused request spent no quota.
    expect(await used(key)).toBe(30);
  });

  it('when requests cost nothing, then they still count against the rate limit', async () => {
    const { key } = await gw.createKey('enterprise', { accountId: account, customRate: 5 });
    for (let i = 0; i < 5; i++) expect((await gw.request('/projects', { key })).status).toBe(200);
    expectRateLimited(await gw.request('/projects', { key }), '/api/v1/projects');
    expectRateLimited(await gw.request('/projects', { method: 'POST', key, json: { name: 'Not now' } }), '/api/v1/projects');
    expect(await used(key)).toBe(0);
  });

  it('when one key is limited, then another key of the same account is not', async () => {
    const limited = await gw.createKey('enterprise', { accountId: account, customRate: 2 });
    const other = await gw.createKey('enterprise', { accountId: account, customRate: 2 });
    for (let i = 0; i < 2; i++) expect((await gw.request('/projects', { key: limited.key })).status).toBe(200);
    expect((await gw.request('/projects', { key: limited.key })).status).toBe(429);
    expect((await gw.request('/projects', { key: other.key })).status).toBe(200);
  });

  it('when 60 requests race for a limit of 20, then exactly 20 get through', async () => {
    const { key } = await gw.createKey('enterprise', { accountId: account, customRate: 20 });
    const results = await Promise.all(Array.from({ length: 60 }, () => gw.request(`/projects/${projectId}/graph`, { key })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
    expect(await used(key)).toBe(20);
  });

  it('when 60 searches race for a limit of 20, then exactly 20 get through and only they spend (admitted with the key, many in one statement)', async () => {
    const { key } = await gw.createKey('enterprise', { accountId: account, customRate: 20 });
    const results = await Promise.all(Array.from({ length: 60 }, () => gw.request(`/projects/${projectId}/search?q=Mara`, { key })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
    expect(await used(key)).toBe(40); // a search costs 2
  });

  it('when 60 recalls and entity reads race for a limit of 20, then exactly 20 get through, only they spend, and each shows the write made before it (admitted with the key, the canon version read beside it)', async () => {
    const owner = await gw.createKey('enterprise', { accountId: account });
    const created = await gw.request(`/projects/${projectId}/entities`, { method: 'POST', key: owner.key, json: { type: 'character', name: 'Ysolde Race' } });
    expect(created.status, created.text).toBe(201);
    const recalled = async (key: string) => (await gw.request(`/projects/${projectId}/recall?q=ysolde`, { key })).body.entities.map((e: { canonicalName: string }) => e.canonicalName);
    expect(await recalled(owner.key)).toEqual(['Ysolde Race']);
    const edited = await gw.request(`/projects/${projectId}/entities/${created.body.id}`, { method: 'PATCH', key: owner.key, json: { state: { tally: 7 } } });
    expect(edited.status, edited.text).toBe(200);
    const { key } = await gw.createKey('enterprise', { accountId: account, customRate: 20 });
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) =>
      gw.request(i % 2 === 0 ? `/projects/${projectId}/recall?q=ysolde` : `/projects/${projectId}/entities/${created.body.id}`, { key })));
    const answered = results.filter((r) => r.status === 200);
    expect(answered).toHaveLength(20);
    expect(results.filter((r) => r.status === 429)).toHaveLength(40);
    for (const { body } of answered) {
      expect((body.entities?.[0] ?? body).currentState).toEqual({ tally: 7 });
    }
    expect(await used(key)).toBe(20);
    // Another account's key reads the project as missing, though its version was read beside the admission.
    const stranger = await gw.createKey('enterprise');
    expect((await gw.request(`/projects/${projectId}/recall?q=ysolde`, { key: stranger.key })).status).toBe(404);
    expect((await gw.request(`/projects/${projectId}/entities/${created.body.id}`, { key: stranger.key })).status).toBe(404);
  });

  it('when the client waits Retry-After seconds, then its next request is served', { timeout: 120_000 }, async () => {
    const { key } = await gw.createKey('enterprise', { accountId: account, customRate: 1 });
    expect((await gw.request('/projects', { key })).status).toBe(200);
    const retryAfter = expectRateLimited(await gw.request('/projects', { key }), '/api/v1/projects');
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    expect((await gw.request('/projects', { key })).status).toBe(200);
  });
});

describe('seeing the limit', () => {
  /** The IETF RateLimit fields of a response: the policy's quota and window, what remains and when it resets. */
  function rateLimitOf(res: ApiResponse) {
    const policy = /^"minute";q=(\d+);w=60$/.exec(res.headers.get('ratelimit-policy') ?? '');
    const state = /^"minute";r=(\d+);t=(\d+)$/.exec(res.headers.get('ratelimit') ?? '');
    expect(policy, `RateLimit-Policy: ${res.headers.get('ratelimit-policy')}`).not.toBeNull();
    expect(state, `RateLimit: ${res.headers.get('ratelimit')}`).not.toBeNull();
    return { limit: Number(policy![1]), remaining: Number(state![1]), reset: Number(state![2]) };
  }

  it('when the minute is spent, then GET /usage still answers, costs nothing, is not counted, and reports the limit', async () => {
    const { key } = await gw.createKey('enterprise', { accountId: account, customRate: 3 });
    for (let i = 0; i < 3; i++) expect((await gw.request('/projects', { key })).status).toBe(200);
    expectRateLimited(await gw.request('/projects', { key }), '/api/v1/projects');
    for (let i = 0; i < 5; i++) {
      const res = await gw.request('/usage', { key });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ rate_limit_per_minute: 3, rate_limit_remaining: 0, used: 0 });
      expect(res.body.rate_limit_reset_seconds).toBeGreaterThanOrEqual(1);
      expect(res.body.rate_limit_reset_seconds).toBeLessThanOrEqual(60);
      expect(rateLimitOf(res)).toEqual({ limit: 3, remaining: 0, reset: res.body.rate_limit_reset_seconds });
    }
  });

  it('when a key makes requests, then every answer carries RateLimit-Policy and RateLimit, counting down to the 429', async () => {
    const { key } = await gw.createKey('enterprise', { accountId: account, customRate: 4 });
    const before = await gw.request('/usage', { key });
    expect(before.body.rate_limit_remaining).toBe(4);
    for (let i = 1; i <= 4; i++) {
      const res = await gw.request(`/projects/${projectId}/recall`, { key });
      expect(res.status).toBe(200);
      const seen = rateLimitOf(res);
      expect(seen.limit).toBe(4);
      expect(seen.remaining).toBe(4 - i);
      expect(seen.reset).toBeLessThanOrEqual(60);
    }
    const refused = await gw.request(`/projects/${projectId}/recall`, { key });
    expectRateLimited(refused, `/api/v1/projects/${projectId}/recall`);
    expect(rateLimitOf(refused)).toMatchObject({ limit: 4, remaining: 0, reset: Number(refused.headers.get('retry-after')) });
  });

  it('when GraphQL is asked, then its answers carry the same fields', async () => {
    const { key } = await gw.createKey('enterprise', { accountId: account, customRate: 10 });
    const res = await gw.request(`${gw.url}/graphql`, { method: 'POST', key, json: { query: '{ projects { id } }' } });
    expect(res.status).toBe(200);
    expect(rateLimitOf(res)).toMatchObject({ limit: 10, remaining: 9 });
    const usage = await gw.request(`${gw.url}/graphql`, { method: 'POST', key, json: { query: '{ usage { rateLimitRemaining } }' } });
    expect(usage.body.data.usage.rateLimitRemaining).toBe(9);
    expect(rateLimitOf(usage)).toMatchObject({ limit: 10, remaining: 9 });
  });
});

describe('across gateway processes sharing one database', () => {
  const processes = sharedGateways(2, () => gw.databaseUrl);

  it('when a key alternates between processes, then the limit counts its requests on all of them', async () => {
    const { key } = await gw.createKey('enterprise', { accountId: account, customRate: 10 });
    for (let i = 0; i < 10; i++) {
      const res = await processes[i % 2].request(`/projects/${projectId}/recall`, { key });
      expect(res.status, res.text).toBe(200);
    }
    for (const p of processes) expectRateLimited(await p.request(`/projects/${projectId}/recall`, { key }), `/api/v1/projects/${projectId}/recall`, p.url);
    expect(await used(key)).toBe(10);
  });

  it('when 90 requests race over three gateways for a limit of 30, then exactly 30 get through', async () => {
    const { key } = await gw.createKey('enterprise', { accountId: account, customRate: 30 });
    const gateways = [...processes, gw];
    const results = await Promise.all(
      Array.from({ length: 90 }, (_, i) => gateways[i % gateways.length].request(`/projects/${projectId}/graph`, { key })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 429), String(statuses)).toBe(true);
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
    expect(await used(key)).toBe(30);
  });

  it('when several keys read at once over three gateways, then every request is admitted (batches of admissions never deadlock)', async () => {
    const keys = await Promise.all(Array.from({ length: 4 }, () => gw.createKey('enterprise', { accountId: account })));
    const gateways = [...processes, gw];
    for (let round = 0; round < 20; round++) {
      // Each gateway gets the keys in another order, so concurrent batches meet the same keys' rows in turn.
      const results = await Promise.all(Array.from({ length: 300 }, (_, i) =>
        gateways[i % 3].request(`/projects/${projectId}/recall?q=r${round}`, { key: keys[(i * (1 + (i % 3)) + round) % 4].key })));
      const failed = results.filter((r) => r.status !== 200);
      expect(failed.map((r) => `${r.status} ${r.text}`)).toEqual([]);
    }
  });
});
