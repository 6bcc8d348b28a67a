// A passage checked with its chapter is read after what precedes it in that chapter's stored text: a passage whose
// person is named only in the sentences before it is judged of that person, without quoting those sentences; a passage
// the chapter does not hold, or a chapter naming someone else there, leaves it read alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';

const arrival = 'Ilse came down to the harbour at dawn and stood a long while looking out over the water.';
const temper = 'She had green eyes and a quick temper, and nobody on the quay crossed her.';

const bundle = () => ({
  project: { name: 'The Harbour Light' },
  chapters: [
    { id: 'ch-01', ordinal: 1, text: `${arrival}\n\n${temper.replace('green', 'blue')}` },
    { id: 'ch-02', ordinal: 2, text: `Marta came down to the harbour at dawn and stood a long while looking out over the water.\n\n${temper}` },
    { id: 'ch-03', ordinal: 3, text: `${arrival}\n\n* * *\n\n${temper.replace('green', 'blue')}` },
    { id: 'ch-05', ordinal: 5, text: 'Wren climbed the lighthouse stair at dusk.\n\nThe wave took the gallery rail, and Wren went with it into the sea.\n\nAt midnight she lit the lamp again.' },
    { id: 'ch-04', ordinal: 4, text: `Ilse had green eyes, and she came down to the harbour at dawn.\n\nShe stood a long while looking out over the water.` },
  ],
  entities: [
    { key: 'ilse', type: 'character', name: 'Ilse Marr', aliases: ['Ilse'], state: { status: 'alive', pronouns: 'she/her', eyes: 'blue' } },
    { key: 'wren', type: 'character', name: 'Wren Hale', aliases: ['Wren'], state: { status: 'alive', pronouns: 'she/her' }, stateChanges: [{ from: 'ch-05', line: 3, state: { status: 'dead' } }] },
    { key: 'marta', type: 'character', name: 'Marta Vell', aliases: ['Marta'], state: { status: 'alive', pronouns: 'she/her', eyes: 'green' } },
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

describe('a passage read with its surroundings', () => {
  it('when a passage of a stored chapter never names its person but the paragraph before it does, then it is judged of that person and no hit quotes the paragraph before', async () => {
    const hits = await check({ text: temper, chapter: 'ch-01' });
    expect(hits.map((h) => h.kind)).toEqual(['attribute_contradiction']);
    expect(hits[0].title).toContain('Ilse');
    for (const hit of hits) expect(`${hit.title} ${hit.rationale}`).not.toMatch(/harbour|dawn|came down/);
    // Given its line, it is read after what precedes that line.
    expect((await check({ text: temper, chapter: 'ch-01', line: 3 })).map((h) => h.kind)).toEqual(['attribute_contradiction']);
  });

  it('when the chapter names someone else before the passage, or does not hold the passage, or a scene break stands before it, then the passage is read alone and nothing is flagged', async () => {
    expect(await check({ text: temper, chapter: 'ch-02' })).toEqual([]);
    expect(await check({ text: 'She had green eyes, the ferryman said to nobody in particular, and a temper to match.', chapter: 'ch-01' })).toEqual([]);
    expect(await check({ text: temper, chapter: 'ch-03' })).toEqual([]);
    expect(await check({ text: temper })).toEqual([]);
    // What the paragraph before says is not judged: only the passage is.
    expect(await check({ text: 'She stood a long while looking out over the water.', chapter: 'ch-04' })).toEqual([]);
    expect(await check({ text: 'Ilse had green eyes, and she came down to the harbour at dawn.', chapter: 'ch-04' })).toHaveLength(1);
  });

  it('when a chapter checked in place has a stretch after a change anchored inside it, then that stretch is read after the paragraphs before it and the hit quotes the stretch alone', async () => {
    const res = await gw.request(`/projects/${projectId}/chapters/ch-05/check`, { method: 'POST', key });
    expect(res.status, res.text).toBe(200);
    expect(res.body.hits.map((h: { kind: string; line: number; quote: string }) => [h.kind, h.line, h.quote])).toEqual([['dead_character_active', 5, 'she lit']]);
  });
});
