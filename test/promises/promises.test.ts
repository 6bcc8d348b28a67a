// The promise ledger through REST, GraphQL and MCP: setups and payoffs as of a chapter, age and risk, the brief's use
// of it, and the bundle round trip (import, export, import again).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectMcp, textOf, type McpSession } from '../mcp/harness.ts';
import { entityIdsByName, importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { harbourBundle } from '../brief/fixtures.ts';

let gw: TestGateway;
let key: string;
let projectId: string;
let ids: Record<string, string>;

beforeAll(async () => {
  gw = await startTestGateway();
  key = (await gw.createKey('pro')).key;
  projectId = (await importBundle(gw, key, harbourBundle())).projectId;
  ids = await entityIdsByName(gw, key, projectId);
});
afterAll(() => gw?.close());

const ledger = async (query = '', as = key, project = projectId) => gw.request(`/projects/${project}/promises${query}`, { key: as });
const line = (body: any, name: string) => body.promises.find((p: any) => p.name === name);

describe('GET /projects/{id}/promises', () => {
  it('when read after the last chapter, then each promise has its setup, payoff, involved entities, status and age', async () => {
    const res = await ledger();
    expect(res.status, res.text).toBe(200);
    expect(res.body.promises.map((p: any) => p.name)).toEqual(["Mara's oath", 'The Voss feud', "Ada's debt"]);
    expect(line(res.body, "Mara's oath")).toEqual({
      id: ids["Mara's oath"], name: "Mara's oath", approval: 'approved', status: 'open', set_up_in: 'ch-01', paid_off_in: null,
      involves: [{ id: ids['Mara Voss'], name: 'Mara Voss' }, { id: ids['the Heron'], name: 'the Heron' }],
      age: 3, at_risk: false, paid_before_set_up: false,
    });
    expect(line(res.body, "Ada's debt")).toMatchObject({ status: 'paid', set_up_in: 'ch-02', paid_off_in: 'ch-04', age: 2 });
    expect(line(res.body, 'The Voss feud')).toMatchObject({ status: 'dropped', at_risk: false });
  });

  it('when read as of ch-03, then the debt paid off in ch-04 is still open, and as of ch-01 it is not set up yet', async () => {
    const at3 = (await ledger('?as_of=ch-03')).body;
    expect(line(at3, "Ada's debt")).toMatchObject({ status: 'open', paid_off_in: null, age: 1 });
    expect(line(at3, "Mara's oath")).toMatchObject({ age: 2 });
    const at1 = (await ledger('?as_of=ch-01')).body;
    expect(at1.promises.map((p: any) => p.name)).toEqual(["Mara's oath", 'The Voss feud']);
    expect(line(at1, "Mara's oath").age).toBe(0);
  });

  it('when at_risk_after is 2, then an open promise older than 2 chapters is at risk, a paid or dropped one never', async () => {
    const { body } = await ledger('?at_risk_after=2');
    expect(body.promises.filter((p: any) => p.at_risk).map((p: any) => p.name)).toEqual(["Mara's oath"]);
  });

  it('when as_of or at_risk_after is wrong, then a 400 names it', async () => {
    const bad = await ledger('?as_of=ch-99');
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: any) => e.path)).toContain('query.as_of');
    const zero = await ledger('?at_risk_after=0');
    expect(zero.status).toBe(400);
    expect(zero.body.errors.map((e: any) => e.path)).toContain('query.at_risk_after');
  });

  it("when another account reads the ledger, then 404 as for a missing project", async () => {
    const other = (await gw.createKey('pro')).key;
    const res = await ledger('', other);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });
});

describe('GraphQL promises', () => {
  it('when promises is queried as of ch-03, then the same ledger', async () => {
    const result = await gw.graphql('query ($p: ID!) { promises(projectId: $p, asOf: "ch-03", atRiskAfter: 1) { name status setUpIn paidOffIn age atRisk involves { name } } }', { p: projectId }, key);
    expect(result.errors).toBeUndefined();
    expect(result.data.promises.find((p: any) => p.name === "Ada's debt")).toEqual({
      name: "Ada's debt", status: 'open', setUpIn: 'ch-02', paidOffIn: null, age: 1, atRisk: false, involves: [{ name: 'Ada Quill' }],
    });
    expect(result.data.promises.find((p: any) => p.name === "Mara's oath").atRisk).toBe(true);
  });
});

describe('the brief and the ledger', () => {
  it('when a scene names Ada, then her debt is in the brief while it is open, with its setup, and not once it is paid off', async () => {
    const at = async (chapter: string) => (await gw.request(`/projects/${projectId}/brief`, { method: 'POST', key, json: { chapter, text: 'Ada lit the lamps.' } })).body.content.promises;
    expect(await at('ch-03')).toEqual([{ id: ids["Ada's debt"], name: "Ada's debt", set_up_in: 'ch-02', age: 1, facts: [{ id: expect.any(String), text: 'Ada owes the smugglers a boat.' }] }]);
    expect(await at('ch-04')).toEqual([]);
    expect(await at('ch-01')).toEqual([]);
  });

  it('when a scene names Mara, then the dropped feud is not in the brief', async () => {
    const { body } = await gw.request(`/projects/${projectId}/brief`, { method: 'POST', key, json: { chapter: 'ch-03', text: 'Mara waited.', budget: 5000 } });
    expect(body.content.promises.map((p: any) => p.name)).toEqual(["Mara's oath"]);
  });
});

describe('bundles', () => {
  it('when the project is exported and imported again as a new project, then the ledger lines come back the same', async () => {
    const exported = await gw.request(`/projects/${projectId}/export`, { key });
    expect(exported.status, exported.text).toBe(200);
    const oath = exported.body.entities.find((e: any) => e.key === 'oath');
    expect(oath.promise).toEqual({ set_up_in: 'ch-01', involves: ['heron', 'mara'], status: 'open' });
    expect(exported.body.entities.find((e: any) => e.key === 'debt').promise).toEqual({ set_up_in: 'ch-02', paid_off_in: 'ch-04', involves: ['ada'], status: 'paid' });
    const copy = (await importBundle(gw, key, { ...exported.body, project: { name: 'The Harbour Brief, again' } })).projectId;
    const strip = (body: any) => body.promises.map(({ id: _, involves, ...p }: any) => ({ ...p, involves: involves.map((e: any) => e.name).sort() }));
    expect(strip((await ledger('?as_of=ch-03', key, copy)).body)).toEqual(strip((await ledger('?as_of=ch-03')).body));
    const again = await gw.request(`/projects/${copy}/export`, { key });
    expect(again.body.entities).toEqual(exported.body.entities);
  });

  it('when a bundle gives a ledger line to a character, or names an unknown key or chapter in one, then invalid_bundle naming the field', async () => {
    const bad = async (entity: unknown) =>
      gw.graphql('mutation ($b: JSON!) { importBundle(bundle: $b) { projectId } }', { b: { project: { name: 'Bad ledger' }, entities: [entity], chapters: [{ id: 'ch-01', ordinal: 1 }] } }, key);
    const onCharacter = await bad({ key: 'x', type: 'character', name: 'X', promise: { set_up_in: 'ch-01' } });
    expect(onCharacter.errors![0].extensions.code).toBe('invalid_bundle');
    expect(JSON.stringify(onCharacter.errors![0].extensions)).toContain('entities.0.promise');
    const unknown = await bad({ key: 'p', type: 'promise', name: 'P', promise: { set_up_in: 'ch-09', involves: ['nobody'] } });
    expect(unknown.errors![0].extensions.code).toBe('invalid_bundle');
    expect(JSON.stringify(unknown.errors![0].extensions)).toContain('entities.0.promise.set_up_in');
    expect(JSON.stringify(unknown.errors![0].extensions)).toContain('entities.0.promise.involves.0');
  });
});

describe('lore_author_promises over MCP', () => {
  let session: McpSession;
  beforeAll(async () => {
    session = await connectMcp({ LORE_API_URL: gw.url, LORE_API_KEY: key, LORE_PROJECT_ID: projectId });
  });
  afterAll(() => session?.close());

  it('when the assistant reads the ledger as of ch-03 with a threshold of 1, then it sees what is owed and what is at risk', async () => {
    const result = await callTool(session, 'lore_author_promises', { as_of: 'ch-03', at_risk_after: 1 });
    expect(result.isError, textOf(result)).toBeFalsy();
    const promises = (result.structuredContent as any).promises;
    expect(promises.find((p: any) => p.name === "Mara's oath")).toMatchObject({ status: 'open', setUpIn: 'ch-01', age: 2, atRisk: true });
    expect(textOf(result)).toContain(`- Mara's oath (${ids["Mara's oath"]}): open, AT RISK, set up in ch-01 (2 chapters ago); involves`);
  });
});
