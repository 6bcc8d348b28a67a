// Idempotency-Key: a repeat of the same request within 24 hours replays the first response without doing the work
// again; the same key with another body is refused; concurrent repeats create one thing; a failure frees the key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageSummary } from '../../rest/schemas.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { importBundle, sharedGateways, startTestGateway, type ApiResponse, type TestGateway } from '../support/gateway.ts';
import { expectProblem as expectProblemAt } from '../support/problem.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw?.close());

const createProject = (key: string, idempotencyKey: string | undefined, json: unknown) =>
  gw.request('/projects', { method: 'POST', key, json, headers: idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey } });

async function projectNames(key: string): Promise<string[]> {
  const res = await gw.request('/projects', { key });
  expect(res.status).toBe(200);
  return res.body.data.map((p: { name: string }) => p.name);
}

async function used(key: string): Promise<number> {
  return UsageSummary.parse((await gw.request('/usage', { key })).body).used;
}

const expectProblem = (res: ApiResponse, status: number, code: string) =>
  expectProblemAt(res, status, code, { instance: '/api/v1/projects', site: gw.url });

describe('POST /projects with an Idempotency-Key', () => {
  it('when the same key and body are sent again, then the first response is replayed and nothing new is created', async () => {
    const { key } = await gw.createKey('pro');
    const first = await createProject(key, 'create-once', { name: 'Once', description: 'only one of me' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ id: expect.stringMatching(/^prj_/) });
    for (let i = 0; i < 3; i++) {
      const again = await createProject(key, 'create-once', { name: 'Once', description: 'only one of me' });
      expect(again.status).toBe(201);
      expect(again.text).toBe(first.text);
    }
    expect(await projectNames(key)).toEqual(['Once']);
    expect(await used(key)).toBe(1);
  });

  it('when the body repeats with its fields in another order, then it is the same request', async () => {
    const { key } = await gw.createKey('pro');
    const first = await createProject(key, 'ordered', { name: 'Ordered', description: 'd' });
    const again = await createProject(key, 'ordered', { description: 'd', name: 'Ordered' });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await projectNames(key)).toEqual(['Ordered']);
  });

  it('when the same key comes with another body, then 422 idempotency_key_reused and nothing is created or spent', async () => {
    const { key } = await gw.createKey('pro');
    expect((await createProject(key, 'reused', { name: 'First' })).status).toBe(201);
    const res = await createProject(key, 'reused', { name: 'Second' });
    expectProblem(res, 422, 'idempotency_key_reused');
    expect(res.body.type).toBe(`${gw.url}/errors/idempotency-key-reused`);
    expectProblem(await createProject(key, 'reused', { name: 'First', description: 'now with a description' }), 422, 'idempotency_key_reused');
    expect(await projectNames(key)).toEqual(['First']);
    expect(await used(key)).toBe(1);
  });

  it('when no key is sent, then each request runs anew: a repeat is refused as a name the account has, not replayed', async () => {
    const { key } = await gw.createKey('pro');
    expect((await createProject(key, undefined, { name: 'Twin' })).status).toBe(201);
    const repeat = await createProject(key, undefined, { name: 'Twin' });
    expect(repeat.status).toBe(409);
    expect(repeat.body.code).toBe('name_taken');
    expect(await projectNames(key)).toEqual(['Twin']);
    expect(await used(key)).toBe(1);
  });

  it('when different keys carry the same body, then each runs on its own (the second is not a replay of the first)', async () => {
    const { key } = await gw.createKey('pro');
    const a = await createProject(key, 'key-a', { name: 'Same body' });
    const b = await createProject(key, 'key-b', { name: 'Same body' });
    expect(a.status).toBe(201);
    expect(b.status).toBe(409);
    expect(b.body.code).toBe('name_taken');
    expect(b.body.detail).toContain(a.body.id);
  });

  it('when two accounts use the same key, then they do not see each other\'s responses', async () => {
    const one = await gw.createKey('pro');
    const two = await gw.createKey('pro');
    const a = await createProject(one.key, 'shared-key', { name: 'Mine' });
    const b = await createProject(two.key, 'shared-key', { name: 'Theirs' });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.id).not.toBe(a.body.id);
    expect(await projectNames(two.key)).toEqual(['Theirs']);
  });

  it('when another key of the same account repeats the request, then it gets the replay', async () => {
    const first = await gw.createKey('pro');
    const second = await gw.createKey('pro', { accountId: first.account });
    const a = await createProject(first.key, 'account-wide', { name: 'Account wide' });
    const b = await createProject(second.key, 'account-wide', { name: 'Account wide' });
    expect(b.status).toBe(201);
    expect(b.body).toEqual(a.body);
    expect(await used(second.key)).toBe(0);
  });

  it('when two requests with one key arrive together, then exactly one project is created', async () => {
    const { key } = await gw.createKey('pro');
    const [a, b] = await Promise.all([
      createProject(key, 'together-2', { name: 'Together' }),
      createProject(key, 'together-2', { name: 'Together' }),
    ]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body).toEqual(a.body);
    expect(await projectNames(key)).toEqual(['Together']);
    expect(await used(key)).toBe(1);
  });

  it('when ten requests with one key arrive together, then exactly one project is created and all get it', async () => {
    const { key } = await gw.createKey('pro');
    const results = await Promise.all(Array.from({ length: 10 }, () => createProject(key, 'together-10', { name: 'Ten as one' })));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(await projectNames(key)).toEqual(['Ten as one']);
    expect(await used(key)).toBe(1);
  });

  it('when the first request fails on quota, then the key stays free and a retry creates the project', async () => {
    const spent = await gw.createKey('enterprise', { customQuota: 1 });
    expect((await createProject(spent.key, undefined, { name: 'Uses the quota' })).status).toBe(201);
    expectProblem(await createProject(spent.key, 'after-402', { name: 'Retried' }), 402, 'quota_exceeded');
    // The account gets a fresh key with quota left and retries with the same Idempotency-Key.
    const fresh = await gw.createKey('enterprise', { accountId: spent.account, customQuota: 5 });
    const retry = await createProject(fresh.key, 'after-402', { name: 'Retried' });
    expect(retry.status, retry.text).toBe(201);
    expect(await projectNames(fresh.key)).toEqual(['Uses the quota', 'Retried']);
  });

  it('when the first request is invalid, then the key stays free for the corrected request', async () => {
    const { key } = await gw.createKey('pro');
    expect((await createProject(key, 'after-400', { name: '' })).status).toBe(400);
    const retry = await createProject(key, 'after-400', { name: 'Corrected' });
    expect(retry.status).toBe(201);
    expect(await projectNames(key)).toEqual(['Corrected']);
  });

  it('when the quota is used up, then a replay of a stored response is still served', async () => {
    const { key } = await gw.createKey('enterprise', { customQuota: 1 });
    const first = await createProject(key, 'replay-at-quota', { name: 'Last call' });
    expect(first.status).toBe(201);
    const again = await createProject(key, 'replay-at-quota', { name: 'Last call' });
    expect(again.status, again.text).toBe(201);
    expect(again.body).toEqual(first.body);
    // Anything that is not a replay is still refused.
    expectProblem(await createProject(key, 'fresh-at-quota', { name: 'One more' }), 402, 'quota_exceeded');
    expectProblem(await createProject(key, undefined, { name: 'One more' }), 402, 'quota_exceeded');
    expectProblem(await createProject(key, 'replay-at-quota', { name: 'Changed' }), 422, 'idempotency_key_reused');
    expect(await projectNames(key)).toEqual(['Last call']);
    expect(await used(key)).toBe(1);
  });

  it('when the first response is older than 24 hours, then the key may be used afresh', async () => {
    const { key, account } = await gw.createKey('pro');
    const first = await createProject(key, 'day-old', { name: 'Yesterday' });
    expect(first.status).toBe(201);
    await gw.gateway.runtime.services.prisma.idempotencyRecord.updateMany({
      where: { accountId: account, idemKey: 'day-old' },
      data: { createdAt: new Date(Date.now() - 24 * 60 * 60 * 1000 - 60_000) },
    });
    const later = await createProject(key, 'day-old', { name: 'Today' });
    expect(later.status, later.text).toBe(201);
    expect(later.body.id).not.toBe(first.body.id);
    expect(await projectNames(key)).toEqual(['Yesterday', 'Today']);
  });

  it('when the Idempotency-Key is longer than 255 characters, then 400 naming the header', async () => {
    const { key } = await gw.createKey('pro');
    const res = await createProject(key, 'k'.repeat(256), { name: 'Long key' });
    expectProblem(res, 400, 'validation_error');
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'header.Idempotency-Key' })]);
    expect((await createProject(key, 'k'.repeat(255), { name: 'Long key' })).status).toBe(201);
    expect(await projectNames(key)).toEqual(['Long key']);
  });
});

describe('approve with an Idempotency-Key', () => {
  it('when an approval is repeated with its key, then the same decision is replayed at no cost', async () => {
    const { key } = await gw.createKey('pro');
    const { projectId } = await importBundle(gw, key, saltmarshBundle());
    const entityId = (await gw.request(`/projects/${projectId}/recall?q=Keth`, { key })).body.entities[0].id;
    const before = await used(key);
    const approve = (fact: string) =>
      gw.request(`/projects/${projectId}/canon/${entityId}/approve`, { method: 'POST', key, json: { fact }, headers: { 'Idempotency-Key': 'approve-1' } });
    const first = await approve('Keth could not swim.');
    expect(first.status, first.text).toBe(200);
    const again = await approve('Keth could not swim.');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await used(key)).toBe(before + 1);
    const other = await approve('Keth swam like a seal.');
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_reused');
  });
});

describe('repeats racing for the last unit of quota', () => {
  const processes = sharedGateways(1, () => gw.databaseUrl);

  it('when requests with one key race over two gateways for the last unit, then all get the one project and one unit is spent', async () => {
    const { key } = await gw.createKey('enterprise', { customQuota: 1 });
    const gateways = [gw, ...processes];
    const send = (i: number) =>
      gateways[i % 2].request('/projects', { method: 'POST', key, json: { name: 'Last unit' }, headers: { 'Idempotency-Key': 'last-unit' } });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => send(i)));
    expect(results.map((r) => r.status), results.map((r) => r.text).join('\n')).toEqual(Array(20).fill(201));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(await projectNames(key)).toEqual(['Last unit']);
    expect(await used(key)).toBe(1);
  });
});
