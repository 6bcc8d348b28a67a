// Relationships authored one at a time over REST and GraphQL: create, change and delete, and what the graph then shows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Relationship } from '../../rest/schemas/authoring.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { entityIdsByName, importBundle, startTestGateway, type ApiResponse, type TestGateway } from '../support/gateway.ts';
import { expectProblem } from '../support/problem.ts';

let gw: TestGateway;
let key: string;
let projectId: string;
let ids: Record<string, string>;

beforeAll(async () => {
  gw = await startTestGateway();
  ({ key } = await gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 }));
  projectId = (await importBundle(gw, key, saltmarshBundle())).projectId;
  ids = await entityIdsByName(gw, key, projectId);
});
afterAll(() => gw?.close());

const db = () => gw.gateway.runtime.services.prisma;
const post = (json: unknown, headers: Record<string, string> = {}) => gw.request(`/projects/${projectId}/relationships`, { method: 'POST', key, json, headers });
const patch = (id: string, json: unknown) => gw.request(`/projects/${projectId}/relationships/${id}`, { method: 'PATCH', key, json });
const del = (id: string) => gw.request(`/projects/${projectId}/relationships/${id}`, { method: 'DELETE', key });
const canonVersion = async () => (await db().project.findUniqueOrThrow({ where: { id: projectId }, select: { canonVersion: true } })).canonVersion;
const fieldsOf = (res: ApiResponse) => (res.body.errors as { path: string }[]).map((e) => e.path);
const edgesOf = async (root: string) =>
  (await gw.request(`/projects/${projectId}/graph?root=${root}`, { key })).body.edges.filter((e: any) => e.from === root || e.to === root);

describe('/projects/{id}/relationships', () => {
  it('when a relationship is created, changed and deleted, then each answer says so, the graph follows at once, and each write raises the canon version', async () => {
    const [mara, point] = [ids['Mara Voss'], ids['Gull Point']];
    let version = await canonVersion();
    const expectRaised = async () => {
      const now = await canonVersion();
      expect(now).toBeGreaterThan(version);
      version = now;
    };

    const res = await post({ from: mara, to: point, kind: 'fears', weight: 2.5 });
    expect(res.status, res.text).toBe(201);
    const created = Relationship.parse(res.body);
    expect(created).toMatchObject({ from: mara, to: point, kind: 'fears', weight: 2.5 });
    expect(created.id).toMatch(/^rel_/);
    await expectRaised();
    expect(await edgesOf(point)).toContainEqual({ from: mara, to: point, kind: 'fears', weight: 2.5 });

    const reweighted = await patch(created.id, { weight: 0.5 });
    expect(reweighted.status, reweighted.text).toBe(200);
    expect(reweighted.body).toEqual({ ...created, weight: 0.5 });
    await expectRaised();

    const rekinded = await patch(created.id, { kind: 'watches' });
    expect(rekinded.body).toEqual({ ...created, kind: 'watches', weight: 0.5 });
    await expectRaised();
    const edges = await edgesOf(point);
    expect(edges).toContainEqual({ from: mara, to: point, kind: 'watches', weight: 0.5 });
    expect(edges.filter((e: any) => e.kind === 'fears')).toEqual([]);

    const deleted = await del(created.id);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: created.id, deleted: true });
    await expectRaised();
    expect((await edgesOf(point)).filter((e: any) => e.from === mara)).toEqual([]);
    expectProblem(await del(created.id), 404, 'not_found');
    expectProblem(await patch(created.id, { weight: 1 }), 404, 'not_found');
  });

  it('when the weight is left out, then it is 1; the same Idempotency-Key and body replay the first answer', async () => {
    const body = { from: ids['the Heron'], to: ids['Gull Point'], kind: 'passes' };
    const first = await post(body, { 'Idempotency-Key': 'passes-1' });
    const again = await post(body, { 'Idempotency-Key': 'passes-1' });
    expect(first.status).toBe(201);
    expect(first.body.weight).toBe(1);
    expect(again.body).toEqual(first.body);
    expect(await db().relationship.count({ where: { projectId, kind: 'passes' } })).toBe(1);
  });

  it('when the same from, to and kind exist already, then 409 already_exists; an unknown entity, 404 naming the field; bad input, 400 naming it; nothing is written', async () => {
    const before = await db().relationship.count({ where: { projectId } });
    const [mara, keth] = [ids['Mara Voss'], ids['Keth Voss']];
    const duplicate = await post({ from: mara, to: keth, kind: 'sibling_of' });
    expectProblem(duplicate, 409, 'already_exists');
    expect(fieldsOf(duplicate)).toEqual(['body.kind']);
    const unknownTo = await post({ from: mara, to: 'ent_01nosuchentity00000000000', kind: 'knows' });
    expectProblem(unknownTo, 404, 'not_found');
    expect(fieldsOf(unknownTo)).toEqual(['body.to']);
    expect(fieldsOf(await post({ from: 'ent_01nosuchentity00000000000', to: mara, kind: 'knows' }))).toEqual(['body.from']);
    for (const [json, field] of [
      [{ from: mara, to: keth, kind: '1st' }, 'body.kind'],
      [{ from: mara, to: keth, kind: 'two words' }, 'body.kind'],
      [{ from: mara, to: keth, kind: 'knows', weight: 'heavy' }, 'body.weight'],
      [{ from: mara, kind: 'knows' }, 'body.to'],
    ] as const) {
      const res = await post(json);
      expectProblem(res, 400, 'validation_error');
      expect(fieldsOf(res)).toContain(field);
    }
    const captains = (await db().relationship.findFirstOrThrow({ where: { projectId, kind: 'captains' } })).id;
    const clash = await post({ from: mara, to: ids['the Heron'], kind: 'owns' });
    expect(clash.status).toBe(201);
    const rekind = await patch(clash.body.id, { kind: 'captains' });
    expectProblem(rekind, 409, 'already_exists');
    expect(fieldsOf(rekind)).toEqual(['body.kind']);
    expectProblem(await patch(captains, { weight: 'x' }), 400, 'validation_error');
    expect(await db().relationship.count({ where: { projectId } })).toBe(before + 1);
    expect(await db().relationship.findUniqueOrThrow({ where: { id: clash.body.id } })).toMatchObject({ kind: 'owns', weight: 1 });
  });
});

describe('GraphQL relationship mutations', () => {
  it('when created, updated and deleted through GraphQL, then each answers the relationship or {id, deleted}', async () => {
    const fields = 'id from to kind weight';
    const input = { from: ids['No magic at sea'], to: ids['the Heron'], kind: 'binds', weight: 3 };
    const created = await gw.graphql(`mutation ($p: ID!, $input: CreateRelationshipInput!) { createRelationship(projectId: $p, input: $input) { ${fields} } }`, { p: projectId, input }, key);
    expect(created.errors).toBeUndefined();
    const { id } = created.data.createRelationship;
    expect(created.data.createRelationship).toEqual({ id, ...input });
    const updated = await gw.graphql(
      `mutation ($p: ID!, $r: ID!, $input: UpdateRelationshipInput!) { updateRelationship(projectId: $p, relationshipId: $r, input: $input) { ${fields} } }`,
      { p: projectId, r: id, input: { kind: 'protects', weight: null } },
      key,
    );
    expect(updated.data.updateRelationship).toEqual({ id, ...input, kind: 'protects' });
    const unknown = await gw.graphql(`mutation ($p: ID!, $input: CreateRelationshipInput!) { createRelationship(projectId: $p, input: $input) { id } }`, { p: projectId, input: { ...input, from: 'ent_nope' } }, key);
    expect(unknown.errors![0].extensions).toMatchObject({ code: 'not_found', errors: [{ path: 'input.from' }] });
    const deleted = await gw.graphql('mutation ($p: ID!, $r: ID!) { deleteRelationship(projectId: $p, relationshipId: $r) { id deleted } }', { p: projectId, r: id }, key);
    expect(deleted).toEqual({ data: { deleteRelationship: { id, deleted: true } } });
    expect(await db().relationship.count({ where: { id } })).toBe(0);
  });
});
