// Input the server would otherwise change silently, or answer in GraphQL's words, is refused with a 400 naming the
// field, and nothing is written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let key: string;
let projectId: string;

beforeAll(async () => {
  gw = await startTestGateway();
  ({ key } = await gw.createKey('pro'));
  projectId = (await gw.request('/projects', { method: 'POST', key, json: { name: 'Input' } })).body.id;
});

afterAll(async () => {
  await gw?.close();
});

describe('bodies and query strings', () => {
  it('when a JSON body is not valid UTF-8, then 400 and nothing is stored (not U+FFFD)', async () => {
    const body = Buffer.concat([Buffer.from('{"name": "Bad '), Buffer.from([0xff, 0xfe]), Buffer.from(' name"}')]);
    const res = await fetch(`${gw.api}/projects`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { code: string; detail: string };
    expect(problem.code).toBe('validation_error');
    expect(problem.detail).toMatch(/UTF-8/);
    expect(await gw.gateway.runtime.services.prisma.project.count({ where: { name: { contains: 'Bad' } } })).toBe(0);
  });

  it.each(['20 ', ' 20', '2e1', '20.0', '0x14'])('when limit is %j, then 400 naming query.limit', async (limit) => {
    const res = await gw.request(`/projects/${projectId}/recall?limit=${encodeURIComponent(limit)}`, { key });
    expect(res.status, res.text).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['query.limit']);
  });

  it('when a timeline bound is past the largest ordinal, then 400 naming it, in the API\'s words', async () => {
    const res = await gw.request(`/projects/${projectId}/timeline?from=99999999999&to=3000000000`, { key });
    expect(res.status, res.text).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['query.from', 'query.to']);
    expect(res.text).not.toMatch(/Variable|Expected type|GraphQL|\$from/);
  });
});
