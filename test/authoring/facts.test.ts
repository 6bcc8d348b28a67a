// Facts authored one at a time over REST and GraphQL: create with provenance, retcons that keep the old fact in the
// entity's history, retirement, and what depends on a fact or an entity. A real gateway and database; the only thing
// replaced is the LLM provider (for the stored conflict a retcon lists).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictCheckResult } from '../../rest/schemas.ts';
import { Dependents, Fact, FactHistory, RetconResult } from '../../rest/schemas/facts.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.ts';
import { entityIdsByName, importBundle, startTestGateway, type ApiResponse, type TestGateway } from '../support/gateway.ts';
import { expectProblem } from '../support/problem.ts';

let gw: TestGateway;
let fake: FakeLlm;
let key: string;
let keyId: string;
let projectId: string;
let ids: Record<string, string>;

// A third chapter, so that "from ch-02 on" leaves out ch-01's mentions of Mara and keeps ch-02's and ch-03's.
function bundle() {
  const b = saltmarshBundle();
  b.chapters.push({ id: 'ch-03', title: 'Nets', ordinal: 3, text: 'Mara Voss mended the nets.\nThe Heron sat low in the water.\nMara sang to the gulls.' });
  return b;
}

beforeAll(async () => {
  fake = await startFakeLlm();
  gw = await startTestGateway({ LORE_OPENAI_BASE_URL: fake.url });
  // Enough rate and quota for every request of this file in one minute.
  ({ key, id: keyId } = await gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 }));
  projectId = (await importBundle(gw, key, bundle())).projectId;
  ids = await entityIdsByName(gw, key, projectId);
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

const db = () => gw.gateway.runtime.services.prisma;
const used = async () => (await gw.request('/usage', { key })).body.used as number;
const post = (json: unknown, headers: Record<string, string> = {}, as = key) =>
  gw.request(`/projects/${projectId}/facts`, { method: 'POST', key: as, json, headers });
const patch = (factId: string, json: unknown, as = key) => gw.request(`/projects/${projectId}/facts/${factId}`, { method: 'PATCH', key: as, json });
const retire = (factId: string, reason?: string, as = key) =>
  gw.request(`/projects/${projectId}/facts/${factId}${reason ? `?reason=${encodeURIComponent(reason)}` : ''}`, { method: 'DELETE', key: as });
const searchIds = async (q: string) => (await gw.request(`/projects/${projectId}/search?q=${encodeURIComponent(q)}`, { key })).body.data.map((e: any) => e.id);
const liveFacts = async (entityId: string) =>
  (await gw.graphql('query ($p: ID!, $e: ID!) { entity(projectId: $p, entityId: $e) { facts { id text } } }', { p: projectId, e: entityId }, key)).data.entity.facts as {
    id: string;
    text: string;
  }[];
const created = async (json: Record<string, unknown>) => {
  const res = await post(json);
  expect(res.status, res.text).toBe(201);
  return Fact.parse(res.body);
};
const fieldsOf = (res: ApiResponse) => (res.body.errors as { path: string }[]).map((e) => e.path);

const gqlFact = 'id entityId text status source candidateId from until createdAt createdBy retiredAt retiredBy replacedById';
const gqlRetcon = `fact { ${gqlFact} } replaced { ${gqlFact} } decisionId dependents { conflicts { id status kind title } beats { id chapter summary } mentions { id chapter line snippet } mentionCount }`;

describe('creating a fact', () => {
  it('when a fact is posted with story time and an Idempotency-Key, then 201 with its provenance, a replay returns it, and search finds it at once', async () => {
    expect(await searchIds('amber')).toEqual([]);
    const before = await used();
    const body = { entity_id: ids['Mara Voss'], text: 'Mara keeps an amber bead in her pocket.', from: 'ch-02', content: 'She turned the amber bead over.' };
    const res = await post(body, { 'Idempotency-Key': 'amber-1' });
    expect(res.status, res.text).toBe(201);
    const fact = Fact.parse(res.body);
    expect(fact).toMatchObject({ entity_id: ids['Mara Voss'], text: body.text, status: 'approved', source: 'api', from: 'ch-02', created_by: keyId });
    expect(fact.until).toBeUndefined();
    expect(fact.retired_at).toBeUndefined();
    expect(await used()).toBe(before + 1);

    const replay = await post(body, { 'Idempotency-Key': 'amber-1' });
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(fact.id);
    expect(await used()).toBe(before + 1);

    const candidate = await db().candidate.findUniqueOrThrow({ where: { id: fact.candidate_id! }, include: { decisions: true } });
    expect(candidate).toMatchObject({ kind: 'fact', status: 'approved', entityId: ids['Mara Voss'], fact: body.text, content: body.content, proposedBy: keyId });
    expect(candidate.decisions).toMatchObject([{ status: 'approved', decidedBy: keyId }]);
    expect(await searchIds('amber')).toEqual([ids['Mara Voss']]);
  });

  it('when a suggested fact is created over GraphQL, then its candidate is pending without a decision and search does not use it', async () => {
    const result = await gw.graphql(
      `mutation ($p: ID!, $e: ID!, $input: CreateFactInput!) { createFact(projectId: $p, entityId: $e, input: $input) { ${gqlFact} } }`,
      { p: projectId, e: ids['the Heron'], input: { text: 'The Heron has a cracked jade figurehead.', status: 'suggested', until: 'ch-03' } },
      key,
    );
    expect(result.errors).toBeUndefined();
    const fact = result.data.createFact;
    expect(fact).toMatchObject({ status: 'suggested', from: null, until: 'ch-03', entityId: ids['the Heron'], createdBy: keyId, retiredAt: null });
    const candidate = await db().candidate.findUniqueOrThrow({ where: { id: fact.candidateId }, include: { decisions: true } });
    expect(candidate).toMatchObject({ status: 'pending', decisions: [] });
    expect(await searchIds('figurehead')).toEqual([]);
  });

  it('when facts are posted one after another around a suggested and a retired one, then search finds each at once and the search text is the names and the approved live facts in order', async () => {
    const keth = ids['Keth Voss'];
    const searchText = async () => (await db().entity.findUniqueOrThrow({ where: { id: keth }, select: { searchText: true } })).searchText;
    const rewritten = async () => {
      const entity = await db().entity.findUniqueOrThrow({ where: { id: keth }, select: { nameText: true } });
      const facts = await db().fact.findMany({ where: { entityId: keth, status: 'approved', retiredAt: null }, orderBy: { id: 'asc' }, select: { text: true } });
      return [entity.nameText, ...facts.map((f) => f.text)].join('\n');
    };
    const first = await created({ entity_id: keth, text: 'Keth whittles gannet decoys.' });
    await created({ entity_id: keth, text: 'Keth owes the harbourmaster a barrel of pitch.', status: 'suggested' });
    expect(await searchIds('gannet')).toEqual([keth]);
    expect(await searchIds('harbourmaster')).toEqual([]);
    await created({ entity_id: keth, text: 'Keth fears the cormorant rocks.' });
    expect((await retire(first.id)).status).toBe(200);
    await created({ entity_id: keth, text: 'Keth tars his boat each spring with juniper smoke.' });
    expect(await searchIds('gannet')).toEqual([]);
    for (const word of ['cormorant', 'juniper']) expect(await searchIds(word)).toEqual([keth]);
    expect(await searchText()).toBe(await rewritten());
  });

  it('when the entity already has the same live text, then 409 already_exists naming the text and nothing is written', async () => {
    const count = await db().fact.count({ where: { projectId } });
    const res = await post({ entity_id: ids['Mara Voss'], text: "Mara's eyes are green." });
    expectProblem(res, 409, 'already_exists');
    expect(fieldsOf(res)).toEqual(['body.text']);
    expect(await db().fact.count({ where: { projectId } })).toBe(count);
  });

  it('when the entity, a chapter, the span or the text is bad, then 400 naming the field and nothing is written', async () => {
    const count = async () => [await db().fact.count({ where: { projectId } }), await db().candidate.count({ where: { projectId } })];
    const before = await count();
    const mara = ids['Mara Voss'];
    const cases: [Record<string, unknown>, string][] = [
      [{ entity_id: 'ent_nosuchentity', text: 'Mara can whistle.' }, 'body.entity_id'],
      [{ entity_id: mara, text: 'Mara can whistle.', from: 'ch-99' }, 'body.from'],
      [{ entity_id: mara, text: 'Mara can whistle.', until: 'ch-99' }, 'body.until'],
      [{ entity_id: mara, text: 'Mara can whistle.', from: 'ch-02', until: 'ch-01' }, 'body.until'],
      [{ entity_id: mara, text: 'Mara can whistle.', from: 'ch-02', until: 'ch-02' }, 'body.until'],
      [{ entity_id: mara, text: '   ' }, 'body.text'],
      [{ entity_id: mara }, 'body.text'],
      [{ entity_id: mara, text: 'Mara can whistle.', status: 'canon' }, 'body.status'],
    ];
    for (const [json, field] of cases) {
      const res = await post(json);
      expectProblem(res, 400, 'validation_error');
      expect(fieldsOf(res), JSON.stringify(json)).toContain(field);
      expect(res.body.detail).toContain(field);
    }
    const gql = await gw.graphql(
      'mutation ($p: ID!, $e: ID!) { createFact(projectId: $p, entityId: $e, input: { text: "Mara can whistle.", from: "ch-09" }) { id } }',
      { p: projectId, e: mara },
      key,
    );
    expect(gql.errors![0].extensions).toMatchObject({ code: 'validation_error', errors: [{ path: 'input.from' }] });
    const unknownEntity = await gw.graphql('mutation ($p: ID!) { createFact(projectId: $p, entityId: "ent_x", input: { text: "x" }) { id } }', { p: projectId }, key);
    expect(unknownEntity.errors![0].extensions).toMatchObject({ code: 'validation_error', errors: [{ path: 'entityId' }] });
    expect(await count()).toEqual(before);
  });
});

describe('retcons', () => {
  it('when a fact is retconned over REST, then the old one is in history with who, when and what replaced it, and the answer lists what depends on it', async () => {
    const mara = ids['Mara Voss'];
    const old = await created({ entity_id: mara, text: 'Mara hoards walrus ivory.', from: 'ch-02' });
    const other = await created({ entity_id: ids['No magic at sea'], text: 'A spell cast at sea turns to brine.' });
    // Two stored conflicts: one cites the fact, one cites only another entity's fact.
    fake.script({
      object: {
        conflicts: [
          { severity: 'P2', kind: 'continuity_error', episode: null, title: 'Ivory or silver', rationale: 'Mara hoards walrus ivory.', refs: [old.id] },
          { severity: 'P3', kind: 'rule_violation', episode: null, title: 'Brine spell', rationale: 'Spells turn to brine at sea.', refs: [other.id] },
        ],
      },
    });
    const check = await gw.request(`/projects/${projectId}/conflicts/check`, {
      method: 'POST',
      key,
      headers: { 'X-LLM-Provider': 'openai', 'X-LLM-Key': 'sk-test-provider-key' },
      json: { text: 'Mara Voss counted her silver coins; no magic at sea, a spell at sea turns to brine.' },
    });
    expect(check.status, check.text).toBe(200);
    const hits = ConflictCheckResult.parse(check.body).conflicts;
    const citing = hits.find((h) => h.title === 'Ivory or silver')!;
    const unrelated = hits.find((h) => h.title === 'Brine spell')!;
    expect(citing.refs).toEqual([old.id]);

    const res = await patch(old.id, { text: 'Mara hoards narwhal ivory.', from: 'ch-03' });
    expect(res.status, res.text).toBe(200);
    const retcon = RetconResult.parse(res.body);
    expect(retcon.fact).toMatchObject({ text: 'Mara hoards narwhal ivory.', from: 'ch-03', status: 'approved', entity_id: mara, created_by: keyId });
    expect(retcon.replaced).toMatchObject({ id: old.id, text: 'Mara hoards walrus ivory.', from: 'ch-02', retired_by: keyId, replaced_by_id: retcon.fact!.id });
    expect(Date.parse(retcon.replaced.retired_at!)).toBeGreaterThanOrEqual(Date.parse(old.created_at));
    expect(retcon.fact!.candidate_id).not.toBe(old.candidate_id);
    const decision = await db().decision.findUniqueOrThrow({ where: { id: retcon.decision_id! } });
    expect(decision).toMatchObject({ candidateId: retcon.fact!.candidate_id, status: 'approved', decidedBy: keyId });

    // What depends on it: the conflict citing it (not the other), the beat naming Mara, her mentions from ch-02 on.
    const { dependents } = retcon;
    expect(dependents.conflicts).toEqual([{ id: citing.id, status: 'pending', kind: 'continuity_error', title: 'Ivory or silver' }]);
    expect(dependents.conflicts.map((c) => c.id)).not.toContain(unrelated.id);
    expect(dependents.beats).toEqual([{ id: expect.any(String), chapter: 'ch-01', summary: 'Mara and Keth sail past the dark lighthouse.' }]);
    expect(dependents.mentions.map((m) => [m.chapter, m.line])).toEqual([['ch-02', 3], ['ch-03', 1], ['ch-03', 3]]);
    expect(dependents.mention_count).toBe(3);

    const history = FactHistory.parse((await gw.request(`/projects/${projectId}/entities/${mara}/history`, { key })).body);
    expect(history.data[0]).toEqual(retcon.replaced);
    const live = await liveFacts(mara);
    expect(live.map((f) => f.text)).toContain('Mara hoards narwhal ivory.');
    expect(live.map((f) => f.id)).not.toContain(old.id);
    // Search reads the new text at once and no longer the old.
    expect(await searchIds('narwhal')).toEqual([mara]);
    expect(await searchIds('walrus')).toEqual([]);
  });

  it('when a fact is retconned to the same values, or a retired fact is changed or retired again, then 400 or 409 version_conflict and nothing is written', async () => {
    const fact = await created({ entity_id: ids['Gull Point'], text: 'Gull Point has forty steps.' });
    const nothing = await patch(fact.id, { text: 'Gull Point has forty steps.' });
    expectProblem(nothing, 400, 'validation_error');
    expect(fieldsOf(nothing)).toEqual(['body']);
    expectProblem(await patch(fact.id, {}), 400, 'validation_error');
    // null opens an end: on a fact that holds from the start, that changes nothing either.
    expect(fieldsOf(await patch(fact.id, { from: null }))).toEqual(['body']);
    const emptyText = await patch(fact.id, { text: '' });
    expectProblem(emptyText, 400, 'validation_error');
    expect(fieldsOf(emptyText)).toEqual(['body.text']);
    const badSpan = await patch(fact.id, { from: 'ch-03', until: 'ch-01' });
    expectProblem(badSpan, 400, 'validation_error');
    expect(fieldsOf(badSpan)).toEqual(['body.until']);
    expectProblem(await patch(fact.id, { from: 'ch-77' }), 400, 'validation_error');
    expect(await db().fact.findUniqueOrThrow({ where: { id: fact.id } })).toMatchObject({ retiredAt: null, fromChapterId: null });

    const retcon = RetconResult.parse((await patch(fact.id, { text: 'Gull Point has ninety steps.' })).body);
    const count = await db().fact.count({ where: { projectId } });
    const again = await patch(fact.id, { text: 'Gull Point has a hundred steps.' });
    expectProblem(again, 409, 'version_conflict');
    expect(again.body.detail).toContain(retcon.fact!.id);
    expectProblem(await retire(fact.id), 409, 'version_conflict');
    // The new text taken by another live fact of the entity: 409 already_exists.
    await created({ entity_id: ids['Gull Point'], text: 'Gull Point has a keeper.' });
    const taken = await patch(retcon.fact!.id, { text: 'Gull Point has a keeper.' });
    expectProblem(taken, 409, 'already_exists');
    expect(await db().fact.count({ where: { projectId } })).toBe(count + 1);
    expectProblem(await patch('fct_nosuchfact', { text: 'x' }), 404, 'not_found');
    expectProblem(await retire('fct_nosuchfact'), 404, 'not_found');
  });

  it('when a fact is retired over REST with a reason, then it leaves the canon and search, and the retirement is a decision with the reason', async () => {
    const heron = ids['the Heron'];
    const fact = await created({ entity_id: heron, text: 'The Heron carries a stuffed quokka.' });
    expect(await searchIds('quokka')).toEqual([heron]);
    const before = await used();
    const res = await retire(fact.id, 'The quokka was cut in revision.');
    expect(res.status, res.text).toBe(200);
    const retcon = RetconResult.parse(res.body);
    expect(retcon.fact).toBeUndefined();
    expect(retcon.replaced).toMatchObject({ id: fact.id, retired_by: keyId });
    expect(retcon.replaced.replaced_by_id).toBeUndefined();
    expect(retcon.dependents.mention_count).toBeGreaterThan(0);
    expect(await used()).toBe(before + 1);
    const decision = await db().decision.findUniqueOrThrow({ where: { id: retcon.decision_id! }, include: { candidate: true } });
    expect(decision).toMatchObject({ status: 'rejected', reason: 'The quokka was cut in revision.', decidedBy: keyId, candidateId: fact.candidate_id });
    expect(decision.candidate.status).toBe('rejected');
    expect(await searchIds('quokka')).toEqual([]);
    expect((await liveFacts(heron)).map((f) => f.id)).not.toContain(fact.id);
  });

  it('when a suggested fact is retconned, then its pending proposal leaves the review queue', async () => {
    const fact = await created({ entity_id: ids['Gull Point'], text: 'Gull Point smells of tar.', status: 'suggested' });
    const retcon = RetconResult.parse((await patch(fact.id, { status: 'approved' })).body);
    expect(retcon.fact).toMatchObject({ text: 'Gull Point smells of tar.', status: 'approved' });
    expect(await db().candidate.findUniqueOrThrow({ where: { id: fact.candidate_id! } })).toMatchObject({ status: 'rejected' });
    expect(await searchIds('tar')).toContain(ids['Gull Point']);
  });

  it('when retcons and retirements run over GraphQL, then from null opens the span, history lists them newest first and dependents covers every chapter', async () => {
    const mara = ids['Mara Voss'];
    const fact = await created({ entity_id: mara, text: 'Mara wears a whalebone ring.', from: 'ch-03' });
    const update = await gw.graphql(
      `mutation ($p: ID!, $f: ID!, $input: UpdateFactInput!) { updateFact(projectId: $p, factId: $f, input: $input) { ${gqlRetcon} } }`,
      { p: projectId, f: fact.id, input: { from: null } },
      key,
    );
    expect(update.errors).toBeUndefined();
    const retcon = update.data.updateFact;
    expect(retcon.fact).toMatchObject({ text: 'Mara wears a whalebone ring.', from: null, until: null });
    expect(retcon.replaced).toMatchObject({ id: fact.id, from: 'ch-03', replacedById: retcon.fact.id, retiredBy: keyId });
    // Held from the start: every chapter's mentions of Mara.
    const all = await db().mention.count({ where: { entityId: mara } });
    expect(retcon.dependents.mentionCount).toBe(all);
    expect(retcon.dependents.mentions.map((m: any) => m.chapter)).toContain('ch-01');

    const retired = await gw.graphql(
      `mutation ($p: ID!, $f: ID!) { retireFact(projectId: $p, factId: $f, reason: "Cut.") { ${gqlRetcon} } }`,
      { p: projectId, f: retcon.fact.id },
      key,
    );
    expect(retired.errors).toBeUndefined();
    expect(retired.data.retireFact).toMatchObject({ fact: null, replaced: { id: retcon.fact.id, retiredBy: keyId, replacedById: null } });

    const history = await gw.graphql(`query ($p: ID!, $e: ID!) { entity(projectId: $p, entityId: $e) { history { ${gqlFact} } } }`, { p: projectId, e: mara }, key);
    const listed = history.data.entity.history as any[];
    expect(listed.slice(0, 2).map((f) => f.id)).toEqual([retcon.fact.id, fact.id]);
    expect(listed[0].retiredAt >= listed[1].retiredAt).toBe(true);

    const dependents = await gw.graphql(
      'query ($p: ID!, $e: ID!) { dependents(projectId: $p, entityId: $e) { beats { chapter } mentions { chapter line } mentionCount } }',
      { p: projectId, e: mara },
      key,
    );
    expect(dependents.data.dependents).toMatchObject({ mentionCount: all, beats: [{ chapter: 'ch-01' }] });
    const neither = await gw.graphql('query ($p: ID!) { dependents(projectId: $p) { mentionCount } }', { p: projectId }, key);
    expect(neither.errors![0].extensions).toMatchObject({ code: 'validation_error', errors: [{ path: 'factId' }] });
    const both = await gw.graphql('query ($p: ID!, $e: ID!) { dependents(projectId: $p, factId: "fct_x", entityId: $e) { mentionCount } }', { p: projectId, e: mara }, key);
    expect(both.errors![0].extensions.code).toBe('validation_error');
  });
});

describe('dependents over REST', () => {
  it("when a fact's dependents are asked for, then mentions from its from chapter on; for its entity, every mention", async () => {
    const keth = ids['Keth Voss'];
    const fact = await created({ entity_id: keth, text: 'Keth carved his name in the mast.', from: 'ch-02' });
    const ofFact = Dependents.parse((await gw.request(`/projects/${projectId}/facts/${fact.id}/dependents`, { key })).body);
    expect(ofFact.mentions.map((m) => m.chapter)).toEqual(['ch-02']);
    expect(ofFact.beats.map((b) => b.chapter)).toEqual(['ch-01', 'ch-02']);
    const ofEntity = Dependents.parse((await gw.request(`/projects/${projectId}/entities/${keth}/dependents`, { key })).body);
    expect(ofEntity.mentions.map((m) => m.chapter)).toEqual(['ch-01', 'ch-02']);
    expect(ofEntity.mention_count).toBe(2);
    expectProblem(await gw.request(`/projects/${projectId}/facts/fct_nosuchfact/dependents`, { key }), 404, 'not_found');
    expectProblem(await gw.request(`/projects/${projectId}/entities/ent_nosuchentity/dependents`, { key }), 404, 'not_found');
    expectProblem(await gw.request(`/projects/${projectId}/entities/ent_nosuchentity/history`, { key }), 404, 'not_found');
  });

  it('when an entity has more than 200 mentions, then 200 are listed in reading order and mention_count is the total', async () => {
    const lines = Array.from({ length: 260 }, (_, i) => `Tamsin rowed past buoy ${i + 1}.`);
    const b = {
      project: { name: 'Many mentions' },
      entities: [{ key: 'tamsin', type: 'character', name: 'Tamsin' }],
      chapters: [
        { id: 'b', title: 'Second', ordinal: 2, text: lines.slice(130).join('\n') },
        { id: 'a', title: 'First', ordinal: 1, text: lines.slice(0, 130).join('\n') },
      ],
    };
    const other = (await importBundle(gw, key, b)).projectId;
    const tamsin = (await gw.request(`/projects/${other}/recall?q=Tamsin`, { key })).body.entities[0].id;
    const res = Dependents.parse((await gw.request(`/projects/${other}/entities/${tamsin}/dependents`, { key })).body);
    expect(res.mention_count).toBe(260);
    expect(res.mentions).toHaveLength(200);
    expect(res.mentions.slice(0, 2).map((m) => [m.chapter, m.line])).toEqual([['a', 1], ['a', 2]]);
    expect(res.mentions.at(-1)).toMatchObject({ chapter: 'b', line: 70 });
  });
});

describe("another account's ids", () => {
  it('when another account uses this project, fact or entity on any new route or field, then 404 not_found exactly like a missing one', async () => {
    const fact = await created({ entity_id: ids['Gull Point'], text: 'Gull Point has a bell.' });
    const stranger = await gw.createKey('pro');
    const mara = ids['Mara Voss'];
    const strangerProject = (await importBundle(gw, stranger.key, bundle())).projectId;
    const count = await db().fact.count({ where: { projectId } });
    const answers: ApiResponse[] = [
      await post({ entity_id: mara, text: 'Mara owns a lute.' }, {}, stranger.key),
      await patch(fact.id, { text: 'Gull Point has two bells.' }, stranger.key),
      await retire(fact.id, undefined, stranger.key),
      await gw.request(`/projects/${projectId}/facts/${fact.id}/dependents`, { key: stranger.key }),
      await gw.request(`/projects/${projectId}/entities/${mara}/dependents`, { key: stranger.key }),
      await gw.request(`/projects/${projectId}/entities/${mara}/history`, { key: stranger.key }),
      // Their own project with this account's fact or entity.
      await gw.request(`/projects/${strangerProject}/facts/${fact.id}`, { method: 'PATCH', key: stranger.key, json: { text: 'Two bells.' } }),
      await gw.request(`/projects/${strangerProject}/facts/${fact.id}`, { method: 'DELETE', key: stranger.key }),
      await gw.request(`/projects/${strangerProject}/facts/${fact.id}/dependents`, { key: stranger.key }),
      await gw.request(`/projects/${strangerProject}/entities/${mara}/dependents`, { key: stranger.key }),
      await gw.request(`/projects/${strangerProject}/entities/${mara}/history`, { key: stranger.key }),
    ];
    for (const res of answers) expectProblem(res, 404, 'not_found');
    // An entity in the body is checked like any field: another account's is unknown, as a missing one is.
    const foreignEntity = await gw.request(`/projects/${strangerProject}/facts`, { method: 'POST', key: stranger.key, json: { entity_id: mara, text: 'Mara owns a lute.' } });
    expectProblem(foreignEntity, 400, 'validation_error');
    expect(fieldsOf(foreignEntity)).toEqual(['body.entity_id']);
    const missing = await gw.request(`/projects/${strangerProject}/facts`, { method: 'POST', key: stranger.key, json: { entity_id: 'ent_nosuchentity', text: 'Mara owns a lute.' } });
    expect(missing.body.errors).toEqual([{ ...foreignEntity.body.errors[0], message: expect.any(String) }]);

    const gql = [
      'mutation ($p: ID!, $f: ID!) { updateFact(projectId: $p, factId: $f, input: { text: "x" }) { decisionId } }',
      'mutation ($p: ID!, $f: ID!) { retireFact(projectId: $p, factId: $f) { decisionId } }',
      'query ($p: ID!, $f: ID!) { dependents(projectId: $p, factId: $f) { mentionCount } }',
    ];
    for (const query of gql) {
      for (const p of [projectId, strangerProject]) {
        const result = await gw.graphql(query, { p, f: fact.id }, stranger.key);
        expect(result.errors?.[0]?.extensions?.code, query).toBe('not_found');
      }
    }
    expect(await db().fact.count({ where: { projectId } })).toBe(count);
    expect(await db().fact.findUniqueOrThrow({ where: { id: fact.id } })).toMatchObject({ retiredAt: null });
  });
});
