// Recall, mentions and approve on /api/v1, against a real gateway and database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApproveResult, MentionsEnvelope, RecallEntity, RecallResponse } from '../../rest/schemas.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectProblem as expectProblemAt } from '../support/problem.ts';
import type { ApiResponse } from '../support/gateway.ts';

let gw: TestGateway;
let key: string;
let keyId: string;
let projectId: string;
let bundle: any;
const entityIds = new Map<string, string>();

// Orla is named 45 times across three chapters whose ids do not sort like their ordinals, listed out of order.
const orlaChapters = [
  { id: 'aa-epilogue', ordinal: 20, orlaLines: 13 },
  { id: 'ch-03', ordinal: 3, orlaLines: 16 },
  { id: 'ch-10', ordinal: 10, orlaLines: 13 },
];

function orlaChapterText(orlaLines: number): string {
  const lines: string[] = [];
  for (let i = 1; i <= orlaLines; i++) {
    lines.push('The gulls wheeled over the flats.');
    // The first Orla line of each chapter names her twice.
    lines.push(i === 1 ? 'Orla called out, and Orla answered herself.' : `Orla counted the boats, ${i} of them.`);
  }
  return lines.join('\n');
}

/** (chapter, line) of every Orla mention in reading order: chapter ordinal, then line. */
function expectedOrlaOrder(): [string, number][] {
  const order: [string, number][] = [];
  for (const c of [...orlaChapters].sort((a, b) => a.ordinal - b.ordinal)) {
    for (let i = 1; i <= c.orlaLines; i++) {
      order.push([c.id, i * 2]);
      if (i === 1) order.push([c.id, 2]);
    }
  }
  return order;
}

function canonBundle() {
  const b = saltmarshBundle();
  b.entities.push({ key: 'orla', type: 'character', name: 'Orla Fenn', aliases: ['Orla'], state: { status: 'alive' } });
  for (const c of orlaChapters) b.chapters.push({ id: c.id, title: c.id, ordinal: c.ordinal, text: orlaChapterText(c.orlaLines) });
  return b;
}

const expectProblem = (res: ApiResponse, status: number, code: string, instance?: string) =>
  expectProblemAt(res, status, code, { instance, site: gw.url });

async function walkMentions(entityId: string, limit?: number) {
  const pages: any[] = [];
  let after: string | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const params = new URLSearchParams();
    if (limit !== undefined) params.set('limit', String(limit));
    if (after) params.set('starting_after', after);
    const res = await gw.request(`/projects/${projectId}/recall/${entityId}/mentions?${params}`, { key });
    expect(res.status).toBe(200);
    pages.push(MentionsEnvelope.parse(res.body));
    if (!res.body.has_more) break;
    after = res.body.next_starting_after;
  }
  return pages;
}

beforeAll(async () => {
  gw = await startTestGateway();
  ({ key, id: keyId } = await gw.createKey('studio'));
  bundle = canonBundle();
  projectId = (await importBundle(gw, key, bundle)).projectId;
  const res = await gw.request(`/projects/${projectId}/recall?limit=100`, { key });
  const rows = await gw.gateway.runtime.services.prisma.entity.findMany({ where: { projectId }, select: { id: true, key: true } });
  for (const row of rows) entityIds.set(row.key, row.id);
  expect(res.body.entities).toHaveLength(rows.length);
});
afterAll(() => gw?.close());

describe('GET /projects/{id}/recall', () => {
  it('when called without q, then every entity comes back by name, each a valid RecallEntity', async () => {
    const res = await gw.request(`/projects/${projectId}/recall`, { key });
    expect(res.status).toBe(200);
    const body = RecallResponse.parse(res.body);
    for (const entity of res.body.entities) RecallEntity.parse(entity);
    const names = body.entities.map((e) => e.canonicalName);
    expect(names).toEqual(bundle.entities.map((e: any) => e.name).sort());
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(res.headers.get('lore-api-version')).toBe('1.0');
  });

  it('when q matches a name in another case, then only the entities with that name part come back', async () => {
    const res = await gw.request(`/projects/${projectId}/recall?q=vOSS`, { key });
    expect(res.status).toBe(200);
    expect(res.body.entities.map((e: any) => e.canonicalName)).toEqual(['Keth Voss', 'Mara Voss']);
  });

  it('when q matches only an alias (case-insensitive), then the entity with that alias comes back', async () => {
    const res = await gw.request(`/projects/${projectId}/recall?q=${encodeURIComponent('THE CAPTAIN')}`, { key });
    expect(res.status).toBe(200);
    expect(res.body.entities.map((e: any) => e.id)).toEqual([entityIds.get('mara')]);
    const none = await gw.request(`/projects/${projectId}/recall?q=nobody-of-that-name`, { key });
    expect(none.status).toBe(200);
    expect(none.body.entities).toEqual([]);
  });

  it('when an entity is mentioned, then lastMentions gives chapter, line, snippet and timestamp, latest first', async () => {
    const res = await gw.request(`/projects/${projectId}/recall?q=Mara%20Voss`, { key });
    const [mara] = res.body.entities;
    expect(mara.lastMentions.map((m: any) => [m.chapter, m.line])).toEqual([['ch-02', 3], ['ch-01', 2], ['ch-01', 1]]);
    expect(mara.lastMentions[0].snippet).toBe('Mara searched the black water until dawn.');
    expect(mara.lastMentions[1].snippet).toContain('The Captain');
    for (const m of mara.lastMentions) {
      expect(new Date(m.timestamp).toISOString()).toBe(m.timestamp);
      expect(Date.now() - Date.parse(m.timestamp)).toBeLessThan(10 * 60_000);
    }
    // Orla has 45 mentions: only the 5 latest in reading order (the epilogue's last lines) are listed.
    const orla = (await gw.request(`/projects/${projectId}/recall?q=orla`, { key })).body.entities[0];
    expect(orla.lastMentions.map((m: any) => [m.chapter, m.line])).toEqual(expectedOrlaOrder().slice(-5).reverse());
  });

  it('when entities carry state, status and confidence, then recall gives currentState, approvalStatus and confidence', async () => {
    const { entities } = (await gw.request(`/projects/${projectId}/recall?limit=100`, { key })).body;
    const byName = new Map(entities.map((e: any) => [e.canonicalName, e]));
    expect(byName.get('Mara Voss')).toMatchObject({
      type: 'character', currentState: { status: 'alive', eyes: 'green', age: 34 }, approvalStatus: 'approved', confidence: 0.95,
      aliases: ['Mara', 'the Captain'], pendingConflictIds: [],
    });
    expect(byName.get("Mara's oath")).toMatchObject({ type: 'promise', approvalStatus: 'suggested', confidence: 0.6 });
    expect(byName.get('Keth Voss')).toMatchObject({ currentState: { status: 'dead', died_in: 'ch-02' }, approvalStatus: 'approved' });
    // Confidence is optional: absent, not null, when the bundle gave none.
    expect(byName.get('Keth Voss')).not.toHaveProperty('confidence');
    expect(byName.get('No magic at sea')).toMatchObject({ type: 'rule', currentState: {}, lastMentions: [] });
  });

  it('when limit is given, then at most that many entities come back; 0, 101 and non-integers are 400', async () => {
    const two = await gw.request(`/projects/${projectId}/recall?limit=2`, { key });
    expect(two.status).toBe(200);
    expect(two.body.entities).toHaveLength(2);
    for (const limit of ['0', '101', 'x', '1.5']) {
      const res = await gw.request(`/projects/${projectId}/recall?limit=${limit}`, { key });
      const problem = expectProblem(res, 400, 'validation_error', `/api/v1/projects/${projectId}/recall`);
      expect(problem.errors?.map((e) => e.path)).toEqual(['query.limit']);
    }
  });

  it('when the project does not exist, then 404 not_found naming it', async () => {
    const res = await gw.request('/projects/prj_doesnotexist/recall', { key });
    const problem = expectProblem(res, 404, 'not_found', '/api/v1/projects/prj_doesnotexist/recall');
    expect(problem.detail).toContain('prj_doesnotexist');
  });
});

describe('GET /projects/{id}/recall/{entityId}/mentions', () => {
  it('when no limit is given, then 20 mentions per page, and walking the pages yields all 45 once in reading order', async () => {
    const pages = await walkMentions(entityIds.get('orla')!);
    expect(pages.map((p) => p.data.length)).toEqual([20, 20, 5]);
    expect(pages.map((p) => p.has_more)).toEqual([true, true, false]);
    expect(pages[0].next_starting_after).toBe(pages[0].data[19].id);
    expect(pages[1].next_starting_after).toBe(pages[1].data[19].id);
    expect(pages[2]).not.toHaveProperty('next_starting_after');
    const all = pages.flatMap((p) => p.data);
    expect(new Set(all.map((m) => m.id)).size).toBe(45);
    expect(all.map((m) => [m.chapter, m.line])).toEqual(expectedOrlaOrder());
    for (const m of all) expect(m.snippet).toContain('Orla');
  });

  it('when paging with other limits, then the sequence is the same', async () => {
    const reference = (await walkMentions(entityIds.get('orla')!, 100)).flatMap((p) => p.data.map((m: any) => m.id));
    expect(reference).toHaveLength(45);
    for (const limit of [1, 7, 45]) {
      const pages = await walkMentions(entityIds.get('orla')!, limit);
      expect(pages).toHaveLength(Math.ceil(45 / limit));
      expect(pages.flatMap((p) => p.data.map((m: any) => m.id))).toEqual(reference);
      expect(pages.at(-1)).not.toHaveProperty('next_starting_after');
    }
  });

  it('when limit is 0, 101 or not an integer, then 400 validation_error', async () => {
    for (const limit of ['0', '101', 'abc', '-1']) {
      const res = await gw.request(`/projects/${projectId}/recall/${entityIds.get('orla')}/mentions?limit=${limit}`, { key });
      const problem = expectProblem(res, 400, 'validation_error');
      expect(problem.errors?.map((e) => e.path)).toEqual(['query.limit']);
    }
  });

  it('when the cursor is a mention of another entity, unknown or garbage, then 400', async () => {
    const path = `/projects/${projectId}/recall/${entityIds.get('orla')}/mentions`;
    const maraMention = (await gw.request(`/projects/${projectId}/recall/${entityIds.get('mara')}/mentions`, { key })).body.data[0].id;
    expectProblem(await gw.request(`${path}?starting_after=${maraMention}`, { key }), 400, 'invalid_cursor', `/api/v1${path}`);
    expectProblem(await gw.request(`${path}?starting_after=men_01nosuchmention`, { key }), 400, 'invalid_cursor');
    const garbage = expectProblem(await gw.request(`${path}?starting_after=${encodeURIComponent('%$!* x')}`, { key }), 400, 'validation_error');
    expect(garbage.errors?.map((e) => e.path)).toEqual(['query.starting_after']);
  });

  it('when the entity is unknown or belongs to another project of the same account, then 404', async () => {
    expectProblem(await gw.request(`/projects/${projectId}/recall/ent_nosuchentity/mentions`, { key }), 404, 'not_found');
    const other = await importBundle(gw, key, { project: { name: 'Another book' }, entities: [{ key: 'x', type: 'object', name: 'Lantern' }] });
    const otherEntity = (await gw.request(`/projects/${other.projectId}/recall`, { key })).body.entities[0].id;
    expectProblem(await gw.request(`/projects/${projectId}/recall/${otherEntity}/mentions`, { key }), 404, 'not_found');
    expectProblem(await gw.request(`/projects/prj_nosuchproject/recall/${otherEntity}/mentions`, { key }), 404, 'not_found');
  });

  it('when chapters are reordered by a re-import, then mentions follow the new reading order', async () => {
    const own = await gw.createKey('studio');
    const reordered = canonBundle();
    reordered.project.name = 'Reordered book';
    const { projectId: pid } = await importBundle(gw, own.key, reordered);
    const orla = (await gw.request(`/projects/${pid}/recall?q=Orla`, { key: own.key })).body.entities[0].id;
    // The epilogue moves to the front; no text changes.
    reordered.chapters.find((c: any) => c.id === 'aa-epilogue').ordinal = 0;
    await importBundle(gw, own.key, reordered);
    const res = await gw.request(`/projects/${pid}/recall/${orla}/mentions?limit=100`, { key: own.key });
    const chapters = res.body.data.map((m: any) => m.chapter);
    expect([...new Set(chapters)]).toEqual(['aa-epilogue', 'ch-03', 'ch-10']);
  });

  it('when the cursor mention was deleted by a re-import of its chapter, then 400 invalid_cursor', async () => {
    const own = await gw.createKey('studio');
    const b = canonBundle();
    b.project.name = 'Rewritten book';
    const { projectId: pid } = await importBundle(gw, own.key, b);
    const orla = (await gw.request(`/projects/${pid}/recall?q=Orla`, { key: own.key })).body.entities[0].id;
    const path = `/projects/${pid}/recall/${orla}/mentions`;
    const first = await gw.request(`${path}?limit=1`, { key: own.key });
    expect(first.body.data[0].chapter).toBe('ch-03');
    const stale = first.body.next_starting_after;
    b.chapters.find((c: any) => c.id === 'ch-03').text += '\nOrla slept.';
    await importBundle(gw, own.key, b);
    expectProblem(await gw.request(`${path}?starting_after=${stale}`, { key: own.key }), 400, 'invalid_cursor');
    const fresh = await gw.request(`${path}?limit=100`, { key: own.key });
    expect(fresh.body.data).toHaveLength(46);
  });
});

describe('POST /projects/{id}/canon/{entityId}/approve', () => {
  const candidates = (entityId: string) => gw.gateway.runtime.services.prisma.candidate.count({ where: { entityId } });
  const entityFacts = async (entityId: string) => {
    const result = await gw.graphql(
      'query ($p: ID!, $e: ID!) { entity(projectId: $p, entityId: $e) { approvalStatus facts { text status source candidateId } } }',
      { p: projectId, e: entityId },
      key,
    );
    expect(result.errors).toBeUndefined();
    return result.data.entity;
  };

  it('when called without a body, then the suggested entity becomes approved and the decision is recorded', async () => {
    const oath = entityIds.get('oath')!;
    const path = `/projects/${projectId}/canon/${oath}/approve`;
    const res = await gw.request(path, { method: 'POST', key });
    expect(res.status).toBe(200);
    const result = ApproveResult.parse(res.body);
    expect(result).toMatchObject({ entityId: oath, status: 'approved' });
    expect(result.candidateId).toMatch(/^cnd_/);
    expect(result.decisionId).toMatch(/^dec_/);
    expect((await entityFacts(oath)).approvalStatus).toBe('approved');
    const recall = await gw.request(`/projects/${projectId}/recall?q=${encodeURIComponent("Mara's oath")}`, { key });
    expect(recall.body.entities[0].approvalStatus).toBe('approved');
    const decision = await gw.gateway.runtime.services.prisma.decision.findUniqueOrThrow({ where: { id: result.decisionId }, include: { candidate: true } });
    expect(decision).toMatchObject({ status: 'approved', decidedBy: keyId, candidateId: result.candidateId });
    expect(decision.candidate).toMatchObject({ entityId: oath, fact: null, content: null, source: 'api', proposedBy: keyId });
  });

  it('when called with an empty JSON object, then it approves like no body', async () => {
    const res = await gw.request(`/projects/${projectId}/canon/${entityIds.get('heron')}/approve`, { method: 'POST', key, json: {} });
    expect(res.status).toBe(200);
    expect(ApproveResult.parse(res.body).entityId).toBe(entityIds.get('heron'));
  });

  it('when a fact and its source content are given, then the fact is approved canon with its provenance', async () => {
    const keth = entityIds.get('keth')!;
    const fact = 'Keth wore a silver ring shaped like a cormorant.';
    const content = 'On his hand the silver cormorant ring caught the lamplight.';
    const res = await gw.request(`/projects/${projectId}/canon/${keth}/approve`, { method: 'POST', key, json: { fact, content } });
    expect(res.status).toBe(200);
    const result = ApproveResult.parse(res.body);
    const { facts } = await entityFacts(keth);
    expect(facts).toContainEqual({ text: fact, status: 'approved', source: 'api', candidateId: result.candidateId });
    const candidate = await gw.gateway.runtime.services.prisma.candidate.findUniqueOrThrow({ where: { id: result.candidateId }, include: { decisions: true } });
    expect(candidate).toMatchObject({ entityId: keth, fact, content, proposedBy: keyId });
    expect(candidate.decisions).toEqual([expect.objectContaining({ id: result.decisionId, status: 'approved', decidedBy: keyId })]);

    // The approved fact is searchable at once: "cormorant" appears nowhere else.
    const search = await gw.request(`/projects/${projectId}/search?q=cormorant`, { key });
    expect(search.status).toBe(200);
    expect(search.body.data.map((e: any) => e.id)).toEqual([keth]);
  });

  it('when the same Idempotency-Key is replayed, then the same ids come back, nothing new is recorded and no quota is used', async () => {
    const gull = entityIds.get('gull-point')!;
    const path = `/projects/${projectId}/canon/${gull}/approve`;
    const json = { fact: 'The Gull Point keeper left in the year of the great flood.' };
    const headers = { 'Idempotency-Key': 'approve-gull-1' };
    const first = await gw.request(path, { method: 'POST', key, json, headers });
    expect(first.status).toBe(200);
    const before = await candidates(gull);
    const usedBefore = (await gw.request('/usage', { key })).body.used;
    const replay = await gw.request(path, { method: 'POST', key, json, headers });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect(await candidates(gull)).toBe(before);
    expect((await gw.request('/usage', { key })).body.used).toBe(usedBefore);
    const { facts } = await entityFacts(gull);
    expect(facts.filter((f: any) => f.text === json.fact)).toHaveLength(1);
  });

  it('when the same Idempotency-Key comes with another body, then 422 idempotency_key_reused and nothing is recorded', async () => {
    const gull = entityIds.get('gull-point')!;
    const path = `/projects/${projectId}/canon/${gull}/approve`;
    const headers = { 'Idempotency-Key': 'approve-gull-2' };
    expect((await gw.request(path, { method: 'POST', key, json: { fact: 'First wording.' }, headers })).status).toBe(200);
    const before = await candidates(gull);
    const res = await gw.request(path, { method: 'POST', key, json: { fact: 'Second wording.' }, headers });
    expectProblem(res, 422, 'idempotency_key_reused', `/api/v1${path}`);
    // Another entity under the same key is another request too.
    const other = await gw.request(`/projects/${projectId}/canon/${entityIds.get('no-magic')}/approve`, { method: 'POST', key, json: { fact: 'First wording.' }, headers });
    expectProblem(other, 422, 'idempotency_key_reused');
    expect(await candidates(gull)).toBe(before);
    expect((await entityFacts(gull)).facts.map((f: any) => f.text)).not.toContain('Second wording.');
  });

  it('when the body is invalid, then 400 naming the field and nothing is recorded', async () => {
    const mara = entityIds.get('mara')!;
    const before = await candidates(mara);
    const path = `/projects/${projectId}/canon/${mara}/approve`;
    for (const json of [{ fact: '   ' }, { fact: 42 }, { fact: 'x'.repeat(2001) }]) {
      const problem = expectProblem(await gw.request(path, { method: 'POST', key, json }), 400, 'validation_error');
      expect(problem.errors?.map((e) => e.path)).toEqual(['body.fact']);
    }
    expectProblem(await gw.request(path, { method: 'POST', key, json: ['a fact'] }), 400, 'validation_error');
    expectProblem(await gw.request(path, { method: 'POST', key, body: '{"fact":', headers: { 'Content-Type': 'application/json' } }), 400, 'malformed_json');
    expect(await candidates(mara)).toBe(before);
  });

  it('when the entity or project is unknown, then 404 not_found', async () => {
    expectProblem(await gw.request(`/projects/${projectId}/canon/ent_nosuchentity/approve`, { method: 'POST', key }), 404, 'not_found');
    expectProblem(await gw.request(`/projects/prj_nosuchproject/canon/${entityIds.get('mara')}/approve`, { method: 'POST', key }), 404, 'not_found');
  });
});
