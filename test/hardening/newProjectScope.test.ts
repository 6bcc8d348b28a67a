// One rule for making a project, whatever the way in: a new project needs the projects:write scope (pro and up), as
// POST /projects always did; free and indie keys write into their account's existing projects. Checked on REST,
// GraphQL (createProject, importBundle, importManuscript), the CLI's import of a bundle and of a manuscript, and MCP.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectMcp, expectToolError } from '../mcp/harness.ts';
import { expectCleanFailure, lore } from '../support/cli.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectProblem } from '../support/problem.ts';

let gw: TestGateway;
let dir: string;

beforeAll(async () => {
  gw = await startTestGateway();
  dir = await mkdtemp(path.join(tmpdir(), 'lore-new-project-'));
});
afterAll(async () => {
  await gw?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const bundle = (name: string) => ({ project: { name }, entities: [{ key: 'mara', type: 'character', name: 'Mara Quell', facts: ['Mara keeps the lighthouse.'] }] });
const manuscript = { path: 'book.md', content: '# One\n\nMara lit the lamp.\n\n# Two\n\nThe sea rose.\n' };

const importBundle = (key: string, name: string, projectId?: string) =>
  gw.graphql('mutation ($b: JSON!, $p: ID) { importBundle(bundle: $b, projectId: $p) { projectId projectCreated } }', { b: bundle(name), p: projectId }, key);
const importManuscript = (key: string, name: string) =>
  gw.graphql(
    'mutation ($n: String, $f: [ManuscriptFileInput!]!) { importManuscript(name: $n, format: markdown, files: $f) { projectId projectCreated } }',
    { n: name, f: [manuscript] },
    key,
  );
const projectsOf = (account: string) => gw.gateway.runtime.services.prisma.project.findMany({ where: { accountId: account }, select: { id: true, name: true } });

describe('a new project needs projects:write', () => {
  it('when free and indie keys would create a project through REST or GraphQL, then each is refused with insufficient_scope and no project is made', async () => {
    for (const tier of ['free', 'indie'] as const) {
      const { key, account } = await gw.createKey(tier);
      expectProblem(await gw.request('/projects', { method: 'POST', key, json: { name: 'Rest book' } }), 403, 'insufficient_scope');
      const created = await gw.graphql('mutation { createProject(input: { name: "Graph book" }) { id } }', {}, key);
      expect(created.errors?.[0].extensions).toMatchObject({ code: 'insufficient_scope', status: 403 });
      for (const refused of [await importBundle(key, 'Bundle book'), await importManuscript(key, 'Manuscript book')]) {
        expect(refused.errors, tier).toHaveLength(1);
        expect(refused.errors![0].extensions).toMatchObject({ code: 'insufficient_scope', status: 403 });
        expect(refused.errors![0].message).toMatch(/projects:write/);
      }
      expect(await projectsOf(account)).toEqual([]);
    }
  });

  it("when the account has the project, then free and indie keys import into it, by name or by id; and a pro key creates one", async () => {
    const pro = await gw.createKey('pro');
    const free = await gw.createKey('free', { accountId: pro.account });
    const indie = await gw.createKey('indie', { accountId: pro.account });
    const made = await importBundle(pro.key, 'Shared book');
    expect(made.data.importBundle).toMatchObject({ projectCreated: true });
    const projectId = made.data.importBundle.projectId;

    expect((await importBundle(free.key, 'Shared book')).data.importBundle).toEqual({ projectId, projectCreated: false });
    expect((await importBundle(free.key, 'Any name', projectId)).data.importBundle).toEqual({ projectId, projectCreated: false });
    expect((await importManuscript(indie.key, 'Shared book')).data.importManuscript).toEqual({ projectId, projectCreated: false });
    expect((await importManuscript(pro.key, 'Pro manuscript')).data.importManuscript).toMatchObject({ projectCreated: true });
    expect((await projectsOf(pro.account)).map((p) => p.name).sort()).toEqual(['Pro manuscript', 'Shared book']);
  });

  it('when `lore import` runs with a free key and no --project, then a bundle and a manuscript are each refused in one line naming the scope, and nothing is made', async () => {
    const { key, account } = await gw.createKey('free');
    const bundleFile = path.join(dir, 'book.json');
    const manuscriptFile = path.join(dir, 'book.md');
    await writeFile(bundleFile, JSON.stringify(bundle('CLI book')));
    await writeFile(manuscriptFile, manuscript.content);
    for (const file of [bundleFile, manuscriptFile]) {
      const result = await lore(['import', file, '--key', key], { DATABASE_URL: gw.databaseUrl });
      expectCleanFailure(result, /insufficient_scope.*projects:write/);
    }
    expect(await projectsOf(account)).toEqual([]);
  });

  it('when an MCP client holds a free key, then no tool makes a project: one that does not exist is not found', async () => {
    const { key, account } = await gw.createKey('free');
    const session = await connectMcp({ LORE_API_URL: gw.url, LORE_API_KEY: key, LORE_PROJECT_ID: 'prj_01jzzzzzzzzzzzzzzzzzzzzzzz' });
    try {
      expectToolError(await callTool(session, 'lore_author_remember', { entity: 'Mara Quell', type: 'character', fact: 'Mara keeps the lighthouse.' }), 'not_found', 404);
    } finally {
      await session.close();
    }
    expect(await projectsOf(account)).toEqual([]);
  });
});
