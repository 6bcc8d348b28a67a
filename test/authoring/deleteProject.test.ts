// Deleting a project over REST and GraphQL: everything of the project goes in one transaction (its change logs too,
// which hold no foreign key to it), nothing of any other project (the same account's or another's), and the account's
// idempotency records and audit entries stay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdProject } from '../../src/core/canon/canon.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectProblem } from '../support/problem.ts';
import { waitFor } from '../support/wait.ts';

let gw: TestGateway;
let a: { key: string; account: string };
let b: { key: string; account: string };

const unlimited = { customQuota: 1_000_000, customRate: 1_000_000 };

beforeAll(async () => {
  gw = await startTestGateway();
  a = await gw.createKey('enterprise', unlimited);
  b = await gw.createKey('enterprise', unlimited);
});
afterAll(() => gw?.close());

const db = () => gw.gateway.runtime.services.prisma;

/** A project with a row in every table a project has: the imported book, timed state, a relationship, a conflict. */
async function fullProject(key: string, name: string): Promise<string> {
  const bundle = saltmarshBundle();
  bundle.project.name = name;
  const projectId = (await importBundle(gw, key, bundle)).projectId;
  const created = await gw.request(`/projects/${projectId}/entities`, {
    method: 'POST', key, json: { type: 'event', name: 'The Storm', aliases: ['storm'], state_changes: [{ from: 'ch-02', state: { over: true } }] },
    headers: { 'Idempotency-Key': `storm-${name}` },
  });
  expect(created.status, created.text).toBe(201);
  const mara = (await gw.request(`/projects/${projectId}/recall?q=Mara%20Voss`, { key })).body.entities[0].id;
  expect((await gw.request(`/projects/${projectId}/relationships`, { method: 'POST', key, json: { from: created.body.id, to: mara, kind: 'tests' } })).status).toBe(201);
  await db().conflict.create({
    data: { id: `cfl_${projectId}`, projectId, severity: 'P1', kind: 'dead_character_active', title: 't', rationale: 'r', refs: [mara], entities: { create: [{ entityId: mara }] } },
  });
  return projectId;
}

/** Rows per table: of each project given, and in all. */
async function census(projectIds: string[]) {
  const perProject = async (projectId: string) => {
    const where = { projectId };
    return {
      entities: await db().entity.count({ where }),
      facts: await db().fact.count({ where }),
      stateValues: await db().stateValue.count({ where }),
      candidates: await db().candidate.count({ where }),
      decisions: await db().decision.count({ where: { candidate: where } }),
      relationships: await db().relationship.count({ where }),
      chapters: await db().chapter.count({ where }),
      mentions: await db().mention.count({ where }),
      beats: await db().beat.count({ where }),
      conflicts: await db().conflict.count({ where }),
      conflictLinks: await db().conflictEntity.count({ where: { conflict: where } }),
      graphOutbox: await db().graphOutbox.count({ where }),
      canonChanges: await db().canonChange.count({ where }),
      nameChanges: await db().nameChange.count({ where }),
      project: await db().project.count({ where: { id: projectId } }),
    };
  };
  const totals = {
    entities: await db().entity.count(),
    facts: await db().fact.count(),
    stateValues: await db().stateValue.count(),
    candidates: await db().candidate.count(),
    decisions: await db().decision.count(),
    relationships: await db().relationship.count(),
    chapters: await db().chapter.count(),
    mentions: await db().mention.count(),
    beats: await db().beat.count(),
    conflicts: await db().conflict.count(),
    conflictLinks: await db().conflictEntity.count(),
    graphOutbox: await db().graphOutbox.count(),
    canonChanges: await db().canonChange.count(),
    nameChanges: await db().nameChange.count(),
    project: await db().project.count(),
  };
  const accountRows = {
    idempotencyRecords: await db().idempotencyRecord.count(),
    auditEntries: await db().auditEntry.count(),
  };
  return { projects: Object.fromEntries(await Promise.all(projectIds.map(async (id) => [id, await perProject(id)] as const))), totals, accountRows };
}

describe('DELETE /projects/{id}', () => {
  it('when a project is deleted, then every row of it goes and the rows of the account\'s other project and of another account stay as they were', async () => {
    const doomed = await fullProject(a.key, 'Doomed');
    const kept = await fullProject(a.key, 'Kept');
    const theirs = await fullProject(b.key, 'Theirs');
    const before = await census([doomed, kept, theirs]);
    // Every table holds rows of the doomed project, so the test sees each one go.
    for (const [table, count] of Object.entries(before.projects[doomed])) expect(count, table).toBeGreaterThan(0);

    const res = await gw.request(`/projects/${doomed}`, { method: 'DELETE', key: a.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ id: doomed, deleted: true });

    const after = await census([doomed, kept, theirs]);
    for (const [table, count] of Object.entries(after.projects[doomed])) expect(count, table).toBe(0);
    expect(after.projects[kept]).toEqual(before.projects[kept]);
    expect(after.projects[theirs]).toEqual(before.projects[theirs]);
    const removed = before.projects[doomed] as Record<string, number>;
    expect(after.totals).toEqual(Object.fromEntries(Object.entries(before.totals).map(([table, n]) => [table, n - removed[table]])));
    // The account's records stay: its idempotency records and its audit log (which gains the delete itself).
    expect(after.accountRows.idempotencyRecords).toBe(before.accountRows.idempotencyRecords);
    expect(after.accountRows.auditEntries).toBeGreaterThanOrEqual(before.accountRows.auditEntries);

    expect((await gw.request('/projects', { key: a.key })).body.data.map((p: any) => p.id)).toEqual([kept]);
    expectProblem(await gw.request(`/projects/${doomed}/recall`, { key: a.key }), 404, 'not_found');
    expectProblem(await gw.request(`/projects/${doomed}`, { method: 'DELETE', key: a.key }), 404, 'not_found');
    // The project's own name is free again: an import of the same bundle makes a new project.
    expect((await importBundle(gw, a.key, { ...saltmarshBundle(), project: { name: 'Doomed' } })).projectId).not.toBe(doomed);
  });

  it('when another account, a missing id or a key without projects:write asks, then 404, 404 and 403, and nothing goes', async () => {
    const target = await fullProject(a.key, 'Guarded');
    const before = await census([target]);
    const byOther = await gw.request(`/projects/${target}`, { method: 'DELETE', key: b.key });
    const missing = await gw.request('/projects/prj_01nosuchproject0000000000', { method: 'DELETE', key: b.key });
    expectProblem(byOther, 404, 'not_found');
    expectProblem(missing, 404, 'not_found');
    expect(byOther.body.detail.replace(target, '<id>')).toBe(missing.body.detail.replace('prj_01nosuchproject0000000000', '<id>'));
    const indie = await gw.createKey('indie', { accountId: a.account });
    expectProblem(await gw.request(`/projects/${target}`, { method: 'DELETE', key: indie.key }), 403, 'insufficient_scope');
    const gql = await gw.graphql('mutation ($p: ID!) { deleteProject(projectId: $p) { id deleted } }', { p: target }, b.key);
    expect(gql.errors![0].extensions.code).toBe('not_found');
    expect((await census([target])).projects).toEqual(before.projects);
  });

  it('when deleted through GraphQL, then {id, deleted: true} and the project is gone', async () => {
    const target = await fullProject(a.key, 'By GraphQL');
    const res = await gw.graphql('mutation ($p: ID!) { deleteProject(projectId: $p) { id deleted } }', { p: target }, a.key);
    expect(res).toEqual({ data: { deleteProject: { id: target, deleted: true } } });
    for (const [table, count] of Object.entries((await census([target])).projects[target])) expect(count, table).toBe(0);
  });

  it('when writes wait behind the delete of their project, then each answers 404 (not a 5xx) and nothing of the project is left', async () => {
    const target = await fullProject(a.key, 'Raced');
    const mara = (await gw.request(`/projects/${target}/recall?q=Mara%20Voss`, { key: a.key })).body.entities[0].id;
    const waiting = async () => (await db().$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)[0].n;
    // The test holds the project's writer lock, so the delete and then the writes queue behind it in that order, each
    // having found the project there before it waited.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holder = db().$transaction(async (tx) => {
      await holdProject(tx, target);
      locked();
      await held;
    }, { timeout: 60_000 });
    await lockTaken;
    const deleting = gw.request(`/projects/${target}`, { method: 'DELETE', key: a.key });
    await waitFor('the delete to wait for the lock', async () => ((await waiting()) === 1 ? true : undefined), 20_000);
    const writes = [
      ...Array.from({ length: 3 }, (_, i) => gw.request(`/projects/${target}/entities`, { method: 'POST', key: a.key, json: { type: 'object', name: `Crate ${i}` } })),
      gw.request(`/projects/${target}/entities/${mara}`, { method: 'PATCH', key: a.key, json: { state: { racing: true } } }),
      gw.request(`/projects/${target}/entities/${mara}`, { method: 'DELETE', key: a.key }),
      gw.request(`/projects/${target}/relationships`, { method: 'POST', key: a.key, json: { from: mara, to: mara, kind: 'doubts' } }),
    ];
    // A project's new entities go one at a time in the gateway: the first of the three waits on the lock, the others behind it.
    await waitFor('the writes to wait for the lock', async () => ((await waiting()) === 1 + writes.length - 2 ? true : undefined), 20_000);
    release();
    await holder;
    const deleted = await deleting;
    expect(deleted.status, deleted.text).toBe(200);
    for (const answer of await Promise.all(writes)) expectProblem(answer, 404, 'not_found');
    for (const [table, count] of Object.entries((await census([target])).projects[target])) expect(count, table).toBe(0);
  });
});
