import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
});

function directives(policy: string | null): Map<string, string[]> {
  expect(policy).toBeTruthy();
  return new Map(policy!.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...sources]) => [name, sources]));
}

function expectSecurityHeaders(headers: Headers) {
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  const policy = directives(headers.get('content-security-policy'));
  expect(policy.get('default-src')).toEqual(["'self'"]);
  expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
  expect(policy.get('object-src')).toEqual(["'none'"]);
  // No page may run inline or evaluated script, nor load one from elsewhere.
  expect(policy.has('script-src')).toBe(false);
  for (const sources of policy.values()) {
    expect(sources).not.toContain("'unsafe-eval'");
    expect(sources.filter((s) => /^https?:|^\*$|^\*\./.test(s))).toEqual([]);
  }
  return policy;
}

describe('security headers', () => {
  it('when the API answers (a refused call, a call with a key, the OpenAPI document, /health, GraphQL, an unknown path), then every answer carries them', async () => {
    const { key } = await gw.createKey('pro');
    const answers = [
      await fetch(`${gw.api}/projects`),
      await fetch(`${gw.api}/projects`, { headers: { Authorization: `Bearer ${key}` } }),
      await fetch(`${gw.api}/openapi.json`),
      await fetch(`${gw.url}/health`),
      await fetch(`${gw.url}/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) }),
      await fetch(`${gw.url}/no/such/path`),
    ];
    expect(answers.map((a) => a.status)).toEqual([401, 200, 200, 200, 200, 404]);
    for (const answer of answers) {
      const policy = expectSecurityHeaders(answer.headers);
      expect([...policy.keys()].sort()).toEqual(['base-uri', 'default-src', 'form-action', 'frame-ancestors', 'object-src']);
    }
  });

  it('when a page is opened (an error page, the reference, GraphiQL), then it carries them, and only the vendored pages relax styles', async () => {
    const errorPage = await fetch(`${gw.url}/errors/not-found`, { headers: { Accept: 'text/html' } });
    const docs = await fetch(`${gw.url}/docs`, { headers: { Accept: 'text/html' } });
    const graphiql = await fetch(`${gw.url}/graphql`, { headers: { Accept: 'text/html' } });
    for (const page of [errorPage, docs, graphiql]) {
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expectSecurityHeaders(page.headers);
    }
    expect(directives(errorPage.headers.get('content-security-policy')).has('style-src')).toBe(false);
    expect(directives(docs.headers.get('content-security-policy')).get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    expect(directives(graphiql.headers.get('content-security-policy')).get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
  });
});
