// Authoring between accounts: another account's project, entity or relationship answers every new route and mutation
// exactly like a missing one (404 not_found), and nothing of the other account changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saltmarshBundle } from '../support/fixtures.ts';
import { entityIdsByName, importBundle, startTestGateway, type ApiResponse, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let a: { key: string };
let b: { key: string };
let projectA: string;
let projectB: string;
let entityA: string;
let otherEntityA: string;
let relationshipA: string;
let entityB: string;
const missingProject = 'prj_01nosuchproject0000000000';
const missingEntity = 'ent_01nosuchentity00000000000';
const missingRelationship = 'rel_01nosuchrelationship00000';

beforeAll(async () => {
  gw = await startTestGateway();
  a = await gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 });
  b = await gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 });
  projectA = (await importBundle(gw, a.key, saltmarshBundle())).projectId;
  projectB = (await importBundle(gw, b.key, { project: { name: 'B book' }, entities: [{ key: 'wren', type: 'character', name: 'Wren' }] })).projectId;
  const byName = await entityIdsByName(gw, a.key, projectA);
  [entityA, otherEntityA] = [byName['Mara Voss'], byName['Keth Voss']];
  relationshipA = (await db().relationship.findFirstOrThrow({ where: { projectId: projectA } })).id;
  entityB = (await gw.request(`/projects/${projectB}/recall`, { key: b.key })).body.entities[0].id;
});
afterAll(() => gw?.close());

const db = () => gw.gateway.runtime.services.prisma;

/** Everything of project A that B might change. */
async function snapshotA() {
  const where = { projectId: projectA };
  return {
    project: await db().project.findUniqueOrThrow({ where: { id: projectA }, select: { canonVersion: true, updatedAt: true } }),
    entities: await db().entity.findMany({ where, orderBy: { id: 'asc' } }),
    relationships: await db().relationship.findMany({ where, orderBy: { id: 'asc' } }),
    stateValues: await db().stateValue.count({ where }),
    mentions: await db().mention.count({ where }),
  };
}

/** A problem with the ids it names taken out, so "theirs" and "missing" can be compared field by field. */
function comparable(res: ApiResponse, ...idsNamed: string[]) {
  const strip = (text: string | undefined) => idsNamed.reduce((t, id) => t?.replaceAll(id, '<id>'), text);
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    code: res.body?.code,
    detail: strip(res.body?.detail),
    instance: strip(res.body?.instance),
    errors: res.body?.errors?.map((e: any) => ({ path: e.path, message: strip(e.message) })),
    keys: Object.keys(res.body ?? {}).sort(),
  };
}

describe('REST authoring between accounts', () => {
  it("when B writes or reads through A's project on any new route, then 404 exactly like a missing project, and nothing of A changes", async () => {
    const before = await snapshotA();
    const calls: [string, (project: string) => Promise<ApiResponse>][] = [
      ['create entity', (p) => gw.request(`/projects/${p}/entities`, { method: 'POST', key: b.key, json: { type: 'character', name: 'Intruder' } })],
      ['create entity, keyed', (p) => gw.request(`/projects/${p}/entities`, { method: 'POST', key: b.key, json: { type: 'character', name: 'Intruder' }, headers: { 'Idempotency-Key': `b-${p}` } })],
      ['read entity', (p) => gw.request(`/projects/${p}/entities/${entityA}`, { key: b.key })],
      ['update entity', (p) => gw.request(`/projects/${p}/entities/${entityA}`, { method: 'PATCH', key: b.key, json: { name: 'Stolen' } })],
      ['delete entity', (p) => gw.request(`/projects/${p}/entities/${entityA}`, { method: 'DELETE', key: b.key })],
      ['create relationship', (p) => gw.request(`/projects/${p}/relationships`, { method: 'POST', key: b.key, json: { from: entityA, to: otherEntityA, kind: 'haunts' } })],
      ['update relationship', (p) => gw.request(`/projects/${p}/relationships/${relationshipA}`, { method: 'PATCH', key: b.key, json: { weight: 9 } })],
      ['delete relationship', (p) => gw.request(`/projects/${p}/relationships/${relationshipA}`, { method: 'DELETE', key: b.key })],
      ['list chapters', (p) => gw.request(`/projects/${p}/chapters`, { key: b.key })],
      ['read chapter', (p) => gw.request(`/projects/${p}/chapters/ch-01`, { key: b.key })],
      ['delete project', (p) => gw.request(`/projects/${p}`, { method: 'DELETE', key: b.key })],
    ];
    for (const [name, call] of calls) {
      const theirs = await call(projectA);
      const missing = await call(missingProject);
      expect(theirs.status, name).toBe(404);
      expect(theirs.body.code, name).toBe('not_found');
      expect(comparable(theirs, projectA), name).toEqual(comparable(missing, missingProject));
      expect(JSON.stringify(theirs.body), name).not.toContain('Mara');
    }
    expect(await snapshotA()).toEqual(before);
  });

  it("when B names A's entity or relationship in B's own project, then 404 like a missing one, and nothing of A changes", async () => {
    const before = await snapshotA();
    const calls: [string, (entity: string, relationship: string) => Promise<ApiResponse>, string][] = [
      ['read entity', (e) => gw.request(`/projects/${projectB}/entities/${e}`, { key: b.key }), 'entity'],
      ['update entity', (e) => gw.request(`/projects/${projectB}/entities/${e}`, { method: 'PATCH', key: b.key, json: { name: 'Stolen' } }), 'entity'],
      ['delete entity', (e) => gw.request(`/projects/${projectB}/entities/${e}`, { method: 'DELETE', key: b.key }), 'entity'],
      ['relationship from', (e) => gw.request(`/projects/${projectB}/relationships`, { method: 'POST', key: b.key, json: { from: e, to: entityB, kind: 'haunts' } }), 'entity'],
      ['relationship to', (e) => gw.request(`/projects/${projectB}/relationships`, { method: 'POST', key: b.key, json: { from: entityB, to: e, kind: 'haunts' } }), 'entity'],
      ['update relationship', (_, r) => gw.request(`/projects/${projectB}/relationships/${r}`, { method: 'PATCH', key: b.key, json: { weight: 9 } }), 'relationship'],
      ['delete relationship', (_, r) => gw.request(`/projects/${projectB}/relationships/${r}`, { method: 'DELETE', key: b.key }), 'relationship'],
    ];
    for (const [name, call, what] of calls) {
      const theirs = await call(entityA, relationshipA);
      const missing = await call(missingEntity, missingRelationship);
      const [theirId, missingId] = what === 'entity' ? [entityA, missingEntity] : [relationshipA, missingRelationship];
      expect(theirs.status, name).toBe(404);
      expect(comparable(theirs, theirId), name).toEqual(comparable(missing, missingId));
    }
    expect(await snapshotA()).toEqual(before);
    expect(await db().relationship.count({ where: { projectId: projectB } })).toBe(0);
  });
});

describe('GraphQL authoring between accounts', () => {
  it("when B runs each new mutation on A's project, then not_found, and nothing of A changes", async () => {
    const before = await snapshotA();
    const mutations: [string, Record<string, unknown>][] = [
      ['mutation ($p: ID!) { createEntity(projectId: $p, input: { type: character, name: "Intruder" }) { id } }', {}],
      ['mutation ($p: ID!, $e: ID!) { updateEntity(projectId: $p, entityId: $e, input: { name: "Stolen" }) { id } }', { e: entityA }],
      ['mutation ($p: ID!, $e: ID!) { deleteEntity(projectId: $p, entityId: $e) { id } }', { e: entityA }],
      ['mutation ($p: ID!, $e: ID!, $f: ID!) { createRelationship(projectId: $p, input: { from: $e, to: $f, kind: "haunts" }) { id } }', { e: entityA, f: otherEntityA }],
      ['mutation ($p: ID!, $r: ID!) { updateRelationship(projectId: $p, relationshipId: $r, input: { weight: 9 }) { id } }', { r: relationshipA }],
      ['mutation ($p: ID!, $r: ID!) { deleteRelationship(projectId: $p, relationshipId: $r) { id } }', { r: relationshipA }],
      ['query ($p: ID!) { chapters(projectId: $p) { data { id } } }', {}],
      ['query ($p: ID!) { chapter(projectId: $p, chapterId: "ch-01") { text } }', {}],
      ['mutation ($p: ID!) { deleteProject(projectId: $p) { id } }', {}],
    ];
    for (const [query, variables] of mutations) {
      const theirs = await gw.graphql(query, { p: projectA, ...variables }, b.key);
      const missing = await gw.graphql(query, { p: missingProject, ...variables }, b.key);
      expect(theirs.errors?.[0]?.extensions?.code, query).toBe('not_found');
      expect(theirs.errors![0].message.replace(projectA, '<id>'), query).toBe(missing.errors![0].message.replace(missingProject, '<id>'));
    }
    const entity = await gw.graphql('query ($p: ID!, $e: ID!) { entity(projectId: $p, entityId: $e) { version state } }', { p: projectB, e: entityA }, b.key);
    expect(entity.errors?.[0]?.extensions?.code).toBe('not_found');
    expect(await snapshotA()).toEqual(before);
  });
});
