// A passage checked with its chapter whose pronoun has no antecedent in the passage takes the one character of its
// gender named just before the passage in the stored chapter; a rival, a newcomer, a scene break, a passage that names
// its own character first or that the chapter does not hold leave it as the passage alone reads it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';

const arrival = 'Ilse came down to the harbour at dawn and stood a long while looking out over the water.';
const temper = 'Her eyes were blue, and nobody on the quay ever crossed her in a temper.';

const bundle = () => ({
  project: { name: 'The Harbour Light' },
  chapters: [
    { id: 'ch-01', ordinal: 1, text: `${arrival}\n\n${temper}` },
    { id: 'ch-02', ordinal: 2, text: `Ilse and Marta came down to the harbour at dawn.\n\n${temper}` },
    { id: 'ch-03', ordinal: 3, text: `${arrival}\n\n* * *\n\n${temper}` },
    { id: 'ch-04', ordinal: 4, text: `${arrival} A stranger in a grey shawl came down the steps behind her.\n\n${temper}` },
    { id: 'ch-05', ordinal: 5, text: `${arrival}\n\n${temper}\n\n${arrival}\n\n${temper}` },
    { id: 'ch-06', ordinal: 6, text: `${arrival}\n\nMarta waited on the steps. ${temper}` },
    { id: 'ch-07', ordinal: 7, text: `Marta kept to the house that morning. ${arrival}\n\n${temper}` },
    { id: 'ch-08', ordinal: 8, text: `Ilse came down to the harbour at dawn and watched Marta row out.\n\n${temper}` },
  ],
  entities: [
    { key: 'ilse', type: 'character', name: 'Ilse Marr', aliases: ['Ilse'], state: { status: 'alive', pronouns: 'she/her', eyes: 'green' } },
    { key: 'marta', type: 'character', name: 'Marta Vell', aliases: ['Marta'], state: { status: 'alive', pronouns: 'she/her', eyes: 'blue' } },
  ],
});

let gw: TestGateway;
let llm: FakeLlm;
let key: string;
let projectId: string;

beforeAll(async () => {
  llm = await startFakeLlm();
  gw = await startTestGateway({ LORE_OPENAI_BASE_URL: llm.url });
  ({ key } = await gw.createKey('pro'));
  ({ projectId } = await importBundle(gw, key, bundle()));
});
afterAll(async () => {
  await gw?.close();
  await llm?.close();
});

const check = async (json: Record<string, unknown>) => {
  const res = await gw.request(`/projects/${projectId}/conflicts/check`, {
    method: 'POST', key, headers: { 'X-LLM-Provider': 'openai', 'X-LLM-Key': 'sk-test-0123456789abcdef' }, json,
  });
  expect(res.status, res.text).toBe(200);
  return res.body.conflicts as { kind: string; title: string; rationale: string }[];
};

describe('a pronoun the passage leaves with no antecedent, taken from its chapter', () => {
  it('when the paragraph before the passage in its stored chapter names one woman, then the passage\'s "her" is her, found verbatim, edited, or at its line', async () => {
    const verbatim = await check({ text: temper, chapter: 'ch-01' });
    expect(verbatim.map((h) => h.kind)).toEqual(['attribute_contradiction']);
    expect(verbatim[0].title).toContain('Ilse');
    expect(verbatim[0].title).not.toContain('harbour');
    const edited = await check({ text: temper.replace('ever crossed her in a temper', 'crossed her'), chapter: 'ch-01' });
    expect(edited.map((h) => h.kind)).toEqual(['attribute_contradiction']);
    // The passage stands twice in ch-05: its line says which.
    expect((await check({ text: temper, chapter: 'ch-05', line: 7 })).map((h) => h.kind)).toEqual(['attribute_contradiction']);
    expect(await check({ text: temper, chapter: 'ch-05' })).toEqual([]);
  });

  it('when the chapter names two women, a stranger, or a scene break before the passage, or does not hold it, or no chapter is given, then nothing is flagged', async () => {
    expect(await check({ text: temper, chapter: 'ch-02' })).toEqual([]);
    expect(await check({ text: temper, chapter: 'ch-03' })).toEqual([]);
    expect(await check({ text: temper, chapter: 'ch-04' })).toEqual([]);
    expect(await check({ text: 'Her eyes were blue, the ferryman said to nobody in particular, and she had a temper to match.', chapter: 'ch-01' })).toEqual([]);
    expect(await check({ text: temper })).toEqual([]);
  });

  it('when another woman is named before but the sentence just before the passage has one as its subject, then the first sentence\'s "her" is that subject; not when the other follows her', async () => {
    const recent = await check({ text: temper, chapter: 'ch-07' });
    expect(recent.map((h) => h.kind)).toEqual(['attribute_contradiction']);
    expect(recent[0].title).toContain('Ilse');
    expect(await check({ text: temper, chapter: 'ch-08' })).toEqual([]);
  });

  it('when the passage names its own woman before the pronoun, then the chapter changes nothing', async () => {
    expect(await check({ text: `Marta waited on the steps. ${temper}`, chapter: 'ch-06' })).toEqual([]);
  });

  it('when the chapter is checked in place, then it reads the description as the passage check now does: the same hit at its line', async () => {
    const res = await gw.request(`/projects/${projectId}/chapters/ch-01/check`, { method: 'POST', key });
    expect(res.status, res.text).toBe(200);
    expect(res.body.hits.map((h: { kind: string; line: number; quote: string }) => [h.kind, h.line])).toEqual([['attribute_contradiction', 3]]);
  });
});
