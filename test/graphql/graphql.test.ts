import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationNames, operationSource } from '../../graph/executor.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw?.close());

const codes = (result: { errors?: { extensions?: { code?: string } }[] }) => (result.errors ?? []).map((e) => e.extensions?.code);

describe('/graphql', () => {
  it('when a query is sent with a Bearer key, then it answers with data and no errors', async () => {
    const { key, id } = await gw.createKey('pro');
    const created = await gw.graphql('mutation ($name: String!) { createProject(input: { name: $name }) { id name entityCount } }', { name: 'Tidewrack' }, key);
    expect(created.errors).toBeUndefined();
    expect(created.data.createProject).toMatchObject({ name: 'Tidewrack', entityCount: 0 });
    const listed = await gw.graphql('{ projects { id name } usage { apiKeyId used } }', {}, key);
    expect(listed.errors).toBeUndefined();
    expect(listed.data.projects).toEqual([{ id: created.data.createProject.id, name: 'Tidewrack' }]);
    expect(listed.data.usage).toEqual({ apiKeyId: id, used: 1 });
  });

  it('when an imported project is recalled, then its entities come back', async () => {
    const { key } = await gw.createKey('pro');
    const { projectId } = await importBundle(gw, key, saltmarshBundle());
    const result = await gw.graphql('query ($p: ID!) { recall(projectId: $p, limit: 100) { id canonicalName type } }', { p: projectId }, key);
    expect(result.errors).toBeUndefined();
    expect(result.data.recall.length).toBeGreaterThan(0);
    expect(result.data.recall[0]).toEqual({ id: expect.any(String), canonicalName: expect.any(String), type: expect.any(String) });
  });

  it("when an entity's relationships are asked for, then each it has by either end comes with the entity at the other end, and no other", async () => {
    const { key } = await gw.createKey('pro');
    const { projectId } = await importBundle(gw, key, saltmarshBundle());
    const recalled = await gw.graphql('query ($p: ID!) { recall(projectId: $p, limit: 100) { id canonicalName } }', { p: projectId }, key);
    const id = (name: string) => recalled.data.recall.find((e: { canonicalName: string }) => e.canonicalName === name).id;
    const result = await gw.graphql(
      'query ($p: ID!, $e: ID!, $f: ID!) { keth: entity(projectId: $p, entityId: $e) { relationships { kind direction other { id canonicalName type } } } heron: entity(projectId: $p, entityId: $f) { relationships { kind direction other { canonicalName } } } }',
      { p: projectId, e: id('Keth Voss'), f: id('the Heron') },
      key,
    );
    expect(result.errors).toBeUndefined();
    // Mara captains the Heron: a relationship of Keth's sister, not of Keth.
    expect(result.data.keth.relationships).toEqual([
      { kind: 'died_at', direction: 'outgoing', other: { id: id('Gull Point'), canonicalName: 'Gull Point', type: 'location' } },
      { kind: 'sibling_of', direction: 'incoming', other: { id: id('Mara Voss'), canonicalName: 'Mara Voss', type: 'character' } },
    ]);
    expect(result.data.heron.relationships).toEqual([{ kind: 'captains', direction: 'incoming', other: { canonicalName: 'Mara Voss' } }]);
  });

  it('when no key is sent, then each field errors with AUTH_MISSING_KEY', async () => {
    const result = await gw.graphql('{ projects { id } usage { used } }');
    expect(result.data ?? null).toBeNull();
    expect(result.errors?.length).toBeGreaterThan(0);
    expect(new Set(codes(result))).toEqual(new Set(['AUTH_MISSING_KEY']));
  });

  it('when the key is unknown, then the error is AUTH_INVALID_KEY', async () => {
    const result = await gw.graphql('{ usage { used } }', {}, `sk_lore_${'B'.repeat(40)}`);
    expect(codes(result)).toEqual(['AUTH_INVALID_KEY']);
  });

  it('when a free key asks for projects, then insufficient_scope, and usage still answers', async () => {
    const { key } = await gw.createKey('free');
    const result = await gw.graphql('{ projects { id } }', {}, key);
    expect(codes(result)).toEqual(['insufficient_scope']);
    expect(result.errors![0].message).toMatch(/projects:read/);
    const usage = await gw.graphql('{ usage { used quota period } }', {}, key);
    expect(usage.errors).toBeUndefined();
    expect(usage.data.usage).toEqual({ used: 0, quota: 50, period: 'day' });
  });

  it('when an argument breaks a field rule, then validation_error', async () => {
    const { key } = await gw.createKey('pro');
    const result = await gw.graphql('mutation ($name: String!) { createProject(input: { name: $name }) { id } }', { name: 'x'.repeat(81) }, key);
    expect(codes(result)).toEqual(['validation_error']);
    const page = await gw.graphql('{ search(projectId: "prj_x", q: "a", limit: 0) { hasMore } }', {}, key);
    expect(codes(page)).toEqual(['validation_error']);
  });

  it('when the document is malformed, does not match the schema or a variable is wrong, then validation_error', async () => {
    const { key } = await gw.createKey('pro');
    const unknownField = await gw.graphql('{ projects { nope } }', {}, key);
    expect(codes(unknownField)).toEqual(['validation_error']);
    const badVariable = await gw.graphql('query ($p: ID!) { recall(projectId: $p) { id } }', { p: { not: 'an id' } }, key);
    expect(codes(badVariable)).toEqual(['validation_error']);
    const missingVariable = await gw.graphql('query ($p: ID!) { recall(projectId: $p) { id } }', {}, key);
    expect(codes(missingVariable)).toEqual(['validation_error']);
    const syntax = await gw.graphql('{ projects { id ', {}, key);
    expect(codes(syntax)).toEqual(['validation_error']);
  });

  it('when a request asks for too much at once (over 15 aliases, over 1000 tokens), then validation_error and no work', async () => {
    const { key } = await gw.createKey('pro');
    const aliased = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `p${i}: projects { id name }`).join(' ')} }`;
    expect((await gw.graphql(aliased(15), {}, key)).errors).toBeUndefined();
    for (const query of [aliased(16), aliased(2000)]) {
      const result = await gw.graphql(query, {}, key);
      expect(codes(result)).toEqual(['validation_error']);
      expect(result.data).toBeUndefined();
    }
  });

  it('when the named operations REST and MCP run are sent to /graphql, then none is held back by those limits', async () => {
    // Every scope, so that no operation stops at a scope check before its variables are read.
    const { key } = await gw.createKey('enterprise');
    for (const name of operationNames) {
      const result = await gw.graphql(operationSource(name), {}, key);
      // Without variables each one fails, but only at variable coercion, after the document passed validation.
      for (const error of result.errors ?? []) expect(error.message, name).toMatch(/^Variable "\$\w+" of required type/);
    }
  });

  it('when the body is over 25 MB, then 413 payload_too_large; a bundle-sized body under it is served', async () => {
    const { key } = await gw.createKey('pro');
    const headers = { 'content-type': 'application/json', accept: 'application/graphql-response+json', authorization: `Bearer ${key}` };
    const send = (bytes: number) =>
      fetch(`${gw.url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: '{ __typename }', variables: { padding: 'x'.repeat(bytes) } }) });
    const big = await send(26_000_000);
    expect(big.status).toBe(413);
    expect(codes(await big.json())).toEqual(['payload_too_large']);
    const fits = await send(8_000_000);
    expect(fits.status).toBe(200);
    expect((await fits.json()).data).toEqual({ __typename: 'Query' });
  });

  it('when the request is not a GraphQL request (no query, a query that is not text, variables that are a list), then 400 validation_error', async () => {
    const { key } = await gw.createKey('pro');
    // The GraphQL-over-HTTP media type: with plain application/json Yoga answers a missing query 200, as that spec allows.
    const headers = { 'content-type': 'application/json', accept: 'application/graphql-response+json', authorization: `Bearer ${key}` };
    for (const body of [{}, { query: 1 }, { query: '{ projects { id } }', variables: [1] }]) {
      const res = await fetch(`${gw.url}/graphql`, { method: 'POST', headers, body: JSON.stringify(body) });
      expect(res.status).toBe(400);
      expect(codes(await res.json())).toEqual(['validation_error']);
    }
  });
});
