// Review over REST and GraphQL: proposals are suggested until someone decides; the queue, approvals and rejections
// with the deciding key, time and reason; another account's ids; bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Candidate, CandidateList, DecidedCandidate, ProposeResult } from '../../rest/schemas/review.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { entityIdsByName, importBundle, startTestGateway, type ApiResponse, type TestGateway } from '../support/gateway.ts';
import { expectProblem as expectProblemAt } from '../support/problem.ts';

let gw: TestGateway;
let owner: { id: string; key: string; account: string };

beforeAll(async () => {
  gw = await startTestGateway();
  owner = await newKey();
});
afterAll(() => gw?.close());

// Many small requests in a few seconds: no per-minute limit in the way.
const newKey = () => gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 });
const expectProblem = (res: ApiResponse, status: number, code: string) => expectProblemAt(res, status, code, { site: gw.url });

/** A fresh copy of the example canon for one test: Mara, Keth (dead), the Heron, Gull Point, a rule, a suggested oath. */
async function newProject(key = owner.key) {
  const bundle = saltmarshBundle();
  bundle.project.name = `Review ${Math.random().toString(36).slice(2)}`;
  const { projectId } = await importBundle(gw, key, bundle);
  const ids = await entityIdsByName(gw, key, projectId);
  return { projectId, ids };
}

const propose = (projectId: string, body: unknown, options: { key?: string; idempotencyKey?: string } = {}) =>
  gw.request(`/projects/${projectId}/candidates`, {
    method: 'POST',
    key: options.key ?? owner.key,
    json: body,
    headers: options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {},
  });
const queue = (projectId: string, query = '', key = owner.key) => gw.request(`/projects/${projectId}/candidates${query}`, { key });
const decide = (projectId: string, candidateId: string, decision: 'approve' | 'reject', body?: unknown, key = owner.key) =>
  gw.request(`/projects/${projectId}/candidates/${candidateId}/${decision}`, { method: 'POST', key, ...(body === undefined ? {} : { json: body }) });
const search = async (projectId: string, q: string) =>
  (await gw.request(`/projects/${projectId}/search?q=${encodeURIComponent(q)}`, { key: owner.key })).body.data.map((e: any) => e.canonicalName);
const recallNames = async (projectId: string, q: string) =>
  (await gw.request(`/projects/${projectId}/recall?q=${encodeURIComponent(q)}`, { key: owner.key })).body.entities.map((e: any) => `${e.canonicalName}:${e.approvalStatus}`);
const entityFacts = async (projectId: string, entityId: string) =>
  (await gw.graphql('query ($p: ID!, $e: ID!) { entity(projectId: $p, entityId: $e) { facts { id text status } } }', { p: projectId, e: entityId }, owner.key)).data
    .entity.facts as { id: string; text: string; status: string }[];
/** Everything a refused request could have written: the queue of each status and the entities. */
const snapshot = async (projectId: string) => ({
  candidates: await Promise.all(['pending', 'approved', 'rejected'].map(async (s) => (await queue(projectId, `?status=${s}&limit=100`)).body.data.length)),
  entities: (await gw.request(`/projects/${projectId}/recall?limit=100`, { key: owner.key })).body.entities.length,
});

describe('review over REST: facts about a known entity', () => {
  it('when a fact about a known entity is proposed by alias, then it is suggested with a pending candidate recording the key, source and content, and is not canon yet', async () => {
    const { projectId, ids } = await newProject();
    const res = await propose(projectId, { name: 'keth', facts: [{ text: 'Keth kept a tin whistle.', from: 'ch-01', until: 'ch-02' }], content: 'Keth played his tin whistle.' });
    expect(res.status, res.text).toBe(201);
    const result = ProposeResult.parse(res.body);
    expect(result.entity).toEqual({ id: ids['Keth Voss'], name: 'Keth Voss', status: 'approved', is_new: false });
    expect(result.already_canon).toEqual([]);
    expect(result.candidates).toHaveLength(1);
    const [candidate] = result.candidates;
    expect(candidate).toMatchObject({
      kind: 'fact',
      status: 'pending',
      entity_id: ids['Keth Voss'],
      entity_name: 'Keth Voss',
      facts: [{ text: 'Keth kept a tin whistle.', from: 'ch-01', until: 'ch-02', status: 'suggested' }],
      content: 'Keth played his tin whistle.',
      source: 'proposal',
      proposed_by: owner.id,
    });
    expect(candidate.decision).toBeUndefined();
    expect(candidate.facts[0].id).toMatch(/^fct_/);

    const pending = CandidateList.parse((await queue(projectId)).body);
    expect(pending.data.map((c) => c.id)).toContain(candidate.id);
    expect(await entityFacts(projectId, ids['Keth Voss'])).toContainEqual({ id: candidate.facts[0].id, text: 'Keth kept a tin whistle.', status: 'suggested' });
    expect(await search(projectId, 'tin whistle')).toEqual([]);

    const again = await propose(projectId, { entity_id: ids['Keth Voss'], facts: [{ text: 'Keth kept a tin whistle.' }] });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ candidates: [], already_canon: [candidate.facts[0].id] });
  });

  it('when a pending fact candidate is approved, then its fact is approved canon and the decision records the key, time and reason; deciding again is 409', async () => {
    const { projectId, ids } = await newProject();
    const [candidate] = (await propose(projectId, { entity_id: ids['Mara Voss'], facts: [{ text: 'Mara hums sea shanties at the helm.' }] })).body.candidates;
    const before = Date.now();
    const res = await decide(projectId, candidate.id, 'approve', { reason: 'fits chapter 3' });
    expect(res.status, res.text).toBe(200);
    const decided = DecidedCandidate.parse(res.body);
    expect(decided).toMatchObject({ id: candidate.id, status: 'approved', facts: [{ id: candidate.facts[0].id, status: 'approved' }], removed_ids: [] });
    expect(decided.decision).toMatchObject({ status: 'approved', reason: 'fits chapter 3', decided_by: owner.id });
    const decidedAt = Date.parse(decided.decision!.decided_at);
    expect(decidedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(decidedAt).toBeLessThanOrEqual(Date.now() + 1000);

    expect(await entityFacts(projectId, ids['Mara Voss'])).toContainEqual({ id: candidate.facts[0].id, text: 'Mara hums sea shanties at the helm.', status: 'approved' });
    expect(await search(projectId, 'sea shanties')).toEqual(['Mara Voss']);
    expect((await queue(projectId)).body.data.map((c: any) => c.id)).not.toContain(candidate.id);
    expect((await queue(projectId, '?status=approved&limit=100')).body.data.map((c: any) => c.id)).toContain(candidate.id);

    const twice = expectProblem(await decide(projectId, candidate.id, 'approve'), 409, 'already_decided');
    expect(twice.detail).toContain(owner.id);
    expectProblem(await decide(projectId, candidate.id, 'reject', { reason: 'changed my mind' }), 409, 'already_decided');
  });

  it('when a fact candidate is rejected, then its suggested fact goes and the candidate keeps the text with the decision and reason', async () => {
    const { projectId, ids } = await newProject();
    const [candidate] = (await propose(projectId, { name: 'Gull Point', facts: [{ text: 'Gull Point has a brass bell.' }] })).body.candidates;
    const res = await decide(projectId, candidate.id, 'reject', { reason: 'the bell is at Harrowgate' });
    expect(res.status, res.text).toBe(200);
    const decided = DecidedCandidate.parse(res.body);
    expect(decided).toMatchObject({ status: 'rejected', entity_id: ids['Gull Point'], facts: [{ text: 'Gull Point has a brass bell.', status: 'rejected' }] });
    expect(decided.facts[0].id).toBeUndefined();
    expect(decided.removed_ids).toEqual([candidate.facts[0].id]);
    expect(decided.decision).toMatchObject({ status: 'rejected', reason: 'the bell is at Harrowgate', decided_by: owner.id });
    expect((await entityFacts(projectId, ids['Gull Point'])).map((f) => f.text)).not.toContain('Gull Point has a brass bell.');

    const rejected = CandidateList.parse((await queue(projectId, '?status=rejected')).body).data;
    expect(rejected).toEqual([expect.objectContaining({ id: candidate.id, facts: [{ text: 'Gull Point has a brass bell.', status: 'rejected', secret: false, known_by: [] }] })]);
    expect(rejected[0].decision).toMatchObject({ reason: 'the bell is at Harrowgate', decided_by: owner.id });
  });

  it('when proposed with approve: true, then the facts are approved at once by a decision of the same key', async () => {
    const { projectId, ids } = await newProject();
    const res = await propose(projectId, { name: 'the Heron', facts: [{ text: 'The Heron flies a red pennant.' }, { text: 'The Heron leaks at the bow.' }], approve: true });
    expect(res.status, res.text).toBe(201);
    const { candidates } = ProposeResult.parse(res.body);
    expect(candidates.map((c) => [c.status, c.decision?.status, c.decision?.decided_by, c.facts[0].status])).toEqual([
      ['approved', 'approved', owner.id, 'approved'],
      ['approved', 'approved', owner.id, 'approved'],
    ]);
    expect((await entityFacts(projectId, ids['the Heron'])).filter((f) => f.text.includes('pennant') || f.text.includes('leaks')).map((f) => f.status)).toEqual(['approved', 'approved']);
    expect(await search(projectId, 'pennant')).toEqual(['the Heron']);
  });

  it('when the same proposal is sent twice with one Idempotency-Key, then the first answer is replayed and one candidate recorded', async () => {
    const { projectId, ids } = await newProject();
    const body = { entity_id: ids['Mara Voss'], facts: [{ text: 'Mara cannot swim.' }] };
    const first = await propose(projectId, body, { idempotencyKey: 'propose-1' });
    const second = await propose(projectId, body, { idempotencyKey: 'propose-1' });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect((await queue(projectId, '?limit=100')).body.data.filter((c: any) => c.facts[0]?.text === 'Mara cannot swim.')).toHaveLength(1);
    expectProblem(await propose(projectId, { ...body, content: 'other' }, { idempotencyKey: 'propose-1' }), 422, 'idempotency_key_reused');
  });
});

describe('review over REST: new entities', () => {
  it('when a new entity is proposed and approved, then the entity and its facts become approved canon', async () => {
    const { projectId } = await newProject();
    const res = await propose(projectId, {
      name: 'Wren Alder',
      type: 'character',
      aliases: ['Wren'],
      facts: [{ text: 'Wren keeps the lighthouse log.', from: 'ch-02' }],
      content: 'Wren wrote the date in the lighthouse log.',
    });
    expect(res.status, res.text).toBe(201);
    const result = ProposeResult.parse(res.body);
    expect(result.entity).toMatchObject({ name: 'Wren Alder', status: 'suggested', is_new: true });
    expect(result.candidates).toHaveLength(1);
    const [candidate] = result.candidates;
    expect(candidate).toMatchObject({
      kind: 'entity',
      status: 'pending',
      entity_id: result.entity.id,
      entity_name: 'Wren Alder',
      proposal: { name: 'Wren Alder', type: 'character', aliases: ['Wren'], facts: [{ text: 'Wren keeps the lighthouse log.', from: 'ch-02' }] },
      facts: [{ text: 'Wren keeps the lighthouse log.', from: 'ch-02', status: 'suggested' }],
      proposed_by: owner.id,
    });
    expect(candidate.facts[0].id).toMatch(/^fct_/);
    expect(await recallNames(projectId, 'Wren')).toEqual(['Wren Alder:suggested']);
    expect(await search(projectId, 'lighthouse log')).toEqual([]);

    const approved = DecidedCandidate.parse((await decide(projectId, candidate.id, 'approve')).body);
    expect(approved).toMatchObject({ status: 'approved', facts: [{ id: candidate.facts[0].id, status: 'approved' }], decision: { status: 'approved', decided_by: owner.id } });
    expect(approved.decision!.reason).toBeUndefined();
    expect(await recallNames(projectId, 'Wren')).toEqual(['Wren Alder:approved']);
    expect(await search(projectId, 'lighthouse log')).toEqual(['Wren Alder']);
    expect((await entityFacts(projectId, result.entity.id)).map((f) => f.status)).toEqual(['approved']);
  });

  it('when a new entity proposal is rejected, then the entity and its facts are gone and the candidate keeps its proposal, decision and reason', async () => {
    const { projectId } = await newProject();
    const proposed = ProposeResult.parse((await propose(projectId, { name: 'Silas Crane', type: 'character', facts: [{ text: 'Silas Crane owns the chandlery.' }] })).body);
    const entityId = proposed.entity.id;
    // A later proposal about the suggested entity, by its name, waits in the queue too.
    const about = ProposeResult.parse((await propose(projectId, { name: 'silas crane', facts: [{ text: 'Silas Crane limps.' }] })).body);
    expect(about.entity).toMatchObject({ id: entityId, is_new: false, status: 'suggested' });

    const res = await decide(projectId, proposed.candidates[0].id, 'reject', { reason: 'not in this book' });
    expect(res.status, res.text).toBe(200);
    const rejected = DecidedCandidate.parse(res.body);
    expect(rejected).toMatchObject({
      status: 'rejected',
      proposal: { name: 'Silas Crane', type: 'character', aliases: [], facts: [{ text: 'Silas Crane owns the chandlery.' }] },
      facts: [{ text: 'Silas Crane owns the chandlery.', status: 'rejected' }],
      decision: { status: 'rejected', reason: 'not in this book', decided_by: owner.id },
    });
    expect(rejected.entity_id).toBeUndefined();
    expect([...rejected.removed_ids].sort()).toEqual([entityId, proposed.candidates[0].facts[0].id, about.candidates[0].facts[0].id].sort());
    expect(await recallNames(projectId, 'Silas')).toEqual([]);
    expectProblem(
      await gw.request(`/projects/${projectId}/recall/${entityId}/mentions`, { key: owner.key }),
      404,
      'not_found',
    );

    const history = CandidateList.parse((await queue(projectId, '?status=rejected')).body).data;
    expect(history.map((c) => [c.id, c.decision?.reason])).toEqual([
      [proposed.candidates[0].id, 'not in this book'],
      [about.candidates[0].id, 'not in this book'],
    ]);
    expect((await queue(projectId, '?limit=100')).body.data.map((c: any) => c.id)).not.toContain(about.candidates[0].id);

    // The name is free again.
    const again = ProposeResult.parse((await propose(projectId, { name: 'Silas Crane', type: 'character' })).body);
    expect(again.entity).toMatchObject({ is_new: true, status: 'suggested' });
    expect(again.entity.id).not.toBe(entityId);
  });

  it('when a new name clashes with another entity\'s alias, then 409 name_taken naming the field and nothing is written', async () => {
    const { projectId } = await newProject();
    const before = await snapshot(projectId);
    const problem = expectProblem(await propose(projectId, { name: 'Maren Holt', type: 'character', aliases: ['Maren', 'the captain'] }), 409, 'name_taken');
    expect(problem.errors).toEqual([expect.objectContaining({ path: 'input.aliases.1' })]);
    expect(await snapshot(projectId)).toEqual(before);
  });
});

describe('review over REST: the queue', () => {
  it('when the queue holds more than a page, then pages follow the cursor oldest first, with imported suggestions in it too', async () => {
    const { projectId, ids } = await newProject();
    await propose(projectId, { entity_id: ids['Mara Voss'], facts: [{ text: 'Mara fears deep water.' }, { text: 'Mara reads the stars.' }] });
    const first = CandidateList.parse((await queue(projectId, '?limit=2')).body);
    expect(first.has_more).toBe(true);
    const second = CandidateList.parse((await queue(projectId, `?limit=2&starting_after=${first.next_starting_after}`)).body);
    expect(second.has_more).toBe(false);
    expect(second.next_starting_after).toBeUndefined();
    const all = [...first.data, ...second.data];
    // The oath is a suggested entity of the bundle: its imported fact waits for review.
    expect(all.map((c) => [c.source, c.facts.map((f) => f.text)])).toEqual([
      ['import', ["Mara swore to find out who sank the Heron's sister ship."]],
      ['proposal', ['Mara fears deep water.']],
      ['proposal', ['Mara reads the stars.']],
    ]);
    expect(all.map((c) => c.id)).toEqual([...all.map((c) => c.id)].sort());

    const imported = DecidedCandidate.parse((await decide(projectId, all[0].id, 'approve')).body);
    expect(imported.facts[0]).toMatchObject({ status: 'approved' });
    expect((await entityFacts(projectId, ids["Mara's oath"]))[0].status).toBe('approved');
  });

  it('when a cursor is not a candidate of that list, then 400 invalid_cursor', async () => {
    const { projectId, ids } = await newProject();
    const approved = (await gw.request(`/projects/${projectId}/canon/${ids['Mara Voss']}/approve`, { method: 'POST', key: owner.key, json: { fact: 'Mara is left-handed.' } })).body;
    expectProblem(await queue(projectId, '?starting_after=cnd_nosuchcandidate'), 400, 'invalid_cursor');
    expectProblem(await queue(projectId, `?starting_after=${approved.candidateId}`), 400, 'invalid_cursor');
    // The contract's approve records its candidate already approved, with its decision.
    const list = CandidateList.parse((await queue(projectId, `?status=approved&limit=100`)).body).data;
    expect(list.find((c) => c.id === approved.candidateId)).toMatchObject({ status: 'approved', source: 'api', decision: { id: approved.decisionId, decided_by: owner.id } });
  });
});

describe('review over REST: isolation and bad input', () => {
  it("when another account uses this project's ids, then every review route answers 404 like a missing project", async () => {
    const { projectId, ids } = await newProject();
    const [candidate] = (await propose(projectId, { entity_id: ids['Mara Voss'], facts: [{ text: 'Mara owns a spyglass.' }] })).body.candidates;
    const stranger = await newKey();
    const own = await newProject(stranger.key);
    const before = await snapshot(projectId);

    expectProblem(await propose(projectId, { name: 'Mara', facts: [{ text: 'Mara is a spy.' }] }, { key: stranger.key }), 404, 'not_found');
    expectProblem(await queue(projectId, '', stranger.key), 404, 'not_found');
    expectProblem(await decide(projectId, candidate.id, 'approve', undefined, stranger.key), 404, 'not_found');
    expectProblem(await decide(projectId, candidate.id, 'reject', { reason: 'x' }, stranger.key), 404, 'not_found');
    // Through the stranger's own project: this project's candidate and entity are not found there either.
    expectProblem(await decide(own.projectId, candidate.id, 'approve', undefined, stranger.key), 404, 'not_found');
    expectProblem(await propose(own.projectId, { entity_id: ids['Mara Voss'], facts: [{ text: 'Mara is a spy.' }] }, { key: stranger.key }), 404, 'not_found');
    const missing = expectProblem(await queue('prj_nosuchproject'), 404, 'not_found');
    expect(missing.detail).toContain('prj_nosuchproject');

    expect(await snapshot(projectId)).toEqual(before);
    expect((await queue(projectId)).body.data.find((c: any) => c.id === candidate.id)).toMatchObject({ status: 'pending' });
  });

  it('when a proposal or decision is malformed, then 400 naming the field and nothing is written', async () => {
    const { projectId, ids } = await newProject();
    const [candidate] = (await propose(projectId, { entity_id: ids['Mara Voss'], facts: [{ text: 'Mara owns a spyglass.' }] })).body.candidates;
    const before = await snapshot(projectId);
    const cases: [unknown, string][] = [
      [{}, 'body.name'],
      [{ entity_id: ids['Mara Voss'], name: 'Mara', facts: [{ text: 'x' }] }, 'body.entity_id'],
      [{ name: 'Brand New', facts: [{ text: 'Brand New is new.' }] }, 'input.type'],
      [{ name: 'Brand New', type: 'wizard' }, 'body.type'],
      [{ name: '  ', type: 'character' }, 'body.name'],
      [{ name: 'Keth', facts: [] }, 'input.facts'],
      [{ name: 'Keth', facts: [{ text: 'Keth sang.', from: 'ch-99' }] }, 'input.facts.0.from'],
      [{ name: 'Keth', facts: [{ text: 'Keth sang.', from: 'ch-02', until: 'ch-01' }] }, 'input.facts.0.until'],
      [{ name: 'Keth', facts: [{ text: 'Keth sang.', from: 'not a chapter!' }] }, 'body.facts.0.from'],
      [{ name: 'Keth', aliases: ['K'], facts: [{ text: 'Keth sang.' }] }, 'input.aliases'],
      [{ name: 'Keth', type: 'location', facts: [{ text: 'Keth sang.' }] }, 'input.type'],
      [{ name: 'Keth', facts: [{ text: '' }] }, 'body.facts.0.text'],
      [{ name: 'Keth', facts: [{ text: 'Keth\u0000sang.' }] }, 'body.facts.0.text'],
      [{ name: 'Keth', facts: Array.from({ length: 51 }, (_, i) => ({ text: `Fact ${i}.` })) }, 'body.facts'],
      [{ name: 'Keth', facts: [{ text: 'Keth sang.' }], approve: 'yes' }, 'body.approve'],
      [{ entity_id: 'ent_nosuchentity', facts: [{ text: 'x' }] }, ''],
    ];
    for (const [body, field] of cases) {
      const res = await propose(projectId, body);
      if (field === '') {
        expectProblem(res, 404, 'not_found');
        continue;
      }
      const problem = expectProblem(res, 400, 'validation_error');
      expect(problem.errors?.map((e) => e.path), JSON.stringify(body).slice(0, 80)).toContain(field);
    }
    expect(expectProblem(await decide(projectId, candidate.id, 'reject', { reason: '' }), 400, 'validation_error').errors?.[0].path).toBe('body.reason');
    expect(expectProblem(await decide(projectId, candidate.id, 'approve', { reason: 'a\u0000b' }), 400, 'validation_error').errors?.[0].path).toBe('body.reason');
    expectProblem(await decide(projectId, 'cnd_nosuchcandidate', 'approve'), 404, 'not_found');
    expect(expectProblem(await queue(projectId, '?status=maybe'), 400, 'validation_error').errors?.[0].path).toBe('query.status');
    expect(expectProblem(await queue(projectId, '?limit=0'), 400, 'validation_error').errors?.[0].path).toBe('query.limit');

    expect(await snapshot(projectId)).toEqual(before);
    expect(Candidate.parse((await queue(projectId)).body.data.find((c: any) => c.id === candidate.id))).toMatchObject({ status: 'pending' });
  });

  it('when the OpenAPI document is read, then the review routes are in it with their scopes and costs', async () => {
    const { body } = await gw.request('/openapi.json');
    const routes = [
      ['post', '/projects/{id}/candidates', 'remember', '201'],
      ['get', '/projects/{id}/candidates', 'recall', '200'],
      ['post', '/projects/{id}/candidates/{candidateId}/approve', 'remember', '200'],
      ['post', '/projects/{id}/candidates/{candidateId}/reject', 'remember', '200'],
    ];
    for (const [method, path, scope, status] of routes) {
      const op = body.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op).toMatchObject({ 'x-lore-scope': scope, 'x-lore-cost': 1 });
      expect(op.responses[status]).toBeDefined();
      expect(op.responses['404']).toBeDefined();
    }
  });
});

describe('review over GraphQL', () => {
  const candidateFields = 'id kind status entityId entityName facts { id text from until status } proposal content source proposedBy createdAt decision { id status reason decidedBy decidedAt }';

  it('when propose, candidates and decideCandidate run on /graphql, then they answer as REST does and errors carry their codes', async () => {
    const { projectId, ids } = await newProject();
    const proposed = await gw.graphql(
      `mutation ($p: ID!, $input: ProposeInput!) { propose(projectId: $p, input: $input) { entity { id name status isNew } candidates { ${candidateFields} } alreadyCanon } }`,
      { p: projectId, input: { name: 'Ona Reed', type: 'location', aliases: null, facts: [{ text: 'Ona Reed is a tidal island.', from: null }], content: 'the island of Ona Reed' } },
      owner.key,
    );
    expect(proposed.errors).toBeUndefined();
    const { entity, candidates } = proposed.data.propose;
    expect(entity).toMatchObject({ name: 'Ona Reed', status: 'suggested', isNew: true });
    expect(candidates[0]).toMatchObject({ kind: 'entity', status: 'pending', entityId: entity.id, proposedBy: owner.id, decision: null, content: 'the island of Ona Reed' });

    const listed = await gw.graphql(`query ($p: ID!) { candidates(projectId: $p, limit: 10) { data { ${candidateFields} } hasMore nextStartingAfter } }`, { p: projectId }, owner.key);
    expect(listed.data.candidates.data.map((c: any) => c.id)).toContain(candidates[0].id);
    expect(listed.data.candidates).toMatchObject({ hasMore: false, nextStartingAfter: null });

    const decideMutation = `mutation ($p: ID!, $c: ID!, $d: DecisionChoice!, $r: String) { decideCandidate(projectId: $p, candidateId: $c, decision: $d, reason: $r) { ${candidateFields} removedIds } }`;
    const rejected = await gw.graphql(decideMutation, { p: projectId, c: candidates[0].id, d: 'reject', r: 'no islands' }, owner.key);
    expect(rejected.errors).toBeUndefined();
    expect(rejected.data.decideCandidate).toMatchObject({ status: 'rejected', entityId: null, decision: { status: 'rejected', reason: 'no islands', decidedBy: owner.id } });
    expect(rejected.data.decideCandidate.removedIds).toContain(entity.id);

    const twice = await gw.graphql(decideMutation, { p: projectId, c: candidates[0].id, d: 'approve' }, owner.key);
    expect(twice.errors?.[0].extensions.code).toBe('already_decided');
    const unknownEntity = await gw.graphql(
      'mutation ($p: ID!, $input: ProposeInput!) { propose(projectId: $p, input: $input) { alreadyCanon } }',
      { p: projectId, input: { entityId: 'ent_nosuchentity', facts: [{ text: 'x' }] } },
      owner.key,
    );
    expect(unknownEntity.errors?.[0].extensions.code).toBe('not_found');
    const stranger = await newKey();
    const foreign = await gw.graphql(`query ($p: ID!) { candidates(projectId: $p) { hasMore } }`, { p: projectId }, stranger.key);
    expect(foreign.errors?.[0].extensions.code).toBe('not_found');
    const bad = await gw.graphql(
      'mutation ($p: ID!, $input: ProposeInput!) { propose(projectId: $p, input: $input) { alreadyCanon } }',
      { p: projectId, input: { entityId: ids['Mara Voss'], facts: [{ text: 'Mara sings.', until: 'ch-404' }] } },
      owner.key,
    );
    expect(bad.errors?.[0].extensions).toMatchObject({ code: 'validation_error', errors: [{ path: 'input.facts.0.until' }] });
  });

  it('when a proposal is approved at once over GraphQL, then recall and the contract approve agree on the canon', async () => {
    const { projectId, ids } = await newProject();
    const res = await gw.graphql(
      'mutation ($p: ID!, $input: ProposeInput!, $k: String) { propose(projectId: $p, input: $input, idempotencyKey: $k) { entity { status } candidates { status decision { decidedBy } facts { id status } } } }',
      { p: projectId, input: { entityId: ids['Keth Voss'], facts: [{ text: 'Keth was afraid of gulls.' }], approve: true }, k: 'gql-1' },
      owner.key,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.propose.candidates).toEqual([{ status: 'approved', decision: { decidedBy: owner.id }, facts: [{ id: expect.stringMatching(/^fct_/), status: 'approved' }] }]);
    expect(await search(projectId, 'afraid of gulls')).toEqual(['Keth Voss']);
  });
});
