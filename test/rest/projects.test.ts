// POST /projects and GET /projects: bad input is refused with the right 4xx problem, creates nothing and costs
// nothing; a good request creates a project that the list shows with the contract's fields.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreatedProject, ProjectList, UsageSummary } from '../../rest/schemas.ts';
import { startTestGateway, type ApiResponse, type TestGateway } from '../support/gateway.ts';
import { expectProblem as expectProblemAt } from '../support/problem.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw?.close());

async function listProjects(key: string, via = gw) {
  const res = await via.request('/projects', { key });
  expect(res.status).toBe(200);
  return ProjectList.parse(res.body).data;
}

async function used(key: string, via = gw): Promise<number> {
  return UsageSummary.parse((await via.request('/usage', { key })).body).used;
}

const expectProblem = (res: ApiResponse, status: number, code: string, via = gw) =>
  expectProblemAt(res, status, code, { instance: '/api/v1/projects', site: via.url });

const post = (key: string, body: BodyInit, contentType: string | null = 'application/json', via = gw) =>
  via.request('/projects', { method: 'POST', key, body, headers: contentType ? { 'Content-Type': contentType } : {} });

describe('POST /projects refuses bad input', () => {
  it('when the body is malformed JSON, then 400 malformed_json', async () => {
    const { key } = await gw.createKey('pro');
    for (const body of ['{"name":', '{name: "x"}', "{'name': 'x'}", '{"name": "x",}']) {
      expectProblem(await post(key, body), 400, 'malformed_json');
    }
    expect(await listProjects(key)).toEqual([]);
    expect(await used(key)).toBe(0);
  });

  it('when fields have the wrong types, then 400 naming each field', async () => {
    const { key } = await gw.createKey('pro');
    const res = await gw.request('/projects', { method: 'POST', key, json: { name: 5, description: [], initial_scope: { a: 1 } } });
    expectProblem(res, 400, 'validation_error');
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body.description', 'body.initial_scope', 'body.name']);
    expect(res.body.detail).toContain('body.name');
    const nullName = await gw.request('/projects', { method: 'POST', key, json: { name: null } });
    expectProblem(nullName, 400, 'validation_error');
    expect(nullName.body.errors).toEqual([expect.objectContaining({ path: 'body.name' })]);
    const missing = await gw.request('/projects', { method: 'POST', key, json: { description: 'no name' } });
    expectProblem(missing, 400, 'validation_error');
    expect(missing.body.errors).toEqual([expect.objectContaining({ path: 'body.name' })]);
    expect(await listProjects(key)).toEqual([]);
    expect(await used(key)).toBe(0);
  });

  it('when the name is empty, blank or over 80 characters, then 400', async () => {
    const { key } = await gw.createKey('pro');
    for (const name of ['', '   ', 'x'.repeat(81), 'é'.repeat(81), '🌊'.repeat(81)]) {
      const res = await gw.request('/projects', { method: 'POST', key, json: { name } });
      expectProblem(res, 400, 'validation_error');
      expect(res.body.errors).toEqual([expect.objectContaining({ path: 'body.name' })]);
    }
    const longDescription = await gw.request('/projects', { method: 'POST', key, json: { name: 'ok', description: 'd'.repeat(4001) } });
    expectProblem(longDescription, 400, 'validation_error');
    expect(longDescription.body.errors).toEqual([expect.objectContaining({ path: 'body.description' })]);
    expect(await listProjects(key)).toEqual([]);
    expect(await used(key)).toBe(0);
  });

  it('when a field holds a NUL character or a lone surrogate, then 400 naming it (PostgreSQL could not store it)', async () => {
    const { key } = await gw.createKey('pro');
    for (const [body, paths] of [
      ['{"name": "Salt\\u0000marsh"}', ['body.name']],
      ['{"name": "\\ud800"}', ['body.name']],
      ['{"name": "Saltmarsh", "description": "a\\u0000", "initial_scope": "\\udfff x"}', ['body.description', 'body.initial_scope']],
    ] as const) {
      const res = await post(key, body);
      expectProblem(res, 400, 'validation_error');
      expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(paths);
    }
    expect(await listProjects(key)).toEqual([]);
    expect(await used(key)).toBe(0);
  });

  it('when the body is not a JSON object, then 400', async () => {
    const { key } = await gw.createKey('pro');
    for (const body of ['[]', '[{"name":"x"}]', '"x"', '5', 'null', 'true']) {
      const res = await post(key, body);
      expect(res.status, body).toBe(400);
      expect(['validation_error', 'malformed_json']).toContain(res.body.code);
      expectProblem(res, 400, res.body.code);
    }
    expect(await listProjects(key)).toEqual([]);
    expect(await used(key)).toBe(0);
  });

  it('when the body is missing, then 400', async () => {
    const { key } = await gw.createKey('pro');
    expectProblem(await gw.request('/projects', { method: 'POST', key }), 400, 'validation_error');
    expectProblem(await post(key, ''), 400, 'validation_error');
    expect(await listProjects(key)).toEqual([]);
  });

  it('when the body is sent as another media type, then 415 unsupported_media_type', async () => {
    const { key } = await gw.createKey('pro');
    const json = JSON.stringify({ name: 'Plain' });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'application/json; charset=latin1', null]) {
      // A Blob body leaves the Content-Type to us: none at all when null.
      expectProblem(await post(key, new Blob([json]), type), 415, 'unsupported_media_type');
    }
    expect(await listProjects(key)).toEqual([]);
    expect(await used(key)).toBe(0);
  });

  it('when the body is over 2 MiB by default, then 413 payload_too_large', async () => {
    const { key } = await gw.createKey('pro');
    const body = JSON.stringify({ name: 'Big', description: 'x'.repeat(2 * 1024 * 1024) });
    expectProblem(await post(key, body), 413, 'payload_too_large');
    expect(await listProjects(key)).toEqual([]);
    expect(await used(key)).toBe(0);
  });

  it('when LORE_MAX_BODY_BYTES is lowered, then a body over it is 413 and one under it is served', async () => {
    const small = await startTestGateway({ LORE_MAX_BODY_BYTES: '1024' });
    try {
      const { key } = await small.createKey('pro');
      const res = await post(key, JSON.stringify({ name: 'Big', description: 'x'.repeat(1100) }), 'application/json', small);
      expectProblem(res, 413, 'payload_too_large', small);
      expect(res.body.detail).toContain('1024');
      expect((await post(key, JSON.stringify({ name: 'Small', description: 'x'.repeat(900) }), 'application/json', small)).status).toBe(201);
      expect((await listProjects(key, small)).map((p) => p.name)).toEqual(['Small']);
      expect(await used(key, small)).toBe(1);
    } finally {
      await small.close();
    }
  });

  it('when an Idempotency-Key comes with a bad body, then 400 and no 500', async () => {
    const { key } = await gw.createKey('pro');
    const res = await gw.request('/projects', { method: 'POST', key, body: '{"name":', headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'bad-body' } });
    expectProblem(res, 400, 'malformed_json');
    expect(await listProjects(key)).toEqual([]);
  });
});

describe('POST /projects creates', () => {
  it('when the body is valid, then 201 {id} and the project is listed with the contract fields', async () => {
    const { key } = await gw.createKey('pro');
    const started = Date.now();
    const res = await gw.request('/projects', { method: 'POST', key, json: { name: 'The Drowned Coast', description: 'A smuggler saga.', initial_scope: 'book one' } });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const { id } = CreatedProject.strict().parse(res.body);
    const list = await listProjects(key);
    expect(list).toHaveLength(1);
    const project = list[0];
    expect(Object.keys(project).sort()).toEqual(['conflict_count', 'description', 'entity_count', 'id', 'last_updated', 'name']);
    expect(project).toMatchObject({ id, name: 'The Drowned Coast', description: 'A smuggler saga.', entity_count: 0, conflict_count: 0 });
    expect(project.last_updated).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
    expect(Date.parse(project.last_updated)).toBeGreaterThanOrEqual(started - 5_000);
    expect(await used(key)).toBe(1);
  });

  it('when the description is left out, then it is listed as an empty string', async () => {
    const { key } = await gw.createKey('pro');
    const res = await gw.request('/projects', { method: 'POST', key, json: { name: 'Untold' } });
    expect(res.status).toBe(201);
    expect(await listProjects(key)).toEqual([expect.objectContaining({ id: res.body.id, name: 'Untold', description: '' })]);
  });

  it('when the name has 80 characters, then it is accepted', async () => {
    const { key } = await gw.createKey('pro');
    const names = ['n'.repeat(80), 'é'.repeat(80), '🌊'.repeat(80)];
    for (const name of names) {
      const res = await gw.request('/projects', { method: 'POST', key, json: { name } });
      expect(res.status, res.text).toBe(201);
    }
    expect((await listProjects(key)).map((p) => p.name)).toEqual(names);
  });

  it('when the name has surrounding spaces, then they are trimmed', async () => {
    const { key } = await gw.createKey('pro');
    expect((await gw.request('/projects', { method: 'POST', key, json: { name: '  Saltmarsh  ' } })).status).toBe(201);
    expect((await listProjects(key)).map((p) => p.name)).toEqual(['Saltmarsh']);
  });

  it('when the content type is application/json with a charset, then it is accepted', async () => {
    const { key } = await gw.createKey('pro');
    expect((await post(key, JSON.stringify({ name: 'Charset' }), 'application/json; charset=utf-8')).status).toBe(201);
  });

  it('when the JSON body is streamed (chunked, no Content-Length), then it is accepted; streamed text is 415', async () => {
    const { key } = await gw.createKey('pro');
    const stream = (text: string) => new Blob([text]).stream();
    const send = (type: string) =>
      gw.request('/projects', { method: 'POST', key, body: stream(JSON.stringify({ name: `Streamed ${type}` })), headers: { 'Content-Type': type }, duplex: 'half' } as RequestInit);
    expect((await send('application/json')).status).toBe(201);
    expectProblem(await send('text/plain'), 415, 'unsupported_media_type');
    expect((await listProjects(key)).map((p) => p.name)).toEqual(['Streamed application/json']);
  });

  it('when several projects are created, then the list holds them oldest first and only for the caller', async () => {
    const mine = await gw.createKey('pro');
    const theirs = await gw.createKey('pro');
    const ids: string[] = [];
    for (const name of ['One', 'Two', 'Three']) ids.push((await gw.request('/projects', { method: 'POST', key: mine.key, json: { name } })).body.id);
    await gw.request('/projects', { method: 'POST', key: theirs.key, json: { name: 'Not yours' } });
    expect((await listProjects(mine.key)).map((p) => p.id)).toEqual(ids);
    expect((await listProjects(theirs.key)).map((p) => p.name)).toEqual(['Not yours']);
  });
});
