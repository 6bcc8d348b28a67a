// A key sees and changes only its own account's projects: another account's project answers exactly like a missing one,
// through REST and through GraphQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saltmarshBundle } from '../support/fixtures.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let a: { key: string; account: string };
let b: { key: string; account: string };
let projectA: string;
let projectB: string;
let entityA: string;
let entityB: string;
let mentionA: string;
let mentionB: string;
const missingProject = 'prj_01nosuchproject0000000000';
const missingEntity = 'ent_01nosuchentity00000000000';

/** Everything of project B that A might change. */
async function snapshotB() {
  const prisma = gw.gateway.runtime.services.prisma;
  const where = { projectId: projectB };
  return {
    project: await prisma.project.findUniqueOrThrow({ where: { id: projectB } }),
    entities: await prisma.entity.findMany({ where, orderBy: { id: 'asc' }, select: { id: true, status: true, name: true, aliases: true, searchText: true, updatedAt: true } }),
    facts: await prisma.fact.findMany({ where, orderBy: { id: 'asc' } }),
    candidates: await prisma.candidate.count({ where }),
    decisions: await prisma.decision.count({ where: { candidate: { projectId: projectB } } }),
    relationships: await prisma.relationship.count({ where }),
    chapters: await prisma.chapter.findMany({ where, orderBy: { id: 'asc' }, select: { id: true, contentHash: true, mentionHash: true } }),
    mentions: (await prisma.mention.findMany({ where, orderBy: { id: 'asc' }, select: { id: true } })).map((m) => m.id),
    beats: await prisma.beat.count({ where }),
  };
}

/** A problem with the ids it names taken out, so "theirs" and "missing" can be compared field by field. */
function comparable(res: { status: number; headers: Headers; body: any }, ...idsNamed: string[]) {
  const strip = (text: string | undefined) => idsNamed.reduce((t, id) => t?.replaceAll(id, '<id>'), text);
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    type: res.body?.type,
    title: res.body?.title,
    code: res.body?.code,
    detail: strip(res.body?.detail),
    instance: strip(res.body?.instance),
    keys: Object.keys(res.body ?? {}).sort(),
  };
}

beforeAll(async () => {
  gw = await startTestGateway();
  a = await gw.createKey('studio');
  b = await gw.createKey('studio');
  projectB = (await importBundle(gw, b.key, saltmarshBundle())).projectId;
  const ownBundle = {
    project: { name: 'A book of my own' },
    entities: [{ key: 'wren', type: 'character', name: 'Wren Ashby', aliases: ['Wren'], facts: ['Wren keeps bees.'] }],
    chapters: [{ id: 'ch-1', ordinal: 1, text: 'Wren opened the hive.\nWren closed the hive.' }],
  };
  projectA = (await importBundle(gw, a.key, ownBundle)).projectId;
  entityA = (await gw.request(`/projects/${projectA}/recall`, { key: a.key })).body.entities[0].id;
  entityB = (await gw.request(`/projects/${projectB}/recall?q=Mara%20Voss`, { key: b.key })).body.entities[0].id;
  mentionA = (await gw.request(`/projects/${projectA}/recall/${entityA}/mentions`, { key: a.key })).body.data[0].id;
  mentionB = (await gw.request(`/projects/${projectB}/recall/${entityB}/mentions`, { key: b.key })).body.data[0].id;
});
afterAll(() => gw?.close());

describe('REST isolation between accounts', () => {
  it('when each account lists projects, then it sees only its own; another key of the same account sees them too', async () => {
    const listA = await gw.request('/projects', { key: a.key });
    const listB = await gw.request('/projects', { key: b.key });
    expect(listA.body.data.map((p: any) => p.id)).toEqual([projectA]);
    expect(listB.body.data.map((p: any) => p.id)).toEqual([projectB]);
    const second = await gw.createKey('studio', { accountId: a.account });
    expect((await gw.request('/projects', { key: second.key })).body.data.map((p: any) => p.id)).toEqual([projectA]);
    expect((await gw.request(`/projects/${projectA}/recall`, { key: second.key })).status).toBe(200);
  });

  it("when A reads B's project through any endpoint, then 404 exactly like a project that does not exist", async () => {
    const reads: [string, (project: string, entity: string) => string][] = [
      ['recall', (p) => `/projects/${p}/recall`],
      ['recall with q', (p) => `/projects/${p}/recall?q=Mara`],
      ['mentions', (p, e) => `/projects/${p}/recall/${e}/mentions`],
      ['search', (p) => `/projects/${p}/search?q=Mara`],
      ['graph', (p) => `/projects/${p}/graph`],
      ['graph with root', (p, e) => `/projects/${p}/graph?root=${e}`],
    ];
    for (const [name, path] of reads) {
      const theirs = await gw.request(path(projectB, entityB), { key: a.key });
      const missing = await gw.request(path(missingProject, entityB), { key: a.key });
      expect(theirs.status, name).toBe(404);
      expect(theirs.body.code, name).toBe('not_found');
      expect(comparable(theirs, projectB), name).toEqual(comparable(missing, missingProject));
      expect(JSON.stringify(theirs.body), name).not.toContain('Mara');
    }
  });

  it("when A approves in B's project, then 404 like a missing project, and nothing of B changes", async () => {
    const before = await snapshotB();
    for (const json of [undefined, { fact: 'Mara is secretly a mermaid.', content: 'overheard' }]) {
      const theirs = await gw.request(`/projects/${projectB}/canon/${entityB}/approve`, { method: 'POST', key: a.key, json });
      const missing = await gw.request(`/projects/${missingProject}/canon/${entityB}/approve`, { method: 'POST', key: a.key, json });
      expect(theirs.status).toBe(404);
      expect(comparable(theirs, projectB)).toEqual(comparable(missing, missingProject));
    }
    // With an Idempotency-Key too: the request is refused before anything is stored under it.
    const keyed = await gw.request(`/projects/${projectB}/canon/${entityB}/approve`, {
      method: 'POST', key: a.key, json: { fact: 'x' }, headers: { 'Idempotency-Key': 'a-tries-b' },
    });
    expect(keyed.status).toBe(404);
    expect(await snapshotB()).toEqual(before);
  });

  it("when A names B's entity in A's own project, then 404 like a missing entity", async () => {
    const cases: [string, (entity: string) => Promise<any>][] = [
      ['mentions', (e) => gw.request(`/projects/${projectA}/recall/${e}/mentions`, { key: a.key })],
      ['approve', (e) => gw.request(`/projects/${projectA}/canon/${e}/approve`, { method: 'POST', key: a.key })],
      ['graph root', (e) => gw.request(`/projects/${projectA}/graph?root=${e}`, { key: a.key })],
    ];
    const before = await snapshotB();
    for (const [name, call] of cases) {
      const theirs = await call(entityB);
      const missing = await call(missingEntity);
      expect(theirs.status, name).toBe(404);
      expect(comparable(theirs, entityB), name).toEqual(comparable(missing, missingEntity));
    }
    expect(await snapshotB()).toEqual(before);
  });

  it("when A pages with B's ids as cursors, then 400 invalid_cursor like an unknown cursor", async () => {
    const searchTheirs = await gw.request(`/projects/${projectA}/search?q=Wren&starting_after=${entityB}`, { key: a.key });
    const searchMissing = await gw.request(`/projects/${projectA}/search?q=Wren&starting_after=${missingEntity}`, { key: a.key });
    expect(searchTheirs.status).toBe(400);
    expect(searchTheirs.body.code).toBe('invalid_cursor');
    expect(comparable(searchTheirs, entityB)).toEqual(comparable(searchMissing, missingEntity));
    const mentionsTheirs = await gw.request(`/projects/${projectA}/recall/${entityA}/mentions?starting_after=${mentionB}`, { key: a.key });
    expect(mentionsTheirs.status).toBe(400);
    expect(mentionsTheirs.body.code).toBe('invalid_cursor');
    // B cannot use A's mention as a cursor in B's project either.
    const reverse = await gw.request(`/projects/${projectB}/recall/${entityB}/mentions?starting_after=${mentionA}`, { key: b.key });
    expect(reverse.body.code).toBe('invalid_cursor');
  });

  it('when both accounts use the same Idempotency-Key, then each gets its own result', async () => {
    const headers = { 'Idempotency-Key': 'shared-key-1' };
    const first = await gw.request(`/projects/${projectA}/canon/${entityA}/approve`, { method: 'POST', key: a.key, json: { fact: 'Wren hums.' }, headers });
    const second = await gw.request(`/projects/${projectB}/canon/${entityB}/approve`, { method: 'POST', key: b.key, json: { fact: 'Mara hums.' }, headers });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(first.body.entityId).toBe(entityA);
    expect(second.body.entityId).toBe(entityB);
    expect(second.body.candidateId).not.toBe(first.body.candidateId);
  });
});

describe('GraphQL isolation between accounts', () => {
  const fields: [string, string, Record<string, unknown>][] = [
    ['recall', 'query ($p: ID!) { recall(projectId: $p) { id } }', {}],
    ['entity', 'query ($p: ID!, $e: ID!) { entity(projectId: $p, entityId: $e) { id facts { text } } }', { e: '<entity>' }],
    ['mentions', 'query ($p: ID!, $e: ID!) { mentions(projectId: $p, entityId: $e) { data { id } } }', { e: '<entity>' }],
    ['search', 'query ($p: ID!) { search(projectId: $p, q: "Mara") { data { id } } }', {}],
    ['graph', 'query ($p: ID!) { graph(projectId: $p) { nodes { id } } }', {}],
    ['importBundle', 'mutation ($p: ID!, $b: JSON!) { importBundle(projectId: $p, bundle: $b) { projectId } }', { b: '<bundle>' }],
    ['approveFact', 'mutation ($p: ID!, $e: ID!) { approveFact(projectId: $p, entityId: $e, fact: "Mara is a mermaid.") { candidateId } }', { e: '<entity>' }],
  ];
  const variables = (project: string, extra: Record<string, unknown>) => ({
    p: project,
    ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, v === '<entity>' ? entityB : saltmarshBundle()])),
  });
  const comparableError = (result: any, field: string, id: string) => ({
    data: result.data?.[field] ?? null,
    message: result.errors?.[0]?.message?.replaceAll(id, '<id>'),
    code: result.errors?.[0]?.extensions?.code,
    status: result.errors?.[0]?.extensions?.status,
    path: result.errors?.[0]?.path,
  });

  it("when A queries B's project through any field, then not_found exactly like a missing project, and nothing of B changes", async () => {
    const before = await snapshotB();
    for (const [field, query, extra] of fields) {
      const theirs = await gw.graphql(query, variables(projectB, extra), a.key);
      const missing = await gw.graphql(query, variables(missingProject, extra), a.key);
      expect(theirs.errors?.[0]?.extensions?.code, field).toBe('not_found');
      expect(comparableError(theirs, field, projectB), field).toEqual(comparableError(missing, field, missingProject));
      expect(JSON.stringify(theirs), field).not.toContain('Mara Voss');
    }
    expect(await snapshotB()).toEqual(before);
  });

  it("when A names B's entity under A's own project, then not_found", async () => {
    const before = await snapshotB();
    for (const [field, query, extra] of fields.filter(([, , extra]) => 'e' in extra)) {
      const theirs = await gw.graphql(query, variables(projectA, extra), a.key);
      expect(theirs.errors?.[0]?.extensions?.code, field).toBe('not_found');
      expect(theirs.data?.[field] ?? null, field).toBeNull();
    }
    expect(await snapshotB()).toEqual(before);
  });

  it("when A lists projects or imports a bundle named like B's project, then A gets its own project and B's is untouched", async () => {
    const before = await snapshotB();
    const projects = await gw.graphql('{ projects { id name } }', {}, a.key);
    expect(projects.data.projects.map((p: any) => p.id)).toEqual([projectA]);
    const imported = await importBundle(gw, a.key, saltmarshBundle());
    expect(imported.projectId).not.toBe(projectB);
    expect(imported.counts.entitiesCreated).toBe(6);
    expect(await snapshotB()).toEqual(before);
    const listB = await gw.request('/projects', { key: b.key });
    expect(listB.body.data.map((p: any) => p.id)).toEqual([projectB]);
  });
});
