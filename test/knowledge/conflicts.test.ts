// The conflict check and who knows what, when, and the promise ledger: the deterministic core's plain cases (a
// character saying the words of a fact they do not know yet; a promise paid off before it is set up), what the model
// is told, and which of the model's knowledge_violation and promise_broken hits survive (only those citing real canon).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.ts';
import { entityIdsByName, importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { secretsBundle } from './fixtures.ts';

let gw: TestGateway;
let fake: FakeLlm;
let key: string;
let projectId: string;
let ids: Record<string, string>;
let spyFact: string;

beforeAll(async () => {
  fake = await startFakeLlm();
  gw = await startTestGateway({ LORE_OPENAI_BASE_URL: fake.url, LORE_LLM_TIMEOUT_MS: '5000' });
  ({ key } = await gw.createKey('pro'));
  projectId = (await importBundle(gw, key, secretsBundle())).projectId;
  ids = await entityIdsByName(gw, key, projectId);
  const jon = await gw.request(`/projects/${projectId}/entities/${ids['Jon Rook']}/knowledge`, { key });
  spyFact = jon.body.unaware.find((f: any) => f.text === 'Jon is a spy for the Crown.').id;
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.fallback = { object: { conflicts: [] } };
});

const byok = { 'X-LLM-Provider': 'openai', 'X-LLM-Key': 'sk-provider-test-1234567890', 'X-LLM-Model': 'test-model' };
const check = async (text: string, chapter?: string, line?: number) => {
  const res = await gw.request(`/projects/${projectId}/conflicts/check`, { method: 'POST', key, headers: byok, json: { text, chapter, line } });
  expect(res.status, res.text).toBe(200);
  return res.body.conflicts as any[];
};
const kinds = (conflicts: any[], kind: string) => conflicts.filter((c) => c.kind === kind);
const userPrompt = () => {
  const messages = fake.requests.at(-1)!.body.messages as { role: string; content: string }[];
  const user = messages.find((m) => m.role === 'user')!.content;
  return JSON.parse(/<canon>\n(.*)\n<\/canon>/s.exec(user)![1]);
};

describe('the deterministic core: a character saying what they do not know yet', () => {
  it('when Mara says the secret as of ch-03 (she learns it in ch-04), then a knowledge_violation cites her and the fact', async () => {
    const conflicts = kinds(await check('"Jon is a spy for the Crown," Mara said.', 'ch-03'), 'knowledge_violation');
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({ severity: 'P2', refs: [ids['Mara Voss'], spyFact], title: 'Mara Voss speaks of what they do not know yet' });
    expect(conflicts[0].rationale).toContain('they learn it in ch-04');
  });

  it('when the tag comes first ("Mara said, …"), then the same hit', async () => {
    expect(kinds(await check('Mara said, "Jon is a spy for the Crown."', 'ch-03'), 'knowledge_violation')).toHaveLength(1);
  });

  it('when the same words are said by Ada, who knows, or by Mara once she has learned it, then nothing', async () => {
    expect(kinds(await check('"Jon is a spy for the Crown," Ada said.', 'ch-03'), 'knowledge_violation')).toEqual([]);
    expect(kinds(await check('"Jon is a spy for the Crown," Mara said.', 'ch-04'), 'knowledge_violation')).toEqual([]);
  });

  it('when Ada says it at line 1 of ch-02, before the line she reads the letter, then a hit; from line 3, nothing', async () => {
    expect(kinds(await check('"Jon is a spy for the Crown," Ada said.', 'ch-02', 1), 'knowledge_violation')).toHaveLength(1);
    expect(kinds(await check('"Jon is a spy for the Crown," Ada said.', 'ch-02', 3), 'knowledge_violation')).toEqual([]);
  });

  it('when Mara asks it, denies it, or the narration says it, or she says only part of its words, then nothing', async () => {
    for (const text of [
      '"Is Jon a spy for the Crown?" Mara asked.',
      '"Jon is not a spy for the Crown," Mara said.',
      'Jon is a spy for the Crown, and Mara said nothing.',
      '"Jon is a spy," Mara said.',
    ]) {
      expect(kinds(await check(text, 'ch-03'), 'knowledge_violation'), text).toEqual([]);
    }
  });

  it('when the stored ch-02 is checked in place, then Ada saying it after the line she learns it is not a hit', async () => {
    const res = await gw.request(`/projects/${projectId}/chapters/ch-02/check`, { method: 'POST', key });
    expect(res.status, res.text).toBe(200);
    expect(res.body.hits.filter((h: any) => h.kind === 'knowledge_violation')).toEqual([]);
  });
});

describe('the deterministic core: a promise paid off before it is set up', () => {
  it('when a passage of ch-02 (its payoff chapter) or naming it is checked, then promise_broken cites the promise', async () => {
    const inPayoff = kinds(await check('Ada lit the lamps.', 'ch-02'), 'promise_broken');
    expect(inPayoff).toEqual([expect.objectContaining({ refs: [ids['The broken seal']], title: 'The broken seal is paid off before it is set up' })]);
    expect(kinds(await check('The broken seal was never spoken of.', 'ch-04'), 'promise_broken')).toHaveLength(1);
    expect(kinds(await check('Ada lit the lamps.', 'ch-03'), 'promise_broken')).toEqual([]);
  });
});

describe('what the model is told, and which of its hits survive', () => {
  it('when Mara is in the passage as of ch-03, then the prompt lists the secret she does not know yet, and Ada has nothing there', async () => {
    await check('Mara and Ada waited for the tide.', 'ch-03');
    const canon = userPrompt();
    expect(canon.not_known_yet).toContainEqual({ character: ids['Mara Voss'], facts: expect.arrayContaining([{ id: spyFact, text: 'Jon is a spy for the Crown.' }]) });
    const ada = canon.not_known_yet.find((c: any) => c.character === ids['Ada Quill']);
    expect((ada?.facts ?? []).map((f: any) => f.id)).not.toContain(spyFact);
    expect(fake.requests.at(-1)!.body.messages.find((m: any) => m.role === 'system').content).toContain('knowledge_violation');
  });

  it('when the model reports knowledge_violation hits, then only the one citing real canon survives', async () => {
    fake.script({
      object: {
        conflicts: [
          { severity: 'P2', kind: 'knowledge_violation', title: 'Mara acts on the secret', rationale: 'She shuns Jon as a spy.', refs: [ids['Mara Voss'], spyFact] },
          { severity: 'P2', kind: 'knowledge_violation', title: 'Invented', rationale: 'Cites nothing real.', refs: ['fct_invented', 'ent_nobody'] },
        ],
      },
    });
    const conflicts = kinds(await check('Mara would not sit by Jon, and kept her purse close.', 'ch-03'), 'knowledge_violation');
    expect(conflicts.map((c) => c.title)).toEqual(['Mara acts on the secret']);
    expect(conflicts[0].refs).toEqual([ids['Mara Voss'], spyFact]);
  });

  it('when the model reports promise_broken hits against the ledger, then only the one citing real canon survives, and the prompt gave the ledger', async () => {
    fake.script({
      object: {
        conflicts: [
          { severity: 'P2', kind: 'promise_broken', title: 'The debt is paid twice', rationale: 'It was paid in ch-04.', refs: [ids["Ada's debt"]] },
          { severity: 'P2', kind: 'promise_broken', title: 'Invented promise', rationale: 'No such promise.', refs: ['ent_invented'] },
        ],
      },
    });
    const conflicts = kinds(await check("Ada paid her debt to the smugglers again: a boat, as she owed.", 'ch-04'), 'promise_broken');
    expect(conflicts.map((c) => c.title)).toEqual(['The debt is paid twice']);
    const debt = userPrompt().promises.find((p: any) => p.id === ids["Ada's debt"]);
    expect(debt).toMatchObject({ status: 'paid', set_up_in: 'ch-01', paid_off_in: 'ch-04' });
  });
});
