// A large bundle's entities are checked a few hundred at a time, the event loop given back in between (parseBundle): the
// answer must be the one checking it whole gives (bundleSchema), issue for issue and in the same order.
import { describe, expect, it } from 'vitest';
import { bundleSchema, parseBundle } from '../../src/core/ingest/bundle.ts';
import { largeBundle } from '../embeddedStore/largeBundle.ts';

type Bundle = ReturnType<typeof largeBundle> & Record<string, unknown>;
const fresh = (): Bundle => largeBundle({ entities: 3_500, chapters: 3, wordsPerChapter: 50 }) as Bundle;
const issuesOf = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  result.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);

async function expectSameAnswer(bundle: unknown) {
  const whole = bundleSchema.safeParse(bundle);
  const inTurns = await parseBundle(bundle);
  expect(inTurns.success).toBe(whole.success);
  expect(issuesOf(inTurns)).toEqual(issuesOf(whole));
  if (whole.success && inTurns.success) expect(inTurns.data).toEqual(whole.data);
  return inTurns;
}

describe('a large bundle checked a few hundred entities at a time', () => {
  it('when the bundle is valid, then it parses to what checking it whole gives, defaults filled in', async () => {
    const bundle = fresh();
    delete (bundle.entities[2_100] as Record<string, unknown>).aliases;
    const parsed = await expectSameAnswer(bundle);
    expect(parsed.success).toBe(true);
  });

  it('when fields across the bundle are bad, then the same issues come in the same order, entity indexes counted over the whole list', async () => {
    const bundle = fresh();
    (bundle.project as Record<string, unknown>).name = '';
    (bundle.entities[3_333] as Record<string, unknown>).type = 'dragon';
    (bundle.entities[7] as Record<string, unknown>).key = 'has spaces';
    (bundle.entities[1_000] as Record<string, unknown>).facts = [{ text: '' }];
    (bundle.relationships[5] as Record<string, unknown>).kind = 'not a word';
    bundle.chapters = [{ id: 'c1', ordinal: -1 }] as never;
    const parsed = await expectSameAnswer(bundle);
    expect(parsed.success).toBe(false);
    expect(issuesOf(parsed)!.map((line) => line.split(':')[0])).toEqual([
      'project.name', 'entities.7.key', 'entities.1000.facts.0.text', 'entities.3333.type', 'relationships.5.kind', 'chapters.0.ordinal',
    ]);
  });

  it('when keys repeat or a fact text is said twice two ways, then the cross checks name them as the whole check does', async () => {
    const bundle = fresh();
    (bundle.entities[2_500] as Record<string, unknown>).key = bundle.entities[10].key;
    (bundle.entities[1_700] as Record<string, unknown>).facts = ['Keeps the light.', { text: 'Keeps the light.', status: 'suggested' }];
    const parsed = await expectSameAnswer(bundle);
    expect(issuesOf(parsed)).toEqual([
      `entities.2500.key: duplicate entity key ${bundle.entities[10].key}`,
      'entities.1700.facts.1: the same fact text twice, with another span or status',
    ]);
  });

  it('when the entities are not a list, or too many, then the answer is still the whole check\'s', async () => {
    await expectSameAnswer({ ...fresh(), entities: 'many' });
    await expectSameAnswer({ project: { name: 'Too many' }, entities: Array.from({ length: 50_001 }, (_, i) => ({ key: `e${i}`, type: 'character', name: `E${i}` })) });
  });
});
