// Story time end to end: bundles carry spans on facts and timed state values, recall answers as of a chapter on REST
// and GraphQL, and the conflict check judges a passage against the canon as of its chapter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictCheckResult, RecallResponse } from '../../rest/schemas.ts';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectProblem } from '../support/problem.ts';
import { drownedYearBundle, texts } from './fixtures.ts';

let gw: TestGateway;
let fake: FakeLlm;
let key: string;
let projectId: string;

const importMutation = `mutation ($bundle: JSON!, $projectId: ID) {
  importBundle(bundle: $bundle, projectId: $projectId) {
    projectId changed
    counts { entitiesCreated entitiesUpdated factsCreated factsUpdated relationshipsCreated relationshipsUpdated chaptersCreated chaptersUpdated mentionsRecorded beatsRecorded }
  }
}`;

async function runImport(bundle: unknown, target?: string, as = key) {
  const result = await gw.graphql(importMutation, { bundle, projectId: target }, as);
  if (result.errors) throw new Error(`import failed: ${JSON.stringify(result.errors)}`);
  return result.data.importBundle;
}

const prisma = () => gw.gateway.runtime.services.prisma;

async function rowCounts() {
  const p = prisma();
  return {
    projects: await p.project.count(), entities: await p.entity.count(), facts: await p.fact.count(), stateValues: await p.stateValue.count(),
    candidates: await p.candidate.count(), chapters: await p.chapter.count(), mentions: await p.mention.count(),
  };
}

const recall = (query: string, as = key, project = projectId) => gw.request(`/projects/${project}/recall${query}`, { key: as });
const entityNamed = (body: any, name: string) => body.entities.find((e: any) => e.canonicalName === name);

beforeAll(async () => {
  fake = await startFakeLlm();
  gw = await startTestGateway({ LORE_OPENAI_BASE_URL: fake.url });
  ({ key } = await gw.createKey('pro'));
  projectId = (await runImport(drownedYearBundle())).projectId;
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

describe('bundles with story time', () => {
  it('when a bundle carries timed facts and state changes, then each key is a timed value, facts keep their spans and the latest state is derived', async () => {
    const ilse = await prisma().entity.findUniqueOrThrow({ where: { projectId_key: { projectId, key: 'ilse' } } });
    expect(ilse.baseState).toEqual({ status: 'alive', eyes: 'grey' });
    expect(ilse.state).toEqual({ status: 'dead', eyes: 'grey' });
    const oren = await prisma().entity.findUniqueOrThrow({ where: { projectId_key: { projectId, key: 'oren' } }, include: { stateValues: true } });
    expect(oren.stateValues.map((v) => [v.key, v.value]).sort()).toEqual([['location', 'at sea'], ['mood', 'restless']]);
    expect(oren.state).toEqual({ status: 'alive' });
    const facts = await prisma().fact.findMany({ where: { entityId: ilse.id }, include: { fromChapter: true, untilChapter: true } });
    const span = (text: string) => {
      const f = facts.find((x) => x.text === text)!;
      return [f.fromChapter?.externalId ?? null, f.untilChapter?.externalId ?? null, f.status];
    };
    expect(span('Ilse keeps the Gull Point light.')).toEqual([null, null, 'approved']);
    expect(span('Ilse is betrothed to Oren.')).toEqual([null, 'ch-10', 'approved']);
    expect(span('Ilse drowned off Gull Point.')).toEqual(['ch-30', null, 'approved']);
    expect(span('Ilse may have a twin sister.')).toEqual([null, null, 'suggested']);
  });

  it('when the same bundle is imported again, then nothing changes: changed=false, every count 0, the same rows, whatever the order of its state changes', async () => {
    const before = await prisma().stateValue.findMany({ where: { projectId }, orderBy: { id: 'asc' } });
    const versions = await prisma().entity.findMany({ where: { projectId }, select: { id: true, version: true, state: true }, orderBy: { id: 'asc' } });
    const result = await runImport(drownedYearBundle(), projectId);
    expect(result.changed).toBe(false);
    expect(Object.values(result.counts).every((n) => n === 0), JSON.stringify(result.counts)).toBe(true);
    expect(await prisma().stateValue.findMany({ where: { projectId }, orderBy: { id: 'asc' } })).toEqual(before);
    expect(await prisma().entity.findMany({ where: { projectId }, select: { id: true, version: true, state: true }, orderBy: { id: 'asc' } })).toEqual(versions);
    // The same values listed in another order (as an export groups them) are no change either.
    const reordered = drownedYearBundle();
    reordered.entities[1].stateChanges = [{ from: 'ch-05', until: 'ch-10', state: { mood: 'restless', location: 'at sea' } }];
    expect((await runImport(reordered, projectId)).changed).toBe(false);
    expect(await prisma().stateValue.findMany({ where: { projectId }, orderBy: { id: 'asc' } })).toEqual(before);
  });

  it('when a bundle moves a fact span and a state change, then the fact is updated in place and the timed values replaced', async () => {
    const { key: k } = await gw.createKey('pro');
    const bundle = drownedYearBundle();
    bundle.project.name = 'The Drowned Year, moved';
    const target = (await runImport(bundle, undefined, k)).projectId;
    const factBefore = await prisma().fact.findFirstOrThrow({ where: { projectId: target, text: 'Ilse is betrothed to Oren.' } });
    const ilseBefore = await prisma().entity.findUniqueOrThrow({ where: { projectId_key: { projectId: target, key: 'ilse' } } });

    bundle.entities[0].facts[1] = { text: 'Ilse is betrothed to Oren.', from: 'ch-01', until: 'ch-31' };
    bundle.entities[0].stateChanges = [{ from: 'ch-31', state: { status: 'dead' } }];
    const result = await runImport(bundle, target, k);
    expect(result.changed).toBe(true);
    expect(result.counts).toMatchObject({ factsCreated: 0, factsUpdated: 1, entitiesCreated: 0, entitiesUpdated: 1 });

    const factAfter = await prisma().fact.findUniqueOrThrow({ where: { id: factBefore.id }, include: { fromChapter: true, untilChapter: true } });
    expect([factAfter.fromChapter?.externalId, factAfter.untilChapter?.externalId]).toEqual(['ch-01', 'ch-31']);
    const ilseAfter = await prisma().entity.findUniqueOrThrow({ where: { id: ilseBefore.id }, include: { stateValues: { include: { fromChapter: true } } } });
    expect(ilseAfter.stateValues.map((v) => [v.key, v.value, v.fromChapter?.externalId])).toEqual([['status', 'dead', 'ch-31']]);
    expect(ilseAfter.version).toBe(ilseBefore.version + 1);
    const at30 = entityNamed((await recall('?q=Ilse&as_of=ch-30', k, target)).body, 'Ilse Marr');
    expect(at30.currentState).toEqual({ status: 'alive', eyes: 'grey' });
    expect(texts(at30.facts)).toContain('Ilse is betrothed to Oren.');

    // An empty list clears the timed values; the latest state falls back to the timeless one.
    bundle.entities[0].stateChanges = [];
    expect((await runImport(bundle, target, k)).counts.entitiesUpdated).toBe(1);
    const cleared = await prisma().entity.findUniqueOrThrow({ where: { id: ilseBefore.id }, include: { stateValues: true } });
    expect(cleared.stateValues).toEqual([]);
    expect(cleared.state).toEqual({ status: 'alive', eyes: 'grey' });
  });

  it('when a later bundle names a chapter only the project has, then its spans resolve against the stored chapters', async () => {
    const { key: k } = await gw.createKey('pro');
    const first = drownedYearBundle();
    first.project.name = 'Stored chapters';
    const target = (await runImport(first, undefined, k)).projectId;
    const later = {
      project: { name: 'Stored chapters' },
      entities: [{ key: 'wren', type: 'character', name: 'Wren', state: { status: 'child' }, stateChanges: [{ from: 'ch-31', state: { status: 'grown' } }], facts: [{ text: 'Wren is born.', from: 'ch-10' }] }],
    };
    const result = await runImport(later, target, k);
    expect(result.counts).toMatchObject({ entitiesCreated: 1, factsCreated: 1 });
    const wren = entityNamed((await recall('?q=Wren&as_of=ch-10', k, target)).body, 'Wren');
    expect(wren).toMatchObject({ currentState: { status: 'child' }, facts: [{ text: 'Wren is born.', from: 'ch-10' }] });
    expect(entityNamed((await recall('?q=Wren', k, target)).body, 'Wren').currentState).toEqual({ status: 'grown' });
  });

  describe('when a span is wrong, then the bundle is rejected whole as invalid_bundle naming each field, and nothing is written', () => {
    const bad: [string, (b: any) => void, string[]][] = [
      ['an unknown chapter in a fact', (b) => { b.entities[0].facts[1].until = 'ch-99'; }, ['entities.0.facts.1.until']],
      ['a fact until before its from', (b) => { b.entities[0].facts[2] = { text: 'Ilse drowned off Gull Point.', from: 'ch-30', until: 'ch-05' }; }, ['entities.0.facts.2.until']],
      ['an until equal to from', (b) => { b.entities[1].stateChanges[0].until = 'ch-05'; }, ['entities.1.stateChanges.0.until']],
      ['an unknown chapter in a state change', (b) => { b.entities[0].stateChanges[0].from = 'ch-99'; }, ['entities.0.stateChanges.0.from']],
      ['a state change with neither from nor until', (b) => { b.entities[1].stateChanges.push({ state: { mood: 'calm' } }); }, ['entities.1.stateChanges.1.from']],
      ['a state change setting nothing', (b) => { b.entities[1].stateChanges[0].state = {}; }, ['entities.1.stateChanges.0.state']],
      ['one fact text twice with different spans', (b) => { b.entities[0].facts.push({ text: 'Ilse keeps the Gull Point light.', until: 'ch-30' }); }, ['entities.0.facts.4']],
      ['a fact with an unknown status', (b) => { b.entities[2].facts[0] = { text: 'Gull Point has a lighthouse.', status: 'maybe' }; }, ['entities.2.facts.0.status']],
      ["a span on a chapter the bundle reorders before it", (b) => { b.chapters[4].ordinal = 2; b.entities[0].facts[2].until = 'ch-31'; }, ['entities.0.facts.2.until']],
    ];
    for (const [what, mutate, paths] of bad) {
      it(what, async () => {
        const { key: k } = await gw.createKey('pro');
        const bundle = drownedYearBundle();
        bundle.project.name = `Rejected: ${what}`;
        mutate(bundle);
        const before = await rowCounts();
        const result = await gw.graphql(importMutation, { bundle }, k);
        expect(result.data?.importBundle ?? null).toBeNull();
        const [error] = result.errors ?? [];
        expect(error.extensions.code).toBe('invalid_bundle');
        expect(error.extensions.status).toBe(400);
        expect(error.extensions.errors.map((e: any) => e.path)).toEqual(paths);
        expect(await rowCounts()).toEqual(before);
      });
    }
  });
});

describe('recall as of a chapter', () => {
  it('when recall is asked as of ch-05, ch-31 and without as_of on REST, then state and facts are those of that chapter, then the latest', async () => {
    const early = await recall('?q=Ilse&as_of=ch-05');
    expect(early.status).toBe(200);
    RecallResponse.parse(early.body);
    const at5 = entityNamed(early.body, 'Ilse Marr');
    expect(at5.currentState).toEqual({ status: 'alive', eyes: 'grey' });
    expect(texts(at5.facts)).toEqual(['Ilse is betrothed to Oren.', 'Ilse keeps the Gull Point light.']);
    expect(at5.facts.find((f: any) => f.text === 'Ilse is betrothed to Oren.')).toEqual({ id: expect.stringMatching(/^fct_/), text: 'Ilse is betrothed to Oren.', until: 'ch-10' });
    expect(at5.suggestedFacts).toEqual([{ id: expect.stringMatching(/^fct_/), text: 'Ilse may have a twin sister.' }]);

    const late = entityNamed((await recall('?q=Ilse&as_of=ch-31')).body, 'Ilse Marr');
    expect(late.currentState).toEqual({ status: 'dead', eyes: 'grey' });
    expect(texts(late.facts)).toEqual(['Ilse drowned off Gull Point.', 'Ilse keeps the Gull Point light.']);
    expect(late.facts.find((f: any) => f.text === 'Ilse drowned off Gull Point.')).toMatchObject({ from: 'ch-30' });

    const latest = entityNamed((await recall('?q=Ilse')).body, 'Ilse Marr');
    expect(latest.currentState).toEqual({ status: 'dead', eyes: 'grey' });
    expect(texts(latest.facts)).toEqual(['Ilse drowned off Gull Point.', 'Ilse keeps the Gull Point light.']);
    expect(texts(latest.suggestedFacts)).toEqual(['Ilse may have a twin sister.']);
    // The first answer again: as_of is part of what the read caches keep an answer under.
    expect(entityNamed((await recall('?q=Ilse&as_of=ch-05')).body, 'Ilse Marr').currentState.status).toBe('alive');
  });

  it('when as_of is the chapter a span starts or ends at, then from is inclusive and until exclusive', async () => {
    expect(entityNamed((await recall('?q=Ilse&as_of=ch-30')).body, 'Ilse Marr').currentState.status).toBe('dead');
    const ilseAt10 = entityNamed((await recall('?q=Ilse&as_of=ch-10')).body, 'Ilse Marr');
    expect(texts(ilseAt10.facts)).toEqual(['Ilse keeps the Gull Point light.']);
    const orenAt = async (chapter: string) => entityNamed((await recall(`?q=Oren&as_of=${chapter}`)).body, 'Oren Hale').currentState;
    expect(await orenAt('ch-01')).toEqual({ status: 'alive' });
    expect(await orenAt('ch-05')).toEqual({ status: 'alive', location: 'at sea', mood: 'restless' });
    expect(await orenAt('ch-10')).toEqual({ status: 'alive' });
  });

  it('when GraphQL recall takes asOf, then currentState, approvedFacts and suggestedFacts follow it', async () => {
    const query = `query ($p: ID!, $asOf: String) { recall(projectId: $p, q: "Ilse", asOf: $asOf) {
      canonicalName currentState approvedFacts { id text from until } suggestedFacts { text from until } } }`;
    const at5 = await gw.graphql(query, { p: projectId, asOf: 'ch-05' }, key);
    expect(at5.errors).toBeUndefined();
    expect(at5.data.recall[0].currentState).toEqual({ status: 'alive', eyes: 'grey' });
    expect(at5.data.recall[0].approvedFacts.map((f: any) => [f.text, f.from, f.until]).sort()).toEqual([
      ['Ilse is betrothed to Oren.', null, 'ch-10'], ['Ilse keeps the Gull Point light.', null, null],
    ]);
    expect(at5.data.recall[0].suggestedFacts).toEqual([{ text: 'Ilse may have a twin sister.', from: null, until: null }]);
    const latest = await gw.graphql(query, { p: projectId }, key);
    expect(latest.data.recall[0].currentState.status).toBe('dead');
    expect(texts(latest.data.recall[0].approvedFacts)).toEqual(['Ilse drowned off Gull Point.', 'Ilse keeps the Gull Point light.']);
  });

  it('when search finds an entity, then it carries its latest approved and suggested facts', async () => {
    const res = await gw.request(`/projects/${projectId}/search?q=Ilse`, { key });
    expect(res.status).toBe(200);
    const ilse = res.body.data.find((e: any) => e.canonicalName === 'Ilse Marr');
    expect(texts(ilse.facts)).toEqual(['Ilse drowned off Gull Point.', 'Ilse keeps the Gull Point light.']);
    expect(texts(ilse.suggestedFacts)).toEqual(['Ilse may have a twin sister.']);
  });

  it('when as_of is not a chapter of the project, then 400 validation_error naming as_of on REST and GraphQL', async () => {
    const unknown = expectProblem(await recall('?as_of=ch-99'), 400, 'validation_error');
    expect(unknown.errors).toEqual([{ path: 'as_of', message: expect.stringContaining('ch-99') }]);
    const malformed = expectProblem(await recall('?as_of=not%20a%20chapter'), 400, 'validation_error');
    expect(malformed.errors?.map((e) => e.path)).toEqual(['query.as_of']);
    const graphql = await gw.graphql('query ($p: ID!) { recall(projectId: $p, asOf: "ch-99") { id } }', { p: projectId }, key);
    expect(graphql.errors?.[0].extensions).toMatchObject({ code: 'validation_error', errors: [{ path: 'as_of' }] });
  });

  it("when another account asks for a project's recall as of a chapter, then 404 exactly like a missing project", async () => {
    const { key: other } = await gw.createKey('pro');
    expectProblem(await recall('?as_of=ch-05', other), 404, 'not_found');
    expectProblem(await recall('?as_of=ch-99', other), 404, 'not_found');
    expectProblem(await recall('?as_of=ch-05', key, 'prj_missing'), 404, 'not_found');
  });
});

describe('conflict check as of its chapter', () => {
  const passage = '"Keep the light burning," said Ilse, and she climbed the stair.';
  const check = (chapter?: string) =>
    gw.request(`/projects/${projectId}/conflicts/check`, {
      method: 'POST',
      key,
      headers: { 'X-LLM-Provider': 'openai', 'X-LLM-Key': 'sk-provider-test-0123456789' },
      json: { text: passage, ...(chapter ? { chapter } : {}) },
    });
  const deadActing = (body: unknown) => ConflictCheckResult.parse(body).conflicts.filter((h) => h.kind === 'dead_character_active');

  it('when the passage is in ch-05, before the death at ch-30, then no hit, and the model is shown the canon as of ch-05', async () => {
    const res = await check('ch-05');
    expect(res.status).toBe(200);
    expect(deadActing(res.body)).toEqual([]);
    const user = fake.requests.at(-1)!.body.messages.at(-1).content as string;
    const canon = JSON.parse(user.slice(user.indexOf('<canon>') + '<canon>'.length, user.indexOf('</canon>')));
    const ilse = canon.entities.find((e: any) => e.name === 'Ilse Marr');
    expect(ilse.state).toEqual({ status: 'alive', eyes: 'grey' });
    expect(texts(ilse.facts)).toEqual(['Ilse is betrothed to Oren.', 'Ilse keeps the Gull Point light.']);
  });

  it('when the passage is in ch-31, after the death, then a P1 dead_character_active hit citing Ilse and the death fact', async () => {
    const res = await check('ch-31');
    expect(res.status).toBe(200);
    const [hit] = deadActing(res.body);
    const ilse = await prisma().entity.findUniqueOrThrow({ where: { projectId_key: { projectId, key: 'ilse' } } });
    const death = await prisma().fact.findFirstOrThrow({ where: { entityId: ilse.id, text: 'Ilse drowned off Gull Point.' } });
    expect(hit).toMatchObject({ severity: 'P1', episode: 'ch-31', refs: [ilse.id, death.id] });
  });

  it('when the passage is in the death chapter itself or names no chapter, then the death holds (from is inclusive; the latest state)', async () => {
    expect(deadActing((await check('ch-30')).body)).toHaveLength(1);
    expect(deadActing((await check()).body)).toHaveLength(1);
  });
});
