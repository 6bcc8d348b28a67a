// The hottest writes (POST fact, PATCH state, POST entity) settle their key, rate limit and quota in one statement before they run
// (graph/executor.ts): every refusal still answers as before and changes nothing, and a revoked key stops at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayWithSaltmarsh, type TestGateway } from '../support/gateway.ts';
import { expectProblem } from '../support/problem.ts';

let gw: TestGateway;
let owner: { id: string; key: string; account: string };
let projectId: string;
let entityId: string;

beforeAll(async () => {
  ({ gw, owner, projectId, maraId: entityId } = await gatewayWithSaltmarsh());
});
afterAll(() => gw?.close());

const ownerKey = (options: { customQuota?: number; customRate?: number }) =>
  gw.createKey('enterprise', { accountId: owner.account, customQuota: 1_000, customRate: 1_000, ...options });

/** Quota used, read without spending a request of the key. */
async function used(key: string): Promise<number> {
  const { services } = gw.gateway.runtime;
  return (await services.metering.usage(await services.keys.authenticate(key))).used;
}

const postFact = (key: string, text: string, project = projectId) =>
  gw.request(`/projects/${project}/facts`, { method: 'POST', key, json: { entity_id: entityId, text } });
const patchState = (key: string, state: Record<string, unknown>, extra: Record<string, unknown> = {}, project = projectId) =>
  gw.request(`/projects/${project}/entities/${entityId}`, { method: 'PATCH', key, json: { state, ...extra } });
const stateNow = async () => (await gw.request(`/projects/${projectId}/entities/${entityId}`, { key: owner.key })).body.state;
/** A fact text is free on the entity when the owner can add it (201), taken (409) when a refused write stored it. */
const factStored = async (text: string) => (await postFact(owner.key, text)).status === 409;

describe('writes admitted with their key', () => {
  it('when a key has quota for two writes, then a fact and a state change spend one each and the next ones answer 402, writing nothing', async () => {
    const { key } = await ownerKey({ customQuota: 2 });
    expect((await postFact(key, 'quota fact one')).status).toBe(201);
    const changed = await patchState(key, { quota: 'one' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.state.quota).toBe('one');
    expectProblem(await postFact(key, 'quota fact two'), 402, 'quota_exceeded');
    expectProblem(await patchState(key, { quota: 'two' }), 402, 'quota_exceeded');
    expect(await used(key)).toBe(2);
    expect((await stateNow()).quota).toBe('one');
    expect(await factStored('quota fact two')).toBe(false);
  });

  it('when a key passes its rate limit, then the writes answer 429 with Retry-After, write nothing and spend no quota', async () => {
    const { key } = await ownerKey({ customRate: 2 });
    const first = await postFact(key, 'rate fact one');
    expect(first.status).toBe(201);
    expect(first.headers.get('ratelimit')).toMatch(/remaining=1\b|r=1\b/);
    expect((await patchState(key, { rate: 'one' })).status).toBe(200);
    for (const res of [await postFact(key, 'rate fact two'), await patchState(key, { rate: 'two' })]) {
      expectProblem(res, 429, 'rate_limited');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(await used(key)).toBe(2);
    expect((await stateNow()).rate).toBe('one');
    expect(await factStored('rate fact two')).toBe(false);
  });

  it('when a key is revoked, then its very next write is refused 401', async () => {
    const { id, key } = await ownerKey({});
    expect((await postFact(key, 'revoked fact one')).status).toBe(201);
    await gw.gateway.runtime.services.keys.revoke(id);
    expectProblem(await postFact(key, 'revoked fact two'), 401, 'AUTH_INVALID_KEY');
    expectProblem(await patchState(key, { revoked: true }), 401, 'AUTH_INVALID_KEY');
    expect(await factStored('revoked fact two')).toBe(false);
    expect((await stateNow()).revoked).toBeUndefined();
  });

  it('when new entities are posted with a key at its quota or rate limit, a taken name, a revoked key or another account\'s project, then each is refused as before, writing nothing and spending no quota', async () => {
    const postEntity = (key: string, name: string, project = projectId) =>
      gw.request(`/projects/${project}/entities`, { method: 'POST', key, json: { type: 'character', name } });
    const entityStored = async (name: string) => (await postEntity(owner.key, name)).status === 409;
    const quota = await ownerKey({ customQuota: 2 });
    expect((await postEntity(quota.key, 'Admitted Ada')).status).toBe(201);
    expectProblem(await postEntity(quota.key, 'Admitted Ada'), 409, 'name_taken');
    expect(await used(quota.key)).toBe(1);
    expect((await postEntity(quota.key, 'Admitted Bea')).status).toBe(201);
    expectProblem(await postEntity(quota.key, 'Admitted Cyd'), 402, 'quota_exceeded');
    expect(await entityStored('Admitted Cyd')).toBe(false);

    const rate = await ownerKey({ customRate: 1 });
    expect((await postEntity(rate.key, 'Admitted Dot')).status).toBe(201);
    expectProblem(await postEntity(rate.key, 'Admitted Eve'), 429, 'rate_limited');
    expect(await used(rate.key)).toBe(1);
    expect(await entityStored('Admitted Eve')).toBe(false);

    const revoked = await ownerKey({});
    expect((await postEntity(revoked.key, 'Admitted Fay')).status).toBe(201);
    await gw.gateway.runtime.services.keys.revoke(revoked.id);
    expectProblem(await postEntity(revoked.key, 'Admitted Gus'), 401, 'AUTH_INVALID_KEY');
    expect(await entityStored('Admitted Gus')).toBe(false);

    const stranger = await gw.createKey('pro');
    expect((await postEntity(stranger.key, 'Stranger Hal', 'prj_01aaaaaaaaaaaaaaaaaaaaaaaa')).status).toBe(404);
    const theirs = expectProblem(await postEntity(stranger.key, 'Stranger Hal'), 404, 'not_found');
    const none = expectProblem(await postEntity(stranger.key, 'Stranger Hal', 'prj_01aaaaaaaaaaaaaaaaaaaaaaaa'), 404, 'not_found');
    expect(String(theirs.detail).replace(projectId, '<id>')).toBe(String(none.detail).replace('prj_01aaaaaaaaaaaaaaaaaaaaaaaa', '<id>'));
    expect(await entityStored('Stranger Hal')).toBe(false);
    expect(await used(stranger.key)).toBe(0);
  });

  it('when a write is refused (bad input, a stale version, another account\'s project), then it answers as before and spends no quota', async () => {
    const { key } = await ownerKey({});
    expectProblem(await gw.request(`/projects/${projectId}/facts`, { method: 'POST', key, json: { entity_id: entityId } }), 400, 'validation_error');
    expectProblem(await patchState(key, { stale: true }, { expected_version: 999 }), 409, 'version_conflict');
    expect((await stateNow()).stale).toBeUndefined();

    const stranger = await gw.createKey('pro');
    const missing = 'prj_01aaaaaaaaaaaaaaaaaaaaaaaa';
    for (const write of [postFact, (k: string, _text: string, project: string) => patchState(k, { stranger: true }, {}, project)]) {
      const theirs = expectProblem(await write(stranger.key, 'stranger fact', projectId), 404, 'not_found');
      const none = expectProblem(await write(stranger.key, 'stranger fact', missing), 404, 'not_found');
      expect(String(theirs.detail).replace(projectId, '<id>')).toBe(String(none.detail).replace(missing, '<id>'));
    }
    expect(await factStored('stranger fact')).toBe(false);
    expect((await stateNow()).stranger).toBeUndefined();
    expect(await used(key)).toBe(0);
    expect(await used(stranger.key)).toBe(0);
  });
});
