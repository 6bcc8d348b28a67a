// Project names are unique per account, so an import by name lands in exactly one project; an account that holds two
// projects of one name from before is asked to choose instead of having one picked for it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saltmarshBundle } from '../support/fixtures.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});

afterAll(async () => {
  await gw?.close();
});

const importMutation = 'mutation ($bundle: JSON!, $projectId: ID) { importBundle(bundle: $bundle, projectId: $projectId) { projectId } }';

describe('project names', () => {
  it('when a project is created with a name the account already has, then 409 name_taken naming it, and nothing is created', async () => {
    const { key } = await gw.createKey('pro');
    const first = await gw.request('/projects', { method: 'POST', key, json: { name: 'The Salt Road' } });
    expect(first.status).toBe(201);
    const second = await gw.request('/projects', { method: 'POST', key, json: { name: 'The Salt Road' } });
    expect(second.status, second.text).toBe(409);
    expect(second.body).toMatchObject({ code: 'name_taken', errors: [{ path: 'name' }] });
    expect(second.body.detail).toContain(first.body.id);
    const listed = await gw.request('/projects', { key });
    expect(listed.body.data.filter((p: { name: string }) => p.name === 'The Salt Road')).toHaveLength(1);
  });

  it('when another account uses the same name, then both have their own project', async () => {
    const a = await gw.createKey('pro');
    const b = await gw.createKey('pro');
    expect((await gw.request('/projects', { method: 'POST', key: a.key, json: { name: 'Shared title' } })).status).toBe(201);
    expect((await gw.request('/projects', { method: 'POST', key: b.key, json: { name: 'Shared title' } })).status).toBe(201);
  });

  it('when ten creations of one name race, then exactly one project is made', async () => {
    const { key } = await gw.createKey('pro');
    const results = await Promise.all(Array.from({ length: 10 }, () => gw.request('/projects', { method: 'POST', key, json: { name: 'Raced' } })));
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
  });

  it('when a bundle was imported by name, then creating a project of that name is refused', async () => {
    const { key } = await gw.createKey('pro');
    await importBundle(gw, key, saltmarshBundle());
    const res = await gw.request('/projects', { method: 'POST', key, json: { name: saltmarshBundle().project.name } });
    expect(res.status).toBe(409);
  });

  it('when an account holds two projects of one name from before, then an import by name lists them and writes nothing; with a project id it imports', async () => {
    const { key, account } = await gw.createKey('pro');
    const prisma = gw.gateway.runtime.services.prisma;
    const name = saltmarshBundle().project.name;
    await prisma.project.createMany({ data: [{ id: 'prj_legacy_a', accountId: account, name }, { id: 'prj_legacy_b', accountId: account, name }] });
    const refused = await gw.graphql(importMutation, { bundle: saltmarshBundle() }, key);
    expect(refused.errors?.[0]?.extensions?.code).toBe('name_taken');
    expect(refused.errors?.[0]?.message).toContain('prj_legacy_a, prj_legacy_b');
    expect(await prisma.entity.count({ where: { projectId: { in: ['prj_legacy_a', 'prj_legacy_b'] } } })).toBe(0);
    const chosen = await gw.graphql(importMutation, { bundle: saltmarshBundle(), projectId: 'prj_legacy_b' }, key);
    expect(chosen.errors).toBeUndefined();
    expect(chosen.data.importBundle.projectId).toBe('prj_legacy_b');
  });
});
