// Every operation the served OpenAPI document lists, each of its inputs in turn given odd values (bad encodings, NUL
// characters, lone surrogates, wrong types, huge values, query syntax): the answer is a success or a 4xx problem,
// never a 5xx, and a refused request creates nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Problem } from '../../rest/schemas.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { importBundle, startTestGateway, type ApiResponse, type TestGateway } from '../support/gateway.ts';

type Parameter = { in: 'path' | 'query' | 'header'; name: string; required?: boolean };
type Operation = { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: { $ref: string } }> } };
type BodySchema = { properties: Record<string, { type?: string }>; required?: string[] };

let gw: TestGateway;
let key: string;
let projectId: string;
let entityId: string;
let operations: { method: string; path: string; operation: Operation; body?: BodySchema }[];

beforeAll(async () => {
  gw = await startTestGateway();
  // No rate limit or quota in the way: every request must reach validation.
  ({ key } = await gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 }));
  projectId = (await importBundle(gw, key, saltmarshBundle())).projectId;
  entityId = (await gw.request(`/projects/${projectId}/recall?q=Mara`, { key })).body.entities[0].id;
  const document = (await gw.request('/openapi.json')).body;
  operations = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const ref = operation.requestBody?.content['application/json']?.schema.$ref;
      return { method, path, operation, body: ref ? document.components.schemas[ref.split('/').pop()!] : undefined };
    }),
  );
});
afterAll(() => gw?.close());

// Written into the URL as they are: some are not valid percent-encoding on purpose.
const oddPathSegments = ['%E0%A4%A', '%', '%00', '%ED%A0%80', '%C0%80', 'x'.repeat(300), '..', "'", '%20', 'prj_nosuchproject'];
const oddQueryValues = ['', '%00', 'a%00b', '%ED%A0%80', '%FF%FE', 'x'.repeat(5000), '-1', '0', '1e309', '1.5', 'NaN', '%27%3B%20--', '%26', '%3A*', '!', '%7C', '(', 'a%20%26%20b%20%7C%20!c', '%F0%9F%98%80'];
const oddBodyValues: unknown[] = [null, true, 0, -1, 1e308, 1.5, '', ' ', '\u0000', 'a\u0000b', '\uD800', '\uDC00x', 'x'.repeat(100_000), [], {}, [['\u0000']], { a: '\u0000' }];
const oddBodies = ['{', '[]', 'null', '"x"', '1', '{"name": "a", "name": 5}', '['.repeat(100_000)];

/** A valid value for each input, so that only the one under test is odd. */
function validValue(name: string): string | number {
  const values: Record<string, string | number> = {
    id: projectId, entityId, q: 'Mara', name: 'Odd input', fact: 'Mara has a scar over her left eye.', text: 'Mara Voss stood at the rail.',
  };
  return values[name] ?? 'x';
}

function url(path: string, pathValues: Record<string, string>, query: Record<string, string>) {
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => pathValues[name] ?? String(validValue(name)));
  const search = Object.entries(query).map(([name, value]) => `${name}=${value}`).join('&');
  return search ? `${filled}?${search}` : filled;
}

describe('odd input on every operation', () => {
  it('when any path, query or body input holds an odd value, then a success or a 4xx problem, never a 5xx', { timeout: 120_000 }, async () => {
    const failures: string[] = [];
    let sent = 0;
    let projectsCreated = 0;
    const expectAnswer = (what: string, res: ApiResponse) => {
      sent++;
      if (what.startsWith('post /projects ') && res.status === 201) projectsCreated++;
      if (res.status >= 500) failures.push(`${what}: ${res.status} ${res.text.slice(0, 200)}`);
      else if (res.status >= 400) {
        const problem = Problem.safeParse(res.body);
        if (!/^application\/problem\+json/.test(res.headers.get('content-type') ?? '') || !problem.success || problem.data.status !== res.status) {
          failures.push(`${what}: ${res.status} is not a problem: ${res.text.slice(0, 200)}`);
        }
      }
    };
    // Deletions last, so that a delete that succeeds takes nothing the other operations are fuzzed against.
    const ordered = [...operations].sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'));
    let projectsBeforeDeletes: number | undefined;
    for (const { method, path, operation, body } of ordered) {
      if (method === 'delete' && projectsBeforeDeletes === undefined) projectsBeforeDeletes = (await gw.request('/projects', { key })).body.data.length;
      const parameters = (operation.parameters ?? []).filter((p) => p.in !== 'header');
      const requiredQuery = Object.fromEntries(parameters.filter((p) => p.in === 'query' && p.required).map((p) => [p.name, String(validValue(p.name))]));
      const validBody = body && Object.fromEntries((body.required ?? []).map((name) => [name, validValue(name)]));
      const send = (target: string, init: { json?: unknown; raw?: string } = {}) =>
        gw.request(target.replace(/^\/api\/v1/, ''), {
          method: method.toUpperCase(),
          key,
          ...(init.raw !== undefined ? { body: init.raw, headers: { 'Content-Type': 'application/json' } } : {}),
          ...(init.json !== undefined ? { json: init.json } : method === 'post' && init.raw === undefined ? { json: validBody ?? {} } : {}),
        });

      for (const parameter of parameters) {
        const odd = parameter.in === 'path' ? oddPathSegments : oddQueryValues;
        for (const value of odd) {
          const target = parameter.in === 'path' ? url(path, { [parameter.name]: value }, requiredQuery) : url(path, {}, { ...requiredQuery, [parameter.name]: value });
          expectAnswer(`${method} ${target.slice(0, 120)}`, await send(target));
        }
        if (parameter.in === 'query') {
          // The same name twice arrives as a list.
          const twice = `${url(path, {}, requiredQuery)}${Object.keys(requiredQuery).length ? '&' : '?'}${parameter.name}=1&${parameter.name}=2`;
          expectAnswer(`${method} ${twice}`, await send(twice));
        }
      }
      if (body) {
        const target = url(path, {}, requiredQuery);
        for (const field of Object.keys(body.properties)) {
          for (const value of oddBodyValues) {
            expectAnswer(`${method} ${path} ${field}=${JSON.stringify(value).slice(0, 40)}`, await send(target, { json: { ...validBody, [field]: value } }));
          }
        }
        for (const raw of oddBodies) expectAnswer(`${method} ${path} body ${raw.slice(0, 40)}`, await send(target, { raw }));
        for (const json of oddBodyValues) expectAnswer(`${method} ${path} body ${JSON.stringify(json).slice(0, 40)}`, await send(target, { json }));
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(500);
    // A refused request created nothing; each accepted one created exactly one project (beside the imported one).
    expect(projectsBeforeDeletes).toBe(1 + projectsCreated);
  });
});
