// Free-form JSON a client sends (an entity's state) is stored as given or refused: too deep, a non-finite number, a
// __proto__ key or text PostgreSQL cannot store is a validation error naming the path, never an internal error or a
// silent change, and nothing is written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxJsonDepth } from '../../src/core/validation.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let key: string;

const importMutation = 'mutation ($bundle: JSON!) { importBundle(bundle: $bundle) { projectId } }';

/** { a: { a: … { a: "bottom" } } }, `depth` objects deep. */
function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

const bundleWithState = (state: unknown) => ({
  project: { name: 'Deep state' },
  entities: [{ key: 'mara', type: 'character', name: 'Mara', state: { status: 'alive', deep: state } }],
});

beforeAll(async () => {
  gw = await startTestGateway();
  ({ key } = await gw.createKey('pro'));
});

afterAll(async () => {
  await gw?.close();
});

describe('free-form JSON depth', () => {
  it.each([127, 10_000])('when an entity state is nested %i levels deep, then the import is refused naming the path and nothing is written', async (depth) => {
    // Written out by hand: JSON.stringify itself runs out of stack on 10,000 levels.
    const deep = `${'{"a":'.repeat(depth)}"bottom"${'}'.repeat(depth)}`;
    const bundle = JSON.stringify(bundleWithState('DEEP')).replace('"DEEP"', deep);
    const res = await fetch(`${gw.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: `{"query": ${JSON.stringify(importMutation)}, "variables": {"bundle": ${bundle}}}`,
    });
    const result = (await res.json()) as { errors?: { extensions: Record<string, unknown> }[] };
    expect(result.errors?.[0]?.extensions?.code).toBe('invalid_bundle');
    const [error] = result.errors![0].extensions.errors as { path: string; message: string }[];
    expect(error.message).toBe(`must be nested at most ${maxJsonDepth} levels deep`);
    expect(error.path.startsWith('entities.0.state.deep.a.a')).toBe(true);
    expect(await gw.gateway.runtime.services.prisma.project.count()).toBe(0);
  });

  it.each([
    ['a number too large for JSON (1e400)', '{"n": 1e400}', 'entities.0.state.n', 'must be a finite number'],
    ['a __proto__ key', '{"__proto__": {"admin": true}}', 'entities.0.state.__proto__', 'must not use the key __proto__'],
    ['a lone surrogate', '{"name": "\\ud800"}', 'entities.0.state.name', 'must be Unicode text without NUL characters or unpaired surrogates'],
  ])('when an entity state holds %s, then the import is refused naming it instead of storing something else', async (_what, state, path, message) => {
    const bundle = JSON.stringify(bundleWithState('STATE')).replace('{"status":"alive","deep":"STATE"}', state);
    const res = await fetch(`${gw.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: `{"query": ${JSON.stringify(importMutation)}, "variables": {"bundle": ${bundle}}}`,
    });
    const result = (await res.json()) as { errors?: { extensions: Record<string, unknown> }[] };
    expect(result.errors?.[0]?.extensions?.code).toBe('invalid_bundle');
    expect(result.errors![0].extensions.errors).toEqual([{ path, message }]);
    expect(await gw.gateway.runtime.services.prisma.project.count()).toBe(0);
  });

  it('when an entity state is nested within the bound, then it is stored as given', async () => {
    const state = nested(maxJsonDepth - 3);
    const result = await gw.graphql(importMutation, { bundle: bundleWithState(state) }, key);
    expect(result.errors).toBeUndefined();
    const entity = await gw.gateway.runtime.services.prisma.entity.findFirstOrThrow({ where: { projectId: result.data.importBundle.projectId } });
    expect((entity.state as { deep: unknown }).deep).toEqual(state);
  });
});
