import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

let gw: TestGateway;
let dir: string;
beforeAll(async () => {
  gw = await startTestGateway();
  dir = await mkdtemp(path.join(tmpdir(), 'lore-openapi-'));
});
afterAll(async () => {
  await gw?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

// The contract's endpoints without the two LLM ones (conflicts/check, timeline), which are not served yet.
const contractOperations = [
  ['get', '/projects'],
  ['post', '/projects'],
  ['get', '/projects/{id}/recall'],
  ['get', '/projects/{id}/recall/{entityId}/mentions'],
  ['post', '/projects/{id}/canon/{entityId}/approve'],
  ['get', '/projects/{id}/search'],
  ['get', '/projects/{id}/graph'],
  ['get', '/usage'],
] as const;

describe('GET /api/v1/openapi.json', () => {
  it('when fetched without a key, then it is an OpenAPI 3.1 document with every contract path', async () => {
    const res = await gw.request('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.openapi).toMatch(/^3\.1\./);
    const present = Object.entries(res.body.paths as Record<string, object>).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`));
    for (const [method, p] of contractOperations) expect(present).toContain(`${method} ${p}`);
  });

  it('when each operation is read, then it needs the bearer key and declares its scope, cost and 401 problem', async () => {
    const { body } = await gw.request('/openapi.json');
    expect(body.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const [method, p] of contractOperations) {
      const op = body.paths[p][method];
      expect(op.security, `${method} ${p}`).toEqual([{ bearerAuth: [] }]);
      expect(typeof op['x-lore-cost'], `${method} ${p}`).toBe('number');
      expect(op.responses['401'].content['application/problem+json'], `${method} ${p}`).toBeDefined();
    }
  });

  it('when linted with redocly (recommended rules), then it passes', async () => {
    const { text } = await gw.request('/openapi.json');
    const file = path.join(dir, 'openapi.json');
    await writeFile(file, text);
    const outcome = await run('npx', ['--no-install', 'redocly', 'lint', '--config', path.join(root, 'redocly.yaml'), file], {
      cwd: root,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', npm_config_loglevel: 'error' },
    }).then(
      (r) => ({ code: 0, output: r.stdout + r.stderr }),
      (e) => ({ code: e.code as number, output: `${e.stdout}${e.stderr}` }),
    );
    expect(outcome.code, outcome.output).toBe(0);
    expect(outcome.output).not.toMatch(/\d+ errors?\b/);
  }, 60_000);
});
