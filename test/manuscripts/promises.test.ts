// extractCanon proposes promises' ledger lines: a promise the chapter sets up (new: on its entity's proposal) and
// payoffs of promises the canon has, for review like any canon; only those citing real canon and the chapter's words
// survive, and approving them writes the promise ledger. It proposes who knows a fact the same way: knowers the canon
// has, from the line the chapter shows them learning it. The writer's model is a loopback provider (OpenAI's format).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.ts';
import { entityIdsByName, importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let fake: FakeLlm;
let key: string;
let projectId: string;
let ids: Record<string, string>;
const byok = { 'X-LLM-Provider': 'openai', 'X-LLM-Key': 'sk-test-provider-key-0123456789', 'X-LLM-Model': 'gpt-test' };

beforeAll(async () => {
  fake = await startFakeLlm();
  gw = await startTestGateway({ LORE_OPENAI_BASE_URL: fake.url });
  ({ key } = await gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 }));
  projectId = (
    await importBundle(gw, key, {
      project: { name: 'The drowned bell' },
      entities: [
        { key: 'mara', type: 'character', name: 'Mara Voss', aliases: ['Mara'] },
        { key: 'keth', type: 'character', name: 'Keth Voss', aliases: ['Keth'] },
        { key: 'vow', type: 'promise', name: "Keth's vow", facts: ['Keth vowed to come home.'], promise: { involves: ['keth'] } },
      ],
      chapters: [
        { id: 'ch-1', ordinal: 1, title: 'The Oath', text: 'Mara swore she would find the drowned bell.\nKeth laughed at her.' },
        { id: 'ch-2', ordinal: 2, title: 'The Bell', text: 'Keth kept his vow at last and came home.\nMara heard the drowned bell ring under the sea.' },
      ],
    })
  ).projectId;
  ids = await entityIdsByName(gw, key, projectId);
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

const gql = async (query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}) =>
  (await gw.request(`${gw.url}/graphql`, { method: 'POST', key, headers, json: { query, variables } })).body as { data?: any; errors?: any[] };
const extract = (chapters: string[]) =>
  gql(
    `mutation ($projectId: ID!, $chapters: [String!]) { extractCanon(projectId: $projectId, chapters: $chapters) {
      chapters { chapter entitiesProposed promisesProposed dropped candidateIds } promisesProposed } }`,
    { projectId, chapters },
    byok,
  );
const candidates = async (candidateIds: string[]) => {
  const res = await gql(`query ($p: ID!) { candidates(projectId: $p, status: pending, limit: 100) { data { id kind entityName content promise { setUpIn paidOffIn involves } } } }`, { p: projectId });
  return (res.data.candidates.data as any[]).filter((c) => candidateIds.includes(c.id));
};
const approve = async (candidateId: string) => {
  const res = await gw.request(`/projects/${projectId}/candidates/${candidateId}/approve`, { method: 'POST', key });
  expect(res.status, res.text).toBe(200);
};
const ledger = async () => (await gw.request(`/projects/${projectId}/promises`, { key })).body.promises as any[];

describe('extractCanon and the promise ledger', () => {
  it('when the model reports a new promise set up in ch-1, then it is proposed with its ledger line; a payoff of no known promise, a quote not in the chapter, a non-promise and an unknown involved name are dropped', async () => {
    fake.script({
      object: {
        entities: [
          { name: 'The drowned bell', type: 'promise', aliases: [], quote: 'Mara swore she would find the drowned bell.', facts: [{ text: 'Mara swore to find the drowned bell.', quote: 'Mara swore she would find the drowned bell.' }] },
        ],
        promises: [
          { name: 'The drowned bell', event: 'set_up', involves: ['Mara', 'Old Tom'], quote: 'Mara swore she would find the drowned bell.' },
          { name: 'The lost crown', event: 'paid_off', involves: [], quote: 'Keth laughed at her.' },
          { name: "Keth's vow", event: 'set_up', involves: ['Keth'], quote: 'Keth promised to come home.' },
          { name: 'Mara', event: 'paid_off', involves: [], quote: 'Keth laughed at her.' },
        ],
      },
    });
    const res = await extract(['ch-1']);
    expect(res.errors).toBeUndefined();
    expect(res.data.extractCanon.chapters).toEqual([expect.objectContaining({ chapter: 'ch-1', entitiesProposed: 1, promisesProposed: 1, dropped: 4 })]);
    const system = fake.requests.at(-1)!.body.messages.find((m: any) => m.role === 'system').content as string;
    expect(system).toContain('"promises"');

    const [entity] = await candidates(res.data.extractCanon.chapters[0].candidateIds);
    expect(entity).toMatchObject({ kind: 'entity', entityName: 'The drowned bell', promise: { setUpIn: 'ch-1', paidOffIn: null, involves: [ids['Mara Voss']] } });
    expect(entity.content).toContain('line 1: "Mara swore she would find the drowned bell."');
    expect((await ledger()).find((p) => p.name === 'The drowned bell')).toMatchObject({ approval: 'suggested', set_up_in: null });
    expect((await ledger()).find((p) => p.name === "Keth's vow")).toMatchObject({ set_up_in: null });

    await approve(entity.id);
    expect((await ledger()).find((p) => p.name === 'The drowned bell')).toMatchObject({ approval: 'approved', status: 'open', set_up_in: 'ch-1', involves: [{ id: ids['Mara Voss'], name: 'Mara Voss' }] });
  });

  it('when the model reports payoffs in ch-2 of the bell and of the vow, then each is a promise candidate, and approving them pays both there', async () => {
    fake.script({
      object: {
        entities: [],
        promises: [
          { name: 'The drowned bell', event: 'paid_off', involves: ['Mara'], quote: 'Mara heard the drowned bell ring under the sea.' },
          { name: "Keth's vow", event: 'paid_off', involves: ['Keth'], quote: 'Keth kept his vow at last and came home.' },
        ],
      },
    });
    const res = await extract(['ch-2']);
    expect(res.errors).toBeUndefined();
    expect(res.data.extractCanon).toMatchObject({ promisesProposed: 2, chapters: [expect.objectContaining({ promisesProposed: 2, dropped: 0 })] });
    const proposed = await candidates(res.data.extractCanon.chapters[0].candidateIds);
    expect(proposed.map((c) => [c.kind, c.entityName, c.promise.paidOffIn]).sort()).toEqual([['promise', "Keth's vow", 'ch-2'], ['promise', 'The drowned bell', 'ch-2']]);
    expect((await ledger()).filter((p) => p.status === 'paid')).toEqual([]);

    for (const c of proposed) await approve(c.id);
    const paid = (await ledger()).filter((p) => p.status === 'paid').map((p) => [p.name, p.paid_off_in]);
    expect(paid.sort()).toEqual([["Keth's vow", 'ch-2'], ['The drowned bell', 'ch-2']]);
  });
});

describe('extractCanon and who knows what', () => {
  it('when the model says a secret of ch-2 is known by Keth and learned by Mara at a line, then the proposed facts carry it, unknown knowers and quotes not in the chapter are dropped, and approving makes it knowledge', async () => {
    const { projectId: spy } = await importBundle(gw, key, {
      project: { name: `The letter ${Math.random().toString(36).slice(2)}` },
      entities: [
        { key: 'mara', type: 'character', name: 'Mara Voss', aliases: ['Mara'] },
        { key: 'keth', type: 'character', name: 'Keth Voss', aliases: ['Keth'] },
      ],
      chapters: [
        { id: 'ch-1', ordinal: 1, title: 'The Quay', text: 'Mara rowed out to the wreck.\nKeth waited on the quay.' },
        { id: 'ch-2', ordinal: 2, title: 'The Letter', text: 'Keth took the letter from his coat.\nMara read the letter over his shoulder.\nWren smiled in the dark.' },
      ],
    });
    const who = await entityIdsByName(gw, key, spy);
    fake.script({
      object: {
        entities: [
          { name: 'Wren', type: 'character', aliases: [], quote: 'Wren smiled in the dark.', facts: [
            { text: 'Wren knows where the bell lies.', quote: 'Wren smiled in the dark.', secret: true, known_by: [{ name: 'Wren' }] },
            { text: 'Wren smiles in the dark.', quote: 'Wren smiled in the dark.' },
          ] },
          { name: 'Keth Voss', type: 'character', aliases: ['Keth'], quote: 'Keth took the letter from his coat.', facts: [
            { text: 'Keth sold the Heron to the wreckers.', quote: 'Keth took the letter from his coat.', secret: true,
              known_by: [{ name: 'Keth' }, { name: 'Mara', quote: 'Mara read the letter over his shoulder.' }, { name: 'Old Tom' }, { name: 'Wren', quote: 'Wren was never there.' }] },
          ] },
          { name: 'Mara Voss', type: 'character', aliases: [], quote: 'Mara read the letter over his shoulder.', facts: [{ text: 'Mara reads the letter.', quote: 'Mara read the letter over his shoulder.' }] },
        ],
      },
    });
    const res = await gql(
      'mutation ($projectId: ID!) { extractCanon(projectId: $projectId, chapters: ["ch-2"]) { chapters { entitiesProposed factsProposed dropped candidateIds } } }',
      { projectId: spy },
      byok,
    );
    expect(res.errors).toBeUndefined();
    const [chapter] = res.data.extractCanon.chapters;
    expect(chapter).toMatchObject({ entitiesProposed: 1, factsProposed: 4, dropped: 2 });
    expect(fake.requests.at(-1)!.body.messages.find((m: any) => m.role === 'system').content).toContain('"known_by"');

    const queue = await gql(`query ($p: ID!) { candidates(projectId: $p, status: pending, limit: 100) { data { id kind entityId entityName facts { text secret knownBy { entityId from line } } } } }`, { p: spy });
    const proposed = queue.data.candidates.data as any[];
    const wren = proposed.find((c) => c.kind === 'entity' && c.entityName === 'Wren').entityId;
    const fact = (text: string) => proposed.flatMap((c) => c.facts).find((f: any) => f.text === text);
    expect(fact('Keth sold the Heron to the wreckers.').secret).toBe(true);
    expect(fact('Keth sold the Heron to the wreckers.').knownBy).toEqual(
      expect.arrayContaining([{ entityId: who['Keth Voss'], from: null, line: null }, { entityId: who['Mara Voss'], from: 'ch-2', line: 2 }]),
    );
    expect(fact('Keth sold the Heron to the wreckers.').knownBy).toHaveLength(2);
    expect(fact('Wren knows where the bell lies.')).toEqual({ text: 'Wren knows where the bell lies.', secret: true, knownBy: [{ entityId: wren, from: null, line: null }] });
    expect(fact('Wren smiles in the dark.')).toMatchObject({ secret: false, knownBy: [] });
    expect(fact('Mara reads the letter.')).toMatchObject({ secret: false, knownBy: [] });

    // The entity first, then the facts proposed about it.
    for (const c of [...proposed].sort((a, b) => Number(b.kind === 'entity') - Number(a.kind === 'entity'))) {
      const approved = await gw.request(`/projects/${spy}/candidates/${c.id}/approve`, { method: 'POST', key });
      expect(approved.status, approved.text).toBe(200);
    }
    const knowledge = async (entityId: string, query: string) => (await gw.request(`/projects/${spy}/entities/${entityId}/knowledge${query}`, { key })).body;
    const texts = (list: { text: string }[]) => list.map((f) => f.text);
    expect(texts((await knowledge(who['Mara Voss'], '?as_of=ch-2&line=1')).unaware)).toEqual(expect.arrayContaining(['Keth sold the Heron to the wreckers.', 'Wren knows where the bell lies.']));
    expect(texts((await knowledge(who['Mara Voss'], '?as_of=ch-2&line=3')).knows)).toContain('Keth sold the Heron to the wreckers.');
    expect(texts((await knowledge(who['Keth Voss'], '?as_of=ch-1')).knows)).toContain('Keth sold the Heron to the wreckers.');
    expect(texts((await knowledge(wren, '?as_of=ch-2')).knows)).toContain('Wren knows where the bell lies.');
  });
});
