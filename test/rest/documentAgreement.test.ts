// The OpenAPI document says exactly what the server accepts: what it allows is answered, what it leaves out or
// constrains is refused as it says, and a request it allows never ends in a 500 (test/schemathesis runs the whole of it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let withCompatible: TestGateway;
let key: string;
let projectId: string;

beforeAll(async () => {
  // No LORE_OPENAI_COMPATIBLE_BASE_URL here; the second gateway has one.
  [gw, withCompatible] = await Promise.all([startTestGateway(), startTestGateway({ LORE_OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:9/v1' })]);
  ({ key } = await gw.createKey('enterprise'));
  projectId = (await gw.request('/projects', { method: 'POST', key, json: { name: 'Agreement' } })).body.id;
});

afterAll(async () => {
  await Promise.all([gw?.close(), withCompatible?.close()]);
});

const byokHeaders = async (server: TestGateway, path: string, method: 'get' | 'post') => {
  const { body } = await server.request('/openapi.json');
  const parameters = body.paths[path][method].parameters as { in: string; name: string; required?: boolean; schema: { enum?: string[]; pattern?: string } }[];
  return Object.fromEntries(parameters.filter((p) => p.in === 'header').map((p) => [p.name, p]));
};

describe('the LLM headers of the conflict check and the timeline', () => {
  it('when the server has no openai-compatible base URL, then the document does not offer it and the server refuses it with 400 unknown_provider', async () => {
    for (const [path, method] of [['/projects/{id}/conflicts/check', 'post'], ['/projects/{id}/timeline', 'get']] as const) {
      const headers = await byokHeaders(gw, path, method);
      expect(headers['X-LLM-Provider'].schema.enum, path).toEqual(['anthropic', 'openai']);
    }
    const res = await gw.request(`/projects/${projectId}/timeline`, { key, headers: { 'X-LLM-Provider': 'openai-compatible', 'X-LLM-Key': 'sk-x', 'X-LLM-Model': 'm' } });
    expect(res.status, res.text).toBe(400);
    expect(res.body.code).toBe('unknown_provider');
  });

  it('when the server has one, then the document offers openai-compatible too', async () => {
    const headers = await byokHeaders(withCompatible, '/projects/{id}/conflicts/check', 'post');
    expect(headers['X-LLM-Provider'].schema.enum).toEqual(['anthropic', 'openai', 'openai-compatible']);
  });

  it('when the document is read, then X-LLM-Provider and X-LLM-Key are required, as the server answers 402 without them', async () => {
    const headers = await byokHeaders(gw, '/projects/{id}/conflicts/check', 'post');
    expect([headers['X-LLM-Provider'].required, headers['X-LLM-Key'].required]).toEqual([true, true]);
    expect(headers['X-LLM-Model'].required).not.toBe(true);
    const res = await gw.request(`/projects/${projectId}/conflicts/check`, { method: 'POST', key, json: { text: 'Mara walked.' } });
    expect(res.status, res.text).toBe(402);
    expect(res.body.code).toBe('precondition_required');
  });

  it('when X-LLM-Key is not printable ASCII, then 400 naming the header, with or without the provider, as the document\'s pattern says', async () => {
    const headers = await byokHeaders(gw, '/projects/{id}/conflicts/check', 'post');
    expect(new RegExp(headers['X-LLM-Key'].schema.pattern!).test('sk key')).toBe(false);
    for (const sent of [{ 'X-LLM-Key': 'sk key' }, { 'X-LLM-Provider': 'openai', 'X-LLM-Key': 'sk key' }] as Record<string, string>[]) {
      const res = await gw.request(`/projects/${projectId}/conflicts/check`, { method: 'POST', key, headers: sent, json: { text: 'Mara walked.' } });
      expect(res.status, res.text).toBe(400);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['header.X-LLM-Key']);
    }
  });
});

describe('text the document constrains', () => {
  it('when q holds a NUL, then the document\'s pattern refuses it and the server answers 400 naming query.q', async () => {
    const { body } = await gw.request('/openapi.json');
    const q = (body.paths['/projects/{id}/search'].get.parameters as { name: string; schema: { pattern: string } }[]).find((p) => p.name === 'q')!;
    expect(new RegExp(q.schema.pattern, 'u').test('Mara\u0000')).toBe(false);
    const res = await gw.request(`/projects/${projectId}/search?q=Mara%00`, { key });
    expect(res.status, res.text).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['query.q']);
  });
});

describe('the size of a request\'s head', () => {
  it('when a query value is as long as the document allows (a 2000-character reason, 18 kB percent-encoded), then the API answers it', async () => {
    const entity = await gw.request(`/projects/${projectId}/entities`, { method: 'POST', key, json: { type: 'character', name: 'Mara Voss' } });
    const fact = await gw.request(`/projects/${projectId}/facts`, { method: 'POST', key, json: { entity_id: entity.body.id, text: 'Mara keeps the lighthouse.' } });
    expect(fact.status, fact.text).toBe(201);
    const reason = '€'.repeat(2000);
    const res = await gw.request(`/projects/${projectId}/facts/${fact.body.id}?reason=${encodeURIComponent(reason)}`, { method: 'DELETE', key });
    expect(res.status, res.text).toBe(200);
    // The reason is kept with the decision on the fact's proposal.
    const rejected = await gw.request(`/projects/${projectId}/candidates?status=rejected`, { key });
    expect(rejected.text).toContain(reason);
  });

  it('when the request line and headers are over 64 kB, then 431 from the HTTP server, as documented', async () => {
    const res = await fetch(`${gw.api}/projects/${projectId}/search?q=${'a'.repeat(70_000)}`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(431);
    const { body } = await gw.request('/openapi.json');
    expect(body.paths['/projects/{id}/search'].get.responses['431']).toBeDefined();
  });
});

describe('Idempotency-Key on POST /projects', () => {
  it('when the project a key created was deleted and the request is repeated, then 404 not_found rather than a 500, and nothing is created', async () => {
    const headers = { 'Idempotency-Key': 'agreement-replay' };
    const first = await gw.request('/projects', { method: 'POST', key, headers, json: { name: 'Short-lived' } });
    expect(first.status, first.text).toBe(201);
    expect((await gw.request(`/projects/${first.body.id}`, { method: 'DELETE', key })).status).toBe(200);
    const replay = await gw.request('/projects', { method: 'POST', key, headers, json: { name: 'Short-lived' } });
    expect(replay.status, replay.text).toBe(404);
    expect(replay.body.code).toBe('not_found');
    const { body: list } = await gw.request('/projects', { key });
    expect(list.data.map((p: { name: string }) => p.name)).not.toContain('Short-lived');
    const { body } = await gw.request('/openapi.json');
    expect(body.paths['/projects'].post.responses['404']).toBeDefined();
  });
});
