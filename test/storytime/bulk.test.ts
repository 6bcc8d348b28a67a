// Story time at scale: thousands of entities with timed state values and spanned facts import in set statements, so
// a first import, an unchanged re-import and one that moves every span all stay quick.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

const entityCount = 5_000;
const chapterCount = 60;

let gw: TestGateway;
let key: string;

function bundle(shift: number) {
  const chapter = (n: number) => `ch-${String(n).padStart(3, '0')}`;
  return {
    project: { name: 'A long saga' },
    chapters: Array.from({ length: chapterCount }, (_, i) => ({ id: chapter(i + 1), ordinal: i + 1, text: `Chapter ${i + 1}.` })),
    entities: Array.from({ length: entityCount }, (_, i) => {
      const start = 1 + ((i + shift) % (chapterCount - 10));
      return {
        key: `c${i}`, type: 'character', name: `Character ${i}`, state: { status: 'alive', rank: 'deckhand' },
        stateChanges: [{ from: chapter(start + 5), state: { status: 'dead' } }, { from: chapter(start), until: chapter(start + 5), state: { rank: 'mate' } }],
        facts: [`Character ${i} sails.`, { text: `Character ${i} is wounded.`, from: chapter(start), until: chapter(start + 2) }],
      };
    }),
  };
}

const timed = async <T>(work: () => Promise<T>) => {
  const started = performance.now();
  const result = await work();
  return { result, seconds: (performance.now() - started) / 1000 };
};

async function runImport(b: unknown, projectId?: string) {
  const res = await gw.graphql(
    'mutation ($b: JSON!, $p: ID) { importBundle(bundle: $b, projectId: $p) { projectId changed counts { entitiesCreated entitiesUpdated factsCreated factsUpdated } } }',
    { b, p: projectId },
    key,
  );
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.importBundle;
}

beforeAll(async () => {
  gw = await startTestGateway();
  ({ key } = await gw.createKey('pro'));
});
afterAll(async () => {
  await gw?.close();
});

describe('story time at scale', () => {
  it(`when ${entityCount} entities with timed state and spanned facts are imported, re-imported and moved, then each import takes seconds`, { timeout: 240_000 }, async () => {
    const first = await timed(() => runImport(bundle(0)));
    expect(first.result.counts).toMatchObject({ entitiesCreated: entityCount, factsCreated: 2 * entityCount });
    const projectId = first.result.projectId;
    const same = await timed(() => runImport(bundle(0), projectId));
    expect(same.result.changed).toBe(false);
    const moved = await timed(() => runImport(bundle(1), projectId));
    expect(moved.result.counts).toMatchObject({ entitiesCreated: 0, entitiesUpdated: entityCount, factsCreated: 0, factsUpdated: entityCount });
    console.log(`story-time import of ${entityCount} entities: ${first.seconds.toFixed(2)} s; unchanged re-import ${same.seconds.toFixed(2)} s; every span moved ${moved.seconds.toFixed(2)} s`);
    // Generous for a shared machine: on an idle one each takes a few seconds, as long as an import without story time.
    for (const { seconds } of [first, same, moved]) expect(seconds).toBeLessThan(120);

    // Spot check: entity 0 now starts at ch-002, so it is a mate at ch-002 and dead from ch-007.
    const at = async (chapter: string) =>
      (await gw.request(`/projects/${projectId}/recall?q=${encodeURIComponent('Character 0')}&as_of=${chapter}&limit=1`, { key })).body.entities[0].currentState;
    expect(await at('ch-001')).toEqual({ status: 'alive', rank: 'deckhand' });
    expect(await at('ch-002')).toEqual({ status: 'alive', rank: 'mate' });
    expect(await at('ch-007')).toEqual({ status: 'dead', rank: 'deckhand' });
  });
});
