// Proposals that say who knows a fact (known_by, secret) and promises' ledger lines (setup, payoff, involved
// entities): kept on the candidate while it is pending, canon once approved; over REST, GraphQL and MCP; bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CandidateList, DecidedCandidate, ProposeResult } from '../../rest/schemas/review.ts';
import { KnowledgeSchema } from '../../rest/routes/knowledge.ts';
import { RecallResponse } from '../../rest/schemas.ts';
import { secretsBundle } from '../knowledge/fixtures.ts';
import { callTool, connectMcp, textOf } from '../mcp/harness.ts';
import { entityIdsByName, importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let key: string;

beforeAll(async () => {
  gw = await startTestGateway();
  key = (await gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 })).key;
});
afterAll(() => gw?.close());

/** A fresh copy of the spy canon for one test: Mara, Ada, Jon; two promises; chapters ch-01..ch-04. */
async function newProject(as = key) {
  const { projectId } = await importBundle(gw, as, secretsBundle(`Proposals ${Math.random().toString(36).slice(2)}`));
  return { projectId, ids: await entityIdsByName(gw, as, projectId) };
}

const propose = (projectId: string, body: unknown, as = key) => gw.request(`/projects/${projectId}/candidates`, { method: 'POST', key: as, json: body });
const decide = (projectId: string, candidateId: string, decision: 'approve' | 'reject') =>
  gw.request(`/projects/${projectId}/candidates/${candidateId}/${decision}`, { method: 'POST', key });
const knowledge = async (projectId: string, entityId: string, query = '') => {
  const res = await gw.request(`/projects/${projectId}/entities/${entityId}/knowledge${query}`, { key });
  expect(res.status, res.text).toBe(200);
  return KnowledgeSchema.parse(res.body);
};
const texts = (list: { text: string }[]) => list.map((f) => f.text);
const ledger = async (projectId: string) => {
  const res = await gw.request(`/projects/${projectId}/promises`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body.promises as { id: string; name: string; approval: string; status: string; set_up_in: string | null; paid_off_in: string | null; involves: { id: string }[] }[];
};
const queueSize = async (projectId: string) => (await gw.request(`/projects/${projectId}/candidates?limit=100`, { key })).body.data.length;

describe('who knows a proposed fact', () => {
  it('when a secret fact known by Ada from ch-03 line 1 is proposed, then the candidate says so, nobody knows it yet, and once approved Ada knows it from there', async () => {
    const { projectId, ids } = await newProject();
    const res = await propose(projectId, {
      entity_id: ids['Mara Voss'],
      facts: [{ text: 'Mara sank the revenue cutter.', secret: true, known_by: [{ entity_id: ids['Ada Quill'], from: 'ch-03', line: 1 }] }],
    });
    expect(res.status, res.text).toBe(201);
    const [candidate] = ProposeResult.parse(res.body).candidates;
    expect(candidate.facts).toEqual([
      expect.objectContaining({ text: 'Mara sank the revenue cutter.', status: 'suggested', secret: true, known_by: [{ entity_id: ids['Ada Quill'], from: 'ch-03', line: 1 }] }),
    ]);
    // Pending: not canon, so no one's knowledge lists it.
    expect(texts((await knowledge(projectId, ids['Ada Quill'])).unaware)).not.toContain('Mara sank the revenue cutter.');
    const listed = CandidateList.parse((await gw.request(`/projects/${projectId}/candidates`, { key })).body).data.find((c) => c.id === candidate.id)!;
    expect(listed.facts[0]).toMatchObject({ secret: true, known_by: [{ entity_id: ids['Ada Quill'], from: 'ch-03', line: 1 }] });

    const approved = await decide(projectId, candidate.id, 'approve');
    expect(approved.status, approved.text).toBe(200);
    expect(DecidedCandidate.parse(approved.body).facts[0]).toMatchObject({ status: 'approved', secret: true });
    expect(texts((await knowledge(projectId, ids['Ada Quill'], '?as_of=ch-03&line=1')).unaware)).toContain('Mara sank the revenue cutter.');
    const later = await knowledge(projectId, ids['Ada Quill'], '?as_of=ch-03&line=2');
    expect(later.knows.find((f) => f.text === 'Mara sank the revenue cutter.')).toMatchObject({ secret: true, learned: { chapter: 'ch-03', line: 1 } });
    expect(texts((await knowledge(projectId, ids['Jon Rook'])).unaware)).toContain('Mara sank the revenue cutter.');
    // Recall lists the same facts in the same documented shape (KnownFact), its nulls left out.
    const recall = RecallResponse.parse((await gw.request(`/projects/${projectId}/recall?as_of=ch-03&q=Ada`, { key })).body);
    const ada = recall.entities.find((e) => e.id === ids['Ada Quill'])!;
    expect(ada.knowledge!.knows.find((f) => f.text === 'Mara sank the revenue cutter.')).toMatchObject({ secret: true, learned: { chapter: 'ch-03', line: 1 } });
    expect(ada.knowledge!.unaware.find((f) => f.text === 'Jon will betray the smugglers.')!.learned).toBeUndefined();
  });

  it('when a new entity is proposed with a fact Jon knows from the start, then approving the entity makes Jon its only knower', async () => {
    const { projectId, ids } = await newProject();
    const res = await propose(projectId, { name: 'The Crown letter', type: 'object', facts: [{ text: 'The Crown letter names Jon.', known_by: [{ entity_id: ids['Jon Rook'] }] }] });
    expect(res.status, res.text).toBe(201);
    const [candidate] = ProposeResult.parse(res.body).candidates;
    expect(candidate.facts).toEqual([expect.objectContaining({ secret: false, known_by: [{ entity_id: ids['Jon Rook'] }] })]);
    expect((await decide(projectId, candidate.id, 'approve')).status).toBe(200);
    expect((await knowledge(projectId, ids['Jon Rook'])).knows).toContainEqual(expect.objectContaining({ text: 'The Crown letter names Jon.', learned: { chapter: null, line: null } }));
    expect(texts((await knowledge(projectId, ids['Mara Voss'])).unaware)).toContain('The Crown letter names Jon.');
  });

  it("when a knower is unknown, another account's entity, or learns in an unknown chapter, then 400 naming the field and nothing is written", async () => {
    const { projectId, ids } = await newProject();
    const other = await newProject((await gw.createKey('pro')).key);
    const before = await queueSize(projectId);
    for (const [knower, path] of [
      [{ entity_id: 'ent_missing' }, 'input.facts.0.knownBy.0.entityId'],
      [{ entity_id: other.ids['Ada Quill'] }, 'input.facts.0.knownBy.0.entityId'],
      [{ entity_id: ids['Ada Quill'], from: 'ch-99' }, 'input.facts.0.knownBy.0.from'],
    ] as const) {
      const res = await propose(projectId, { entity_id: ids['Mara Voss'], facts: [{ text: 'Mara hid the letter.', known_by: [knower] }] });
      expect(res.status, res.text).toBe(400);
      expect(res.body.code).toBe('validation_error');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
    }
    // Another account's entity reads exactly as a missing one.
    const missing = await propose(projectId, { entity_id: ids['Mara Voss'], facts: [{ text: 'Mara hid the letter.', known_by: [{ entity_id: 'ent_missing' }] }] });
    const foreign = await propose(projectId, { entity_id: ids['Mara Voss'], facts: [{ text: 'Mara hid the letter.', known_by: [{ entity_id: other.ids['Ada Quill'] }] }] });
    expect(foreign.body.detail.replace(other.ids['Ada Quill'], 'ID')).toBe(missing.body.detail.replace('ent_missing', 'ID'));
    const malformed = await propose(projectId, { entity_id: ids['Mara Voss'], facts: [{ text: 'Mara hid the letter.', secret: 'yes' }] });
    expect(malformed.status).toBe(400);
    expect(await queueSize(projectId)).toBe(before);
    expect((await gw.request(`/projects/${projectId}/export`, { key })).text).not.toContain('Mara hid the letter.');
  });
});

describe('promises proposed with their ledger lines', () => {
  it('when a new promise is proposed set up in ch-01 involving Ada, then the ledger has it only once approved; a payoff proposed for it pays it once approved', async () => {
    const { projectId, ids } = await newProject();
    const res = await propose(projectId, { name: "Jon's oath", type: 'promise', facts: [{ text: 'Jon swore to return the ring.' }], promise: { set_up_in: 'ch-01', involves: [ids['Ada Quill']] } });
    expect(res.status, res.text).toBe(201);
    const created = ProposeResult.parse(res.body);
    expect(created.candidates[0]).toMatchObject({ kind: 'entity', promise: { set_up_in: 'ch-01', involves: [ids['Ada Quill']] } });
    const oath = created.entity.id;
    expect((await ledger(projectId)).find((p) => p.id === oath)).toMatchObject({ approval: 'suggested', set_up_in: null, involves: [] });

    expect((await decide(projectId, created.candidates[0].id, 'approve')).status).toBe(200);
    expect((await ledger(projectId)).find((p) => p.id === oath)).toMatchObject({ approval: 'approved', status: 'open', set_up_in: 'ch-01', paid_off_in: null, involves: [{ id: ids['Ada Quill'] }] });

    const payoff = await propose(projectId, { entity_id: oath, promise: { paid_off_in: 'ch-04', involves: [ids['Mara Voss']] } });
    expect(payoff.status, payoff.text).toBe(201);
    const [candidate] = ProposeResult.parse(payoff.body).candidates;
    expect(candidate).toMatchObject({ kind: 'promise', status: 'pending', entity_id: oath, facts: [], promise: { paid_off_in: 'ch-04', involves: [ids['Mara Voss']] } });
    expect(candidate.proposal).toBeUndefined();
    expect((await ledger(projectId)).find((p) => p.id === oath)).toMatchObject({ status: 'open', paid_off_in: null });

    const approved = await decide(projectId, candidate.id, 'approve');
    expect(approved.status, approved.text).toBe(200);
    expect(DecidedCandidate.parse(approved.body)).toMatchObject({ kind: 'promise', status: 'approved', removed_ids: [] });
    const line = (await ledger(projectId)).find((p) => p.id === oath)!;
    expect(line).toMatchObject({ status: 'paid', set_up_in: 'ch-01', paid_off_in: 'ch-04' });
    expect(line.involves.map((e) => e.id).sort()).toEqual([ids['Ada Quill'], ids['Mara Voss']].sort());
  });

  it('when a known promise is proposed dropped, then once approved the ledger marks it dropped, never at risk, and the brief leaves it out', async () => {
    const { projectId, ids } = await newProject();
    const debt = ids["Ada's debt"];
    const briefPromises = async () =>
      (await gw.request(`/projects/${projectId}/brief`, { method: 'POST', key, json: { chapter: 'ch-02', text: 'Ada lit the lamps.' } })).body.content.promises.map((p: { id: string }) => p.id);
    expect(await briefPromises()).toContain(debt);
    const res = await propose(projectId, { entity_id: debt, promise: { status: 'dropped' } });
    expect(res.status, res.text).toBe(201);
    const [candidate] = ProposeResult.parse(res.body).candidates;
    expect(candidate).toMatchObject({ kind: 'promise', promise: { status: 'dropped', involves: [] } });
    expect((await ledger(projectId)).find((p) => p.id === debt)).toMatchObject({ status: 'paid' });

    expect((await decide(projectId, candidate.id, 'approve')).status).toBe(200);
    expect((await ledger(projectId)).find((p) => p.id === debt)).toMatchObject({ status: 'dropped', set_up_in: 'ch-01', paid_off_in: 'ch-04' });
    const atRisk = await gw.request(`/projects/${projectId}/promises?as_of=ch-04&at_risk_after=1`, { key });
    expect(atRisk.body.promises.find((p: { id: string }) => p.id === debt)).toMatchObject({ status: 'dropped', at_risk: false });
    expect(await briefPromises()).not.toContain(debt);
  });

  it('when a payoff proposal is rejected, then the ledger line stays as it was', async () => {
    const { projectId, ids } = await newProject();
    const debt = ids["Ada's debt"];
    const before = (await ledger(projectId)).find((p) => p.id === debt);
    const [candidate] = (await propose(projectId, { name: "Ada's debt", promise: { paid_off_in: 'ch-02' } })).body.candidates;
    const rejected = await decide(projectId, candidate.id, 'reject');
    expect(rejected.status, rejected.text).toBe(200);
    expect(DecidedCandidate.parse(rejected.body)).toMatchObject({ kind: 'promise', status: 'rejected', removed_ids: [] });
    expect((await ledger(projectId)).find((p) => p.id === debt)).toEqual(before);
  });

  it('when a ledger line is proposed for a character, a new non-promise, an unknown chapter or entity, or is empty, then 400 naming the field and nothing is written', async () => {
    const { projectId, ids } = await newProject();
    const before = await queueSize(projectId);
    for (const [body, path] of [
      [{ entity_id: ids['Mara Voss'], promise: { set_up_in: 'ch-01' } }, 'input.promise'],
      [{ name: 'The tide', type: 'event', promise: { set_up_in: 'ch-01' } }, 'input.promise'],
      [{ entity_id: ids["Ada's debt"], promise: { paid_off_in: 'ch-99' } }, 'input.promise.paidOffIn'],
      [{ entity_id: ids["Ada's debt"], promise: { involves: ['ent_missing'] } }, 'input.promise.involves.0'],
      [{ entity_id: ids["Ada's debt"], promise: {} }, 'body.promise'],
      [{ entity_id: ids["Ada's debt"], promise: { involves: [] } }, 'body.promise.involves'],
      [{ entity_id: ids["Ada's debt"], promise: { status: 'forgotten' } }, 'body.promise.status'],
    ] as const) {
      const res = await propose(projectId, body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(res.body.errors.map((e: { path: string }) => e.path), JSON.stringify(body)).toEqual([path]);
    }
    expect(await queueSize(projectId)).toBe(before);
  });
});

describe('over GraphQL and MCP', () => {
  it('when propose runs on /graphql with knownBy, secret and a promise, then the candidates carry them', async () => {
    const { projectId, ids } = await newProject();
    const mutation = `mutation ($p: ID!, $i: ProposeInput!) { propose(projectId: $p, input: $i) {
      candidates { kind facts { text secret knownBy { entityId from line } } promise { setUpIn paidOffIn involves status } } } }`;
    const fact = await gw.graphql(mutation, {
      p: projectId,
      i: { entityId: ids['Jon Rook'], facts: [{ text: 'Jon hid a pistol.', secret: true, knownBy: [{ entityId: ids['Mara Voss'], from: 'ch-02', line: null }] }] },
    }, key);
    expect(fact.errors).toBeUndefined();
    expect(fact.data.propose.candidates).toEqual([
      { kind: 'fact', facts: [{ text: 'Jon hid a pistol.', secret: true, knownBy: [{ entityId: ids['Mara Voss'], from: 'ch-02', line: null }] }], promise: null },
    ]);
    const promise = await gw.graphql(mutation, { p: projectId, i: { entityId: ids['The broken seal'], promise: { setUpIn: 'ch-01' } } }, key);
    expect(promise.errors).toBeUndefined();
    expect(promise.data.propose.candidates).toEqual([{ kind: 'promise', facts: [], promise: { setUpIn: 'ch-01', paidOffIn: null, involves: [], status: null } }]);
    const dropped = await gw.graphql(mutation, { p: projectId, i: { entityId: ids["Ada's debt"], promise: { status: 'dropped' } } }, key);
    expect(dropped.errors).toBeUndefined();
    expect(dropped.data.propose.candidates).toEqual([{ kind: 'promise', facts: [], promise: { setUpIn: null, paidOffIn: null, involves: [], status: 'dropped' } }]);
    const bad = await gw.graphql(mutation, { p: projectId, i: { entityId: ids['Jon Rook'], facts: [{ text: 'Jon hid a knife.', knownBy: [{ entityId: 'ent_missing' }] }] } }, key);
    expect(bad.errors?.[0].extensions).toMatchObject({ code: 'validation_error', errors: [{ path: 'input.facts.0.knownBy.0.entityId' }] });
  });

  it('when lore_author_remember proposes a secret Ada knows from ch-02, then the review tool shows it and approving makes it her knowledge', async () => {
    const { projectId, ids } = await newProject();
    const session = await connectMcp({ LORE_API_URL: gw.url, LORE_API_KEY: key, LORE_PROJECT_ID: projectId });
    try {
      const proposed = await callTool(session, 'lore_author_remember', {
        entity: 'Jon', fact: 'Jon keeps a second ledger.', secret: true, known_by: [{ entity_id: ids['Ada Quill'], from: 'ch-02' }],
      });
      expect(proposed.isError, textOf(proposed)).toBeFalsy();
      const [candidateId] = (proposed.structuredContent as any).candidateIds;
      const listed = await callTool(session, 'lore_author_review', {});
      expect(textOf(listed)).toContain(`fact: "Jon keeps a second ledger." (secret; known by ${ids['Ada Quill']} from ch-02)`);
      const decided = await callTool(session, 'lore_author_decide', { candidate: candidateId, decision: 'approve' });
      expect(decided.isError, textOf(decided)).toBeFalsy();
      expect((decided.structuredContent as any).candidate.facts[0]).toMatchObject({ secret: true, known_by: [{ entity_id: ids['Ada Quill'], from: 'ch-02' }] });
      expect(texts((await knowledge(projectId, ids['Ada Quill'], '?as_of=ch-02')).knows)).toContain('Jon keeps a second ledger.');
      expect(texts((await knowledge(projectId, ids['Ada Quill'], '?as_of=ch-01')).unaware)).toContain('Jon keeps a second ledger.');
    } finally {
      await session.close();
    }
  });

  it('when lore_author_remember gives a known promise a ledger line marking it dropped, then the review tool shows it and approving drops it', async () => {
    const { projectId, ids } = await newProject();
    const session = await connectMcp({ LORE_API_URL: gw.url, LORE_API_KEY: key, LORE_PROJECT_ID: projectId });
    try {
      const proposed = await callTool(session, 'lore_author_remember', { entity: "Ada's debt", promise: { status: 'dropped', involves: [ids['Jon Rook']] } });
      expect(proposed.isError, textOf(proposed)).toBeFalsy();
      const [candidateId] = (proposed.structuredContent as any).candidateIds;
      expect(textOf(await callTool(session, 'lore_author_review', {}))).toContain(`promise: involves ${ids['Jon Rook']}; status dropped`);
      const decided = await callTool(session, 'lore_author_decide', { candidate: candidateId, decision: 'approve' });
      expect(decided.isError, textOf(decided)).toBeFalsy();
      const line = (await ledger(projectId)).find((p) => p.id === ids["Ada's debt"])!;
      expect(line.status).toBe('dropped');
      expect(line.involves.map((e) => e.id)).toContain(ids['Jon Rook']);
    } finally {
      await session.close();
    }
  });
});
