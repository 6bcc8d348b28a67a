// Who knows what, when, through REST, GraphQL and MCP, and the bundle round trip of known_by and secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectMcp, textOf, type McpSession } from '../mcp/harness.ts';
import { entityIdsByName, importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { secretsBundle } from './fixtures.ts';

let gw: TestGateway;
let key: string;
let projectId: string;
let ids: Record<string, string>;

beforeAll(async () => {
  gw = await startTestGateway();
  key = (await gw.createKey('pro')).key;
  projectId = (await importBundle(gw, key, secretsBundle())).projectId;
  ids = await entityIdsByName(gw, key, projectId);
});
afterAll(() => gw?.close());

const knowledge = async (entity: string, query = '', as = key, project = projectId) => gw.request(`/projects/${project}/entities/${entity}/knowledge${query}`, { key: as });
const texts = (list: any[]) => list.map((f) => f.text);

describe('GET /projects/{id}/entities/{entityId}/knowledge', () => {
  it('when Ada is read before the line she reads the letter, then the spy is something the reader knows and she does not yet', async () => {
    const res = await knowledge(ids['Ada Quill'], '?as_of=ch-02&line=1');
    expect(res.status, res.text).toBe(200);
    expect(res.body.entity).toEqual({ id: ids['Ada Quill'], name: 'Ada Quill' });
    expect(res.body).toMatchObject({ as_of: 'ch-02', line: 1, knows: [] });
    expect(texts(res.body.unaware)).toEqual(expect.arrayContaining(['Jon is a spy for the Crown.', 'Jon will betray the smugglers.', 'Jon was born in Calais.']));
    const spy = res.body.unaware.find((f: any) => f.text === 'Jon is a spy for the Crown.');
    expect(spy).toEqual({ id: expect.stringMatching(/^fct_/), text: 'Jon is a spy for the Crown.', about: { id: ids['Jon Rook'], name: 'Jon Rook' }, secret: true, learned: { chapter: 'ch-02', line: 2 } });
  });

  it('when Ada is read after that line, or as of a later chapter, then she knows it', async () => {
    for (const query of ['?as_of=ch-02&line=3', '?as_of=ch-02', '?as_of=ch-03', '']) {
      const res = await knowledge(ids['Ada Quill'], query);
      expect(texts(res.body.knows), query).toEqual(['Jon is a spy for the Crown.']);
      expect(texts(res.body.unaware), query).not.toContain('Jon is a spy for the Crown.');
    }
  });

  it('when Mara is read as of ch-03 and ch-04, then she learns the secret in ch-04; nobody knows the betrayal; Jon knows his birthplace from the start', async () => {
    expect(texts((await knowledge(ids['Mara Voss'], '?as_of=ch-03')).body.unaware)).toContain('Jon is a spy for the Crown.');
    expect(texts((await knowledge(ids['Mara Voss'], '?as_of=ch-04')).body.knows)).toEqual(['Jon is a spy for the Crown.']);
    const jon = (await knowledge(ids['Jon Rook'], '?as_of=ch-01')).body;
    expect(jon.knows).toEqual([expect.objectContaining({ text: 'Jon was born in Calais.', secret: false, learned: { chapter: null, line: null } })]);
    expect(texts(jon.unaware)).toEqual(expect.arrayContaining(['Jon will betray the smugglers.', 'Jon is a spy for the Crown.']));
    const betrayal = jon.unaware.find((f: any) => f.text === 'Jon will betray the smugglers.');
    expect(betrayal.learned).toBeNull();
  });

  it('when the chapter is unknown, then a 400 names the field; a line without as_of is not used', async () => {
    const bad = await knowledge(ids['Ada Quill'], '?as_of=ch-99');
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: any) => e.path)).toContain('query.as_of');
    const lineAlone = await knowledge(ids['Ada Quill'], '?line=2');
    expect(lineAlone.status).toBe(200);
    expect(lineAlone.body).toEqual((await knowledge(ids['Ada Quill'], '')).body);
  });

  it('when another account asks, or about an entity not in the project, then 404', async () => {
    const other = (await gw.createKey('pro')).key;
    expect((await knowledge(ids['Ada Quill'], '', other)).status).toBe(404);
    expect((await knowledge('ent_missing', '')).status).toBe(404);
  });
});

describe('GraphQL knowledge', () => {
  it('when knowledge is queried at ch-02 line 1 and line 2, then the line she reads it on is where she learns it', async () => {
    const query = 'query ($p: ID!, $e: ID!, $l: Int) { knowledge(projectId: $p, entityId: $e, asOf: "ch-02", line: $l) { asOf line knows { text } unaware { text secret learned { chapter line } } } }';
    const before = await gw.graphql(query, { p: projectId, e: ids['Ada Quill'], l: 2 }, key);
    expect(before.errors).toBeUndefined();
    expect(before.data.knowledge.knows).toEqual([]);
    const after = await gw.graphql(query, { p: projectId, e: ids['Ada Quill'], l: 3 }, key);
    expect(after.data.knowledge).toMatchObject({ asOf: 'ch-02', line: 3, knows: [{ text: 'Jon is a spy for the Crown.' }] });
  });
});

describe('recall and the brief', () => {
  it('when recall is asked as of ch-03, then Mara says what she does not know yet and Ada what she knows; without as_of, no knowledge', async () => {
    const res = await gw.request(`/projects/${projectId}/recall?as_of=ch-03`, { key });
    expect(res.status, res.text).toBe(200);
    const byName = (name: string) => res.body.entities.find((e: any) => e.canonicalName === name);
    expect(texts(byName('Mara Voss').knowledge.unaware)).toContain('Jon is a spy for the Crown.');
    expect(byName('Mara Voss').knowledge.knows).toEqual([]);
    expect(texts(byName('Ada Quill').knowledge.knows)).toEqual(['Jon is a spy for the Crown.']);
    expect(byName("Ada's debt").knowledge).toBeUndefined();
    const latest = await gw.request(`/projects/${projectId}/recall`, { key });
    expect(latest.body.entities.every((e: any) => e.knowledge === undefined)).toBe(true);
  });

  it('when a scene names Mara and Ada as of ch-03, then the brief says who knows what, in JSON and Markdown', async () => {
    const brief = async (format: string) =>
      (await gw.request(`/projects/${projectId}/brief`, { method: 'POST', key, json: { chapter: 'ch-03', text: 'Mara and Ada waited for the tide.', format } })).body;
    const json = await brief('json');
    const mara = json.content.knowledge.find((k: any) => k.id === ids['Mara Voss']);
    expect(mara).toEqual({ id: ids['Mara Voss'], name: 'Mara Voss', knows: [], unaware: expect.arrayContaining([{ id: expect.any(String), text: 'Jon is a spy for the Crown.' }]) });
    expect(texts(json.content.knowledge.find((k: any) => k.id === ids['Ada Quill']).knows)).toEqual(['Jon is a spy for the Crown.']);
    expect(json.omitted.knowledge).toBe(0);
    const markdown = (await brief('markdown')).markdown;
    expect(markdown).toContain('## Who knows what');
    expect(markdown).toMatch(/- Mara Voss `ent_[^`]+`\n  - does not know yet:\n    - /);
  });

  it('when the budget is too small for the knowledge, then it is counted as omitted and the budget holds', async () => {
    const { body } = await gw.request(`/projects/${projectId}/brief`, { method: 'POST', key, json: { chapter: 'ch-03', text: 'Mara and Ada waited for the tide.', budget: 120 } });
    expect(body.tokens).toBeLessThanOrEqual(120);
    expect(body.omitted.knowledge).toBeGreaterThan(0);
  });
});

describe('authoring: REST facts and GraphQL createFact', () => {
  it('when a secret fact is created known by Ada from ch-03 line 1, then the fact says so and Ada knows it only after that line', async () => {
    const res = await gw.request(`/projects/${projectId}/facts`, {
      method: 'POST', key,
      json: { entity_id: ids['Mara Voss'], text: 'Mara sank the revenue cutter.', secret: true, known_by: [{ entity_id: ids['Ada Quill'], from: 'ch-03', line: 1 }] },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ secret: true, known_by: [{ entity_id: ids['Ada Quill'], from: 'ch-03', line: 1 }] });
    expect(texts((await knowledge(ids['Ada Quill'], '?as_of=ch-03&line=1')).body.knows)).not.toContain('Mara sank the revenue cutter.');
    expect(texts((await knowledge(ids['Ada Quill'], '?as_of=ch-03&line=2')).body.knows)).toContain('Mara sank the revenue cutter.');

    // A retcon of the text keeps who knows it; one giving known_by replaces it.
    const reworded = await gw.request(`/projects/${projectId}/facts/${res.body.id}`, { method: 'PATCH', key, json: { text: 'Mara sank the revenue cutter off Gull Point.' } });
    expect(reworded.status, reworded.text).toBe(200);
    expect(reworded.body.fact).toMatchObject({ secret: true, known_by: [{ entity_id: ids['Ada Quill'], from: 'ch-03', line: 1 }] });
    const told = await gw.request(`/projects/${projectId}/facts/${reworded.body.fact.id}`, { method: 'PATCH', key, json: { known_by: [{ entity_id: ids['Jon Rook'] }] } });
    expect(told.status, told.text).toBe(200);
    expect(told.body.fact.known_by).toEqual([{ entity_id: ids['Jon Rook'] }]);
    expect(texts((await knowledge(ids['Jon Rook'], '?as_of=ch-01')).body.knows)).toContain('Mara sank the revenue cutter off Gull Point.');
    expect(texts((await knowledge(ids['Ada Quill'], '')).body.knows)).not.toContain('Mara sank the revenue cutter off Gull Point.');
  });

  it('when known_by names an entity of no project, then a 400 and nothing is written', async () => {
    const unknown = await gw.request(`/projects/${projectId}/facts`, { method: 'POST', key, json: { entity_id: ids['Mara Voss'], text: 'Mara fears the sea.', known_by: [{ entity_id: 'ent_nobody' }] } });
    expect(unknown.status, unknown.text).toBe(400);
    const recalled = await gw.request(`/projects/${projectId}/recall?q=Mara`, { key });
    expect(recalled.body.entities[0].facts.map((f: any) => f.text)).not.toContain('Mara fears the sea.');
  });

  it('when a knower gives a line without from, then the line is not used: known from the start', async () => {
    const res = await gw.request(`/projects/${projectId}/facts`, { method: 'POST', key, json: { entity_id: ids['Mara Voss'], text: 'Mara hums at the tiller.', known_by: [{ entity_id: ids['Ada Quill'], line: 2 }] } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.known_by).toEqual([{ entity_id: ids['Ada Quill'] }]);
  });

  it('when GraphQL createFact gives knownBy, then the fact answers secret and knownBy', async () => {
    const result = await gw.graphql(
      'mutation ($p: ID!, $e: ID!, $k: ID!) { createFact(projectId: $p, entityId: $e, input: { text: "Ada hid the letter.", knownBy: [{ entityId: $k, from: "ch-02" }] }) { secret knownBy { entityId from line } } }',
      { p: projectId, e: ids['Ada Quill'], k: ids['Ada Quill'] },
      key,
    );
    expect(result.errors).toBeUndefined();
    expect(result.data.createFact).toEqual({ secret: false, knownBy: [{ entityId: ids['Ada Quill'], from: 'ch-02', line: null }] });
  });
});

describe('bundles', () => {
  it('when the project is exported and imported again, then known_by and secret come back the same, to the byte', async () => {
    const exported = await gw.request(`/projects/${projectId}/export`, { key });
    expect(exported.status, exported.text).toBe(200);
    const jon = exported.body.entities.find((e: any) => e.key === 'jon');
    expect(jon.facts).toEqual([
      'Jon is a ferryman.',
      { text: 'Jon is a spy for the Crown.', status: 'approved', known_by: [{ entity: 'ada', from: 'ch-02', line: 2 }, { entity: 'mara', from: 'ch-04' }], secret: true },
      { text: 'Jon was born in Calais.', status: 'approved', known_by: [{ entity: 'jon' }] },
      { text: 'Jon will betray the smugglers.', status: 'approved', secret: true },
    ]);
    const copy = (await importBundle(gw, key, { ...exported.body, project: { name: 'The Spy at the Inn, again' } })).projectId;
    const again = await gw.request(`/projects/${copy}/export`, { key });
    expect(again.body.entities).toEqual(exported.body.entities);
    const copyIds = await entityIdsByName(gw, key, copy);
    expect(texts((await knowledge(copyIds['Ada Quill'], '?as_of=ch-02&line=3', key, copy)).body.knows)).toContain('Jon is a spy for the Crown.');
  });

  it('when a bundle is imported again with the secret now known by Mara from ch-03, then her knowledge follows; a fact without known_by keeps its own', async () => {
    const bundle = secretsBundle('The Spy at the Inn, relearned');
    const copy = (await importBundle(gw, key, bundle)).projectId;
    const copyIds = await entityIdsByName(gw, key, copy);
    const jon = bundle.entities.find((e: any) => e.key === 'jon');
    jon.facts[1] = { text: 'Jon is a spy for the Crown.', secret: true, known_by: [{ entity: 'mara', from: 'ch-03' }] };
    jon.facts[2] = 'Jon was born in Calais.';
    await importBundle(gw, key, bundle);
    expect(texts((await knowledge(copyIds['Mara Voss'], '?as_of=ch-03', key, copy)).body.knows)).toEqual(['Jon is a spy for the Crown.']);
    expect(texts((await knowledge(copyIds['Ada Quill'], '', key, copy)).body.knows)).toEqual([]);
    expect(texts((await knowledge(copyIds['Jon Rook'], '', key, copy)).body.knows)).toEqual(['Jon was born in Calais.']);
  });

  it('when known_by names an unknown entity or chapter, or a line without from, then invalid_bundle naming the field', async () => {
    const bad = async (fact: unknown) =>
      gw.graphql('mutation ($b: JSON!) { importBundle(bundle: $b) { projectId } }', {
        b: { project: { name: 'Bad knowers' }, entities: [{ key: 'x', type: 'character', name: 'X', facts: [fact] }], chapters: [{ id: 'ch-01', ordinal: 1 }] },
      }, key);
    const unknown = await bad({ text: 'X is a spy.', known_by: [{ entity: 'nobody', from: 'ch-09' }] });
    expect(unknown.errors![0].extensions.code).toBe('invalid_bundle');
    expect(JSON.stringify(unknown.errors![0].extensions)).toContain('entities.0.facts.0.known_by.0.entity');
    expect(JSON.stringify(unknown.errors![0].extensions)).toContain('entities.0.facts.0.known_by.0.from');
    const lineAlone = await bad({ text: 'X is a spy.', known_by: [{ entity: 'x', line: 3 }] });
    expect(lineAlone.errors![0].extensions.code).toBe('invalid_bundle');
    expect(JSON.stringify(lineAlone.errors![0].extensions)).toContain('entities.0.facts.0.known_by.0.from');
  });
});

describe('lore_author_knowledge over MCP', () => {
  let session: McpSession;
  beforeAll(async () => {
    session = await connectMcp({ LORE_API_URL: gw.url, LORE_API_KEY: key, LORE_PROJECT_ID: projectId });
  });
  afterAll(() => session?.close());

  it('when the assistant asks what Mara knows as of ch-03, then it is told the secret she does not know yet and where she learns it', async () => {
    const result = await callTool(session, 'lore_author_knowledge', { entity_id: ids['Mara Voss'], as_of: 'ch-03' });
    expect(result.isError, textOf(result)).toBeFalsy();
    const content = result.structuredContent as any;
    expect(content.knows).toEqual([]);
    expect(content.unaware.find((f: any) => f.text === 'Jon is a spy for the Crown.').learned).toEqual({ chapter: 'ch-04' });
    expect(textOf(result)).toContain('Does not know yet (the reader does):');
    expect(textOf(result)).toContain('- Jon is a spy for the Crown. (about Jon Rook;');
    expect(textOf(result)).toContain('learns it in ch-04');
  });
});
