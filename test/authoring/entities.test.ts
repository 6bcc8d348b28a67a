// Entities authored one at a time over REST and GraphQL: create, read, change (with and without an expected version,
// including two writes racing) and delete, against a real gateway and database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Entity } from '../../rest/schemas/authoring.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { entityIdsByName, importBundle, startTestGateway, type ApiResponse, type TestGateway } from '../support/gateway.ts';
import { expectProblem } from '../support/problem.ts';

let gw: TestGateway;
let key: string;
let projectId: string;
let ids: Record<string, string>;

beforeAll(async () => {
  gw = await startTestGateway();
  // No rate limit in the way of the racing writes.
  ({ key } = await gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 }));
  projectId = (await importBundle(gw, key, saltmarshBundle())).projectId;
  ids = await entityIdsByName(gw, key, projectId);
});
afterAll(() => gw?.close());

const db = () => gw.gateway.runtime.services.prisma;
const post = (json: unknown, headers: Record<string, string> = {}) => gw.request(`/projects/${projectId}/entities`, { method: 'POST', key, json, headers });
const get = (entityId: string) => gw.request(`/projects/${projectId}/entities/${entityId}`, { key });
const patch = (entityId: string, json: unknown) => gw.request(`/projects/${projectId}/entities/${entityId}`, { method: 'PATCH', key, json });
const del = (entityId: string) => gw.request(`/projects/${projectId}/entities/${entityId}`, { method: 'DELETE', key });
const recallNames = async (q: string) => (await gw.request(`/projects/${projectId}/recall?q=${encodeURIComponent(q)}`, { key })).body.entities.map((e: any) => e.canonicalName);
const canonVersion = async () => (await db().project.findUniqueOrThrow({ where: { id: projectId }, select: { canonVersion: true } })).canonVersion;
const fieldsOf = (res: ApiResponse) => (res.body.errors as { path: string }[]).map((e) => e.path);
const rows = async () => ({
  entities: await db().entity.count({ where: { projectId } }),
  stateValues: await db().stateValue.count({ where: { projectId } }),
  mentions: await db().mention.count({ where: { projectId } }),
});
const entityFields = 'id key type canonicalName aliases currentState confidence approvalStatus version state stateChanges { from until state } lastMentions { chapter line }';

async function created(json: Record<string, unknown>) {
  const res = await post(json);
  expect(res.status, res.text).toBe(201);
  return Entity.parse(res.body);
}

describe('POST /projects/{id}/entities', () => {
  it('when an entity is created with aliases, state and timed state, then it answers 201 at version 1 with its mentions, and recall and search show it at once', async () => {
    const before = await canonVersion();
    const entity = await created({
      type: 'event',
      name: 'The Storm',
      aliases: ['storm'],
      state: { severity: 'gale', unknown: null },
      state_changes: [{ from: 'ch-02', state: { severity: 'spent', aftermath: true } }],
      confidence: 0.7,
    });
    expect(entity).toMatchObject({
      key: 'the-storm',
      type: 'event',
      canonicalName: 'The Storm',
      aliases: ['storm'],
      approvalStatus: 'approved',
      confidence: 0.7,
      version: 1,
      state: { severity: 'gale' },
      state_changes: [{ from: 'ch-02', state: { severity: 'spent', aftermath: true } }],
      currentState: { severity: 'spent', aftermath: true },
      pendingConflictIds: [],
    });
    expect(entity.lastMentions).toEqual([expect.objectContaining({ chapter: 'ch-02', line: 1, snippet: expect.stringContaining('storm') })]);
    expect(await canonVersion()).toBeGreaterThan(before);
    expect(await recallNames('Storm')).toEqual(['The Storm']);
    const search = await gw.request(`/projects/${projectId}/search?q=storm`, { key });
    expect(search.body.data.map((e: any) => e.id)).toContain(entity.id);
    expect((await get(entity.id)).body).toEqual(entity);
  });

  it('when the same Idempotency-Key is sent twice with the same body, then the first answer is replayed and one entity exists; with another body, 422', async () => {
    const body = { type: 'location', name: 'Saltmarsh Quay' };
    const first = await post(body, { 'Idempotency-Key': 'quay-1' });
    const again = await post(body, { 'Idempotency-Key': 'quay-1' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await db().entity.count({ where: { projectId, name: 'Saltmarsh Quay' } })).toBe(1);
    expectProblem(await post({ type: 'location', name: 'Another Quay' }, { 'Idempotency-Key': 'quay-1' }), 422, 'idempotency_key_reused');
  });

  it('when no key is given and the slug of the name is taken, then the key is numbered', async () => {
    await created({ type: 'object', name: 'Lantern', key: 'brass-lantern' });
    const second = await created({ type: 'object', name: 'Brass Lantern' });
    const third = await created({ type: 'object', name: 'Brass  Lantern!' });
    expect([second.key, third.key]).toEqual(['brass-lantern-2', 'brass-lantern-3']);
  });

  it('when a name or alias is another entity\'s (any case), or the key is taken, then 409 name_taken names the field and nothing is written', async () => {
    const before = await rows();
    const nameTaken = await post({ type: 'character', name: 'mara' });
    expectProblem(nameTaken, 409, 'name_taken');
    expect(fieldsOf(nameTaken)).toEqual(['body.name']);
    expect(fieldsOf(await post({ type: 'character', name: 'Wren', aliases: ['Wrenna', 'THE CAPTAIN'] }))).toEqual(['body.aliases.1']);
    expect(fieldsOf(await post({ type: 'character', name: 'Wren', aliases: ['wren'] }))).toEqual(['body.aliases.0']);
    const keyTaken = await post({ type: 'character', name: 'Wren', key: 'mara', state_changes: [{ from: 'ch-01', state: { a: 1 } }] });
    expectProblem(keyTaken, 409, 'name_taken');
    expect(fieldsOf(keyTaken)).toEqual(['body.key']);
    expect(await rows()).toEqual(before);
  });

  it('when the input is bad, then 400 validation_error names the field and nothing is written', async () => {
    const before = await rows();
    const cases: [unknown, string][] = [
      [{ type: 'character', name: '   ' }, 'body.name'],
      [{ type: 'dragon', name: 'Wren' }, 'body.type'],
      [{ type: 'character', name: 'Wren', state: [1, 2] }, 'body.state'],
      [{ type: 'character', name: 'Wren', state: 'alive' }, 'body.state'],
      [{ type: 'character', name: 'Wren', confidence: 2 }, 'body.confidence'],
      [{ type: 'character', name: 'Wren', state_changes: [{ from: 'ch-09', state: { a: 1 } }] }, 'body.state_changes.0.from'],
      [{ type: 'character', name: 'Wren', state_changes: [{ from: 'ch-02', until: 'ch-01', state: { a: 1 } }] }, 'body.state_changes.0.until'],
      [{ type: 'character', name: 'Wren', state_changes: [{ from: 'ch-02', until: 'ch-02', state: { a: 1 } }] }, 'body.state_changes.0.until'],
      [{ type: 'character', name: 'Wren', state_changes: [{ state: { a: 1 } }] }, 'body.state_changes.0.from'],
      [{ type: 'character', name: 'Wren', state_changes: [{ from: 'ch-01', state: {} }] }, 'body.state_changes.0.state'],
      [{ type: 'character', name: 'Wren', state_changes: [{ from: 'ch-01', state: { a: 1 } }, { from: 'ch-01', state: { b: 2 } }] }, 'body.state_changes.1'],
      [{ type: 'character', name: 'Wren', key: 'has space' }, 'body.key'],
    ];
    for (const [json, field] of cases) {
      const res = await post(json);
      expectProblem(res, 400, 'validation_error');
      expect(fieldsOf(res), JSON.stringify(json)).toContain(field);
    }
    expect(await rows()).toEqual(before);
  });
});

describe('GraphQL createEntity', () => {
  it('when created through GraphQL with a key, then it has that key (suggested: in the review queue); the same key again is name_taken naming input.key; a bad chapter names input.stateChanges', async () => {
    const mutation = `mutation ($p: ID!, $input: CreateEntityInput!) { createEntity(projectId: $p, input: $input) { ${entityFields} } }`;
    const ok = await gw.graphql(mutation, { p: projectId, input: { key: 'harbour', type: 'location', name: 'The Harbour', status: 'suggested', stateChanges: [{ until: 'ch-02', state: { tide: 'low' } }] } }, key);
    expect(ok.errors).toBeUndefined();
    expect(ok.data.createEntity).toMatchObject({
      key: 'harbour', approvalStatus: 'suggested', version: 1, state: {}, currentState: {}, stateChanges: [{ from: null, until: 'ch-02', state: { tide: 'low' } }],
    });
    // Suggested: it waits in the review queue as a proposed entity.
    const queue = await gw.request(`/projects/${projectId}/candidates`, { key });
    expect(queue.body.data).toContainEqual(expect.objectContaining({ kind: 'entity', status: 'pending', entity_id: ok.data.createEntity.id }));
    const again = await gw.graphql(mutation, { p: projectId, input: { key: 'harbour', type: 'location', name: 'Harbour Two' } }, key);
    expect(again.errors![0].extensions).toMatchObject({ code: 'name_taken', errors: [{ path: 'input.key' }] });
    const badChapter = await gw.graphql(mutation, { p: projectId, input: { type: 'location', name: 'Harbour Three', stateChanges: [{ from: 'nope', state: { a: 1 } }] } }, key);
    expect(badChapter.errors![0].extensions).toMatchObject({ code: 'validation_error', errors: [{ path: 'input.stateChanges.0.from' }] });
    const badType = await gw.graphql(mutation, { p: projectId, input: { type: 'dragon', name: 'Harbour Four' } }, key);
    expect(badType.errors![0].extensions.code).toBe('validation_error');
    expect(await db().entity.count({ where: { projectId, name: { startsWith: 'Harbour' } } })).toBe(0);
  });
});

describe('PATCH /projects/{id}/entities/{entityId}', () => {
  it('when renamed, then its mentions are recorded again under the new names, other entities\' mentions stay, and recall finds it by the new name at once', async () => {
    const storm = await created({ type: 'event', name: 'The Squall', aliases: ['midnight'] });
    expect(storm.lastMentions?.map((m) => [m.chapter, m.line])).toEqual([['ch-02', 1]]);
    const maraMentions = await db().mention.findMany({ where: { entityId: ids['Mara Voss'] }, orderBy: { id: 'asc' } });
    const res = await patch(storm.id, { name: 'The Black Water', aliases: ['dawn'] });
    expect(res.status, res.text).toBe(200);
    const renamed = Entity.parse(res.body);
    expect(renamed).toMatchObject({ canonicalName: 'The Black Water', aliases: ['dawn'], version: 2, key: storm.key });
    expect(renamed.lastMentions?.map((m) => [m.chapter, m.line])).toEqual([['ch-02', 3]]);
    expect(await db().mention.findMany({ where: { entityId: ids['Mara Voss'] }, orderBy: { id: 'asc' } })).toEqual(maraMentions);
    expect(await recallNames('Squall')).toEqual([]);
    expect(await recallNames('Black Water')).toEqual(['The Black Water']);
    const mentions = await gw.request(`/projects/${projectId}/recall/${storm.id}/mentions`, { key });
    expect(mentions.body.data.map((m: any) => m.line)).toEqual([3]);
  });

  it('when state is patched, then keys set to null go, others are set; state_changes replace the timed values; confidence null clears it', async () => {
    const wren = await created({ type: 'character', name: 'Wren Ashby', state: { status: 'alive', eyes: 'grey', age: 30 }, confidence: 0.4, state_changes: [{ from: 'ch-02', state: { status: 'missing' } }] });
    expect(wren.currentState).toEqual({ status: 'missing', eyes: 'grey', age: 30 });
    const res = await patch(wren.id, { state: { eyes: null, age: 31, title: 'pilot' }, state_changes: [{ from: 'ch-01', until: 'ch-02', state: { location: 'at sea' } }], confidence: null, type: 'object', status: 'suggested' });
    expect(res.status, res.text).toBe(200);
    const changed = Entity.parse(res.body);
    expect(changed).toMatchObject({
      version: 2, type: 'object', approvalStatus: 'suggested', state: { status: 'alive', age: 31, title: 'pilot' },
      state_changes: [{ from: 'ch-01', until: 'ch-02', state: { location: 'at sea' } }],
      // The timed value ends at ch-02: after the last chapter only the timeless state holds.
      currentState: { status: 'alive', age: 31, title: 'pilot' },
    });
    expect(changed.confidence).toBeUndefined();
    expect(await db().stateValue.count({ where: { entityId: wren.id } })).toBe(1);
    // An empty list removes every timed value; leaving state_changes out keeps them.
    expect((await patch(wren.id, { name: 'Wren Ashby-Hale' })).body.state_changes).toHaveLength(1);
    expect((await patch(wren.id, { state_changes: [] })).body).toMatchObject({ state_changes: [], version: 4 });
  });

  it('when expected_version is out of date, then 409 version_conflict names it, says the current version, and nothing is written', async () => {
    const tern = await created({ type: 'character', name: 'Tern' });
    expect((await patch(tern.id, { expected_version: 1, state: { a: 1 } })).status).toBe(200);
    const stale = await patch(tern.id, { expected_version: 1, name: 'Tern Renamed', state: { a: 2 } });
    expectProblem(stale, 409, 'version_conflict');
    expect(fieldsOf(stale)).toEqual(['body.expected_version']);
    expect(stale.body.detail).toContain('version 2');
    expect((await get(tern.id)).body).toMatchObject({ canonicalName: 'Tern', version: 2, state: { a: 1 } });
  });

  it('when two PATCHes with the same expected_version race, then exactly one is 200 and the other 409 version_conflict', async () => {
    const gull = await created({ type: 'character', name: 'Gull' });
    for (let round = 0; round < 5; round++) {
      const { version } = (await get(gull.id)).body;
      const answers = await Promise.all([
        patch(gull.id, { expected_version: version, state: { round, by: 'a' } }),
        patch(gull.id, { expected_version: version, state: { round, by: 'b' } }),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      expectProblem(answers.find((a) => a.status === 409)!, 409, 'version_conflict');
      const winner = answers.find((a) => a.status === 200)!.body;
      expect((await get(gull.id)).body).toMatchObject({ version: version + 1, state: winner.state });
    }
  });

  it('when two PATCHes without expected_version race, then both are 200 and the stored entity is one of the two writes whole', async () => {
    const heron = await created({ type: 'object', name: 'Skiff' });
    for (let round = 0; round < 5; round++) {
      const writes = [
        { name: `Skiff A${round}`, aliases: [`Alpha ${round}`], state: { by: 'a', round }, confidence: 0.1 },
        { name: `Skiff B${round}`, aliases: [`Beta ${round}`], state: { by: 'b', round }, confidence: 0.9 },
      ];
      const { version } = (await get(heron.id)).body;
      const answers = await Promise.all(writes.map((w) => patch(heron.id, w)));
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      expect(answers.map((a) => a.body.version).sort()).toEqual([version + 1, version + 2]);
      const stored = (await get(heron.id)).body;
      expect(stored.version).toBe(version + 2);
      const whole = writes.find((w) => w.name === stored.canonicalName)!;
      expect(stored).toMatchObject({ aliases: whole.aliases, state: whole.state, confidence: whole.confidence });
      // The later write answered with exactly what is stored.
      expect(answers.find((a) => a.body.version === version + 2)!.body).toEqual(stored);
    }
  });

  it('when the patch is bad or names a taken name, then 400 or 409 naming the field, and nothing is written', async () => {
    const tide = await created({ type: 'event', name: 'Spring Tide' });
    const cases: [unknown, number, string][] = [
      [{ name: '' }, 400, 'body.name'],
      [{ type: 'ship' }, 400, 'body.type'],
      [{ state: 7 }, 400, 'body.state'],
      [{ expected_version: 0 }, 400, 'body.expected_version'],
      [{ state_changes: [{ from: 'ch-99', state: { a: 1 } }] }, 400, 'body.state_changes.0.from'],
      [{ name: 'KETH' }, 409, 'body.name'],
      [{ aliases: ['Heron'] }, 409, 'body.aliases.0'],
    ];
    for (const [json, status, field] of cases) {
      const res = await patch(tide.id, json);
      expectProblem(res, status, status === 400 ? 'validation_error' : 'name_taken');
      expect(fieldsOf(res), JSON.stringify(json)).toContain(field);
    }
    expect((await get(tide.id)).body).toMatchObject({ canonicalName: 'Spring Tide', version: 1 });
    expectProblem(await patch('ent_01nosuchentity00000000000', { name: 'Nobody' }), 404, 'not_found');
  });

  it('when updated through GraphQL with a stale expectedVersion, then version_conflict naming input.expectedVersion; with the current one, the change', async () => {
    const rope = await created({ type: 'object', name: 'Rope' });
    const mutation = `mutation ($p: ID!, $e: ID!, $input: UpdateEntityInput!) { updateEntity(projectId: $p, entityId: $e, input: $input) { ${entityFields} } }`;
    const stale = await gw.graphql(mutation, { p: projectId, e: rope.id, input: { expectedVersion: 7, name: 'Cable' } }, key);
    expect(stale.errors![0].extensions).toMatchObject({ code: 'version_conflict', errors: [{ path: 'input.expectedVersion' }] });
    const ok = await gw.graphql(mutation, { p: projectId, e: rope.id, input: { expectedVersion: 1, name: 'Cable', aliases: ['hawser'], confidence: null } }, key);
    expect(ok.errors).toBeUndefined();
    expect(ok.data.updateEntity).toMatchObject({ canonicalName: 'Cable', aliases: ['hawser'], version: 2, confidence: null });
  });
});

describe('DELETE /projects/{id}/entities/{entityId}', () => {
  it('when an entity is deleted, then its facts, state values, mentions, relationships and conflict links go, beats stop naming it, proposals stay without it', async () => {
    const keth = ids['Keth Voss'];
    await created({ type: 'object', name: 'Keth\'s Knife', state_changes: [{ from: 'ch-01', state: { owner: 'Keth' } }] });
    await db().stateValue.create({ data: { id: 'stv_test_keth', projectId, entityId: keth, key: 'mood', value: 'grim' } });
    await db().conflict.create({
      data: { id: 'cfl_test_keth', projectId, severity: 'P2', kind: 'continuity_error', title: 't', rationale: 'r', refs: [keth], entities: { create: [{ entityId: keth }, { entityId: ids['Mara Voss'] }] } },
    });
    const candidates = await db().candidate.findMany({ where: { entityId: keth }, select: { id: true } });
    expect(candidates.length).toBeGreaterThan(0);
    const before = await canonVersion();

    const res = await del(keth);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ id: keth, deleted: true });
    expect(await canonVersion()).toBeGreaterThan(before);
    const where = { entityId: keth };
    expect(await db().entity.count({ where: { id: keth } })).toBe(0);
    expect(await db().fact.count({ where })).toBe(0);
    expect(await db().stateValue.count({ where })).toBe(0);
    expect(await db().mention.count({ where })).toBe(0);
    expect(await db().conflictEntity.count({ where })).toBe(0);
    expect(await db().conflictEntity.count({ where: { conflictId: 'cfl_test_keth' } })).toBe(1);
    expect(await db().relationship.count({ where: { OR: [{ fromId: keth }, { toId: keth }] } })).toBe(0);
    expect(await db().beat.count({ where: { projectId, entityIds: { has: keth } } })).toBe(0);
    expect(await db().beat.count({ where: { projectId } })).toBe(2);
    expect(await db().candidate.findMany({ where: { id: { in: candidates.map((c) => c.id) } }, select: { entityId: true } })).toEqual(candidates.map(() => ({ entityId: null })));

    expect(await recallNames('Keth')).toEqual(['Keth\'s Knife']);
    expectProblem(await get(keth), 404, 'not_found');
    expectProblem(await del(keth), 404, 'not_found');
    const graph = await gw.request(`/projects/${projectId}/graph`, { key });
    expect(graph.body.nodes.map((n: any) => n.id)).not.toContain(keth);
    expect(graph.body.edges.filter((e: any) => e.from === keth || e.to === keth)).toEqual([]);
  });

  it('when deleted through GraphQL, then {id, deleted: true}; its name is free again', async () => {
    const buoy = await created({ type: 'object', name: 'Bell Buoy' });
    const res = await gw.graphql('mutation ($p: ID!, $e: ID!) { deleteEntity(projectId: $p, entityId: $e) { id deleted } }', { p: projectId, e: buoy.id }, key);
    expect(res).toEqual({ data: { deleteEntity: { id: buoy.id, deleted: true } } });
    expect((await created({ type: 'object', name: 'Bell Buoy' })).key).toBe('bell-buoy');
  });
});
