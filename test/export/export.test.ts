// Export of a project as a canon bundle, over GraphQL (exportProject) and REST (GET /projects/{id}/export): the round
// trip on a generated project with every feature in use, what the export holds after authoring, the timeline's beats,
// the file headers, the cost, and another account's project.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectProblem } from '../support/problem.ts';
import { generatedBundle } from './generated.ts';

let gw: TestGateway;
let fake: FakeLlm;
/** no rate limit or quota in the way of the many reads some tests make */
const roomy = { customQuota: 1_000_000, customRate: 1_000_000 };

beforeAll(async () => {
  fake = await startFakeLlm();
  gw = await startTestGateway({ LORE_ANTHROPIC_BASE_URL: fake.url });
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

const exportQuery = 'query ($projectId: ID!) { exportProject(projectId: $projectId) }';

async function exportOf(key: string, projectId: string): Promise<any> {
  const result = await gw.graphql(exportQuery, { projectId }, key);
  if (result.errors) throw new Error(`export failed: ${JSON.stringify(result.errors)}`);
  return result.data.exportProject;
}

/** A new empty project of a new account, named `name`: where an export is imported back. */
async function emptyProject(name: string) {
  const { key } = await gw.createKey('pro');
  const created = await gw.request('/projects', { method: 'POST', key, json: { name } });
  expect(created.status, created.text).toBe(201);
  return { key, projectId: created.body.id as string };
}

async function graphqlOk(key: string, query: string, variables: Record<string, unknown>) {
  const result = await gw.graphql(query, variables, key);
  if (result.errors) throw new Error(`${query}: ${JSON.stringify(result.errors)}`);
  return result.data;
}

describe('export round trip', () => {
  it('when a generated project with every feature in use is imported, then its export is that bundle', async () => {
    const { key } = await gw.createKey('pro');
    const bundle = generatedBundle();
    const { projectId } = await importBundle(gw, key, bundle);
    expect(await exportOf(key, projectId)).toEqual(bundle);
  });

  it('when an export is imported into an empty project and exported again, then the same bundle comes back, to the JSON text', async () => {
    const { key } = await gw.createKey('pro');
    const bundle = generatedBundle('Round trip');
    const first = await exportOf(key, (await importBundle(gw, key, bundle)).projectId);

    const target = await emptyProject('Round trip');
    const imported = await importBundle(gw, target.key, first, target.projectId);
    expect(imported.projectId).toBe(target.projectId);
    const second = await exportOf(target.key, target.projectId);
    expect(second).toEqual(first);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));

    // Importing the export into the project it came from changes nothing.
    const again = await importBundle(gw, target.key, second, target.projectId);
    expect(again.changed).toBe(false);
  });

  it('when the project is empty, then the export is the project alone, and it imports', async () => {
    const target = await emptyProject('Nothing yet');
    const exported = await exportOf(target.key, target.projectId);
    expect(exported).toEqual({ project: { name: 'Nothing yet' } });
    const other = await emptyProject('Nothing yet');
    expect((await importBundle(gw, other.key, exported, other.projectId)).projectId).toBe(other.projectId);
    expect(await exportOf(other.key, other.projectId)).toEqual(exported);
  });
});

/** Where a span holds, as the story-time definition says: from (inclusive) until (exclusive), by chapter ordinal. */
function spanHolds(span: { from?: string; until?: string }, ordinalOf: Map<string, number>, at: number | undefined) {
  if (at === undefined) return span.until === undefined;
  return (span.from === undefined || ordinalOf.get(span.from)! <= at) && (span.until === undefined || at < ordinalOf.get(span.until)!);
}

/** An exported entity's state at a chapter ordinal (undefined: after the last chapter), worked out from the bundle. */
function stateFromExport(entity: any, ordinalOf: Map<string, number>, at: number | undefined) {
  const state = { ...entity.state };
  const holding = (entity.stateChanges ?? []).filter((c: any) => spanHolds(c, ordinalOf, at));
  holding.sort((a: any, b: any) => (a.from ? ordinalOf.get(a.from)! : -1) - (b.from ? ordinalOf.get(b.from)! : -1));
  for (const change of holding) Object.assign(state, change.state);
  return state;
}

/** An exported entity's facts of one status that hold at a chapter ordinal, as recall lists them. */
function factsFromExport(entity: any, status: string, ordinalOf: Map<string, number>, at: number | undefined) {
  return (entity.facts ?? [])
    .map((f: any) => (typeof f === 'string' ? { text: f, status: entity.status } : f))
    .filter((f: any) => f.status === status && spanHolds(f, ordinalOf, at))
    .map((f: any) => ({ text: f.text, from: f.from ?? null, until: f.until ?? null }));
}

/** Recall, now and as of each chapter, against the same things worked out from the export alone. */
async function expectRecallToShow(key: string, projectId: string, exported: any) {
  const ordinalOf = new Map<string, number>((exported.chapters ?? []).map((c: any) => [c.id, c.ordinal]));
  const recallQuery = `query ($p: ID!, $asOf: String) { recall(projectId: $p, limit: 100, asOf: $asOf) {
    key canonicalName aliases type currentState approvalStatus confidence approvedFacts { text from until } suggestedFacts { text from until } } }`;
  for (const asOf of [undefined, ...ordinalOf.keys()]) {
    const at = asOf === undefined ? undefined : ordinalOf.get(asOf);
    const recalled = new Map((await graphqlOk(key, recallQuery, { p: projectId, asOf })).recall.map((e: any) => [e.key, e]));
    expect([...recalled.keys()].sort()).toEqual(exported.entities.map((e: any) => e.key));
    for (const entity of exported.entities) {
      const shown: any = recalled.get(entity.key);
      const where = `${entity.key} as of ${asOf ?? 'the end'}`;
      expect({ name: shown.canonicalName, aliases: shown.aliases, type: shown.type, status: shown.approvalStatus, confidence: shown.confidence ?? undefined }, where)
        .toEqual({ name: entity.name, aliases: entity.aliases ?? [], type: entity.type, status: entity.status, confidence: entity.confidence });
      expect(shown.currentState, where).toEqual(stateFromExport(entity, ordinalOf, at));
      expect(shown.approvedFacts, where).toEqual(factsFromExport(entity, 'approved', ordinalOf, at));
      expect(shown.suggestedFacts, where).toEqual(factsFromExport(entity, 'suggested', ordinalOf, at));
    }
  }
}

describe('what an export holds', () => {
  it('when a project is written only through the authoring mutations, then the export holds exactly its live canon, recall agrees, and it round-trips', async () => {
    const { key } = await gw.createKey('enterprise', roomy);
    const projectId = (await gw.request('/projects', { method: 'POST', key, json: { name: 'Written by hand', description: 'No bundle was harmed.' } })).body.id;
    const run = (query: string, variables: Record<string, unknown>) => graphqlOk(key, query, { p: projectId, ...variables });

    const putChapter = 'mutation ($p: ID!, $c: ID!, $input: PutChapterInput!) { putChapter(projectId: $p, chapterId: $c, input: $input) { created } }';
    await run(putChapter, { c: 'ch-01', input: { title: 'Low Tide', ordinal: 1, text: 'Mara Voss sailed the Heron past Gull Point.' } });
    await run(putChapter, { c: 'ch-02', input: { ordinal: 2, text: 'The Captain came ashore.' } });
    await run(putChapter, { c: 'ch-03', input: { title: 'Fog', ordinal: 3, text: '' } });
    await run(putChapter, { c: 'ch-04', input: { title: 'The Wreck', ordinal: 4, text: 'Mara sank with the Heron.' } });

    const createEntity = 'mutation ($p: ID!, $input: CreateEntityInput!) { createEntity(projectId: $p, input: $input) { id } }';
    const mara = (await run(createEntity, { input: {
      key: 'mara', type: 'character', name: 'Mara Voss', aliases: ['Mara', 'the Captain'], confidence: 0.8,
      state: { eyes: 'green', ring: 'brass' }, stateChanges: [{ from: 'ch-03', state: { status: 'dead' } }],
    } })).createEntity.id;
    const heron = (await run(createEntity, { input: { key: 'heron', type: 'object', name: 'the Heron', status: 'suggested' } })).createEntity.id;
    const point = (await run(createEntity, { input: { key: 'gull-point', type: 'location', name: 'Gull Point', state: { lit: false } } })).createEntity.id;
    const gone = (await run(createEntity, { input: { key: 'gone', type: 'event', name: 'The Storm That Was Not' } })).createEntity.id;

    const createFact = 'mutation ($p: ID!, $e: ID!, $input: CreateFactInput!) { createFact(projectId: $p, entityId: $e, input: $input) { id } }';
    await run(createFact, { e: mara, input: { text: 'Mara swims like a seal.' } });
    const captain = (await run(createFact, { e: mara, input: { text: 'Mara captains the Heron.', from: 'ch-01', until: 'ch-04' } })).createFact.id;
    const rumour = (await run(createFact, { e: mara, input: { text: 'Mara has a twin.', status: 'suggested' } })).createFact.id;
    await run(createFact, { e: heron, input: { text: 'The Heron is a lugger.' } });
    await run(createFact, { e: heron, input: { text: 'The Heron was stolen.', until: 'ch-02', status: 'suggested' } });
    await run(createFact, { e: gone, input: { text: 'The storm never came.' } });

    const updateFact = 'mutation ($p: ID!, $f: ID!, $input: UpdateFactInput!) { updateFact(projectId: $p, factId: $f, input: $input) { fact { id } } }';
    await run(updateFact, { f: captain, input: { text: 'Mara captains the Heron until it sinks.' } });
    await run('mutation ($p: ID!, $f: ID!) { retireFact(projectId: $p, factId: $f) { replaced { id } } }', { f: rumour });

    const createRelationship = 'mutation ($p: ID!, $input: CreateRelationshipInput!) { createRelationship(projectId: $p, input: $input) { id } }';
    await run(createRelationship, { input: { from: mara, to: heron, kind: 'captains', weight: 0.75 } });
    await run(createRelationship, { input: { from: point, to: mara, kind: 'haunts' } });
    await run(createRelationship, { input: { from: gone, to: mara, kind: 'threatens' } });

    const updateEntity = 'mutation ($p: ID!, $e: ID!, $input: UpdateEntityInput!) { updateEntity(projectId: $p, entityId: $e, input: $input) { id } }';
    await run(updateEntity, { e: mara, input: {
      state: { eyes: 'grey', ring: null }, stateChanges: [{ from: 'ch-04', state: { status: 'dead' } }, { from: 'ch-02', until: 'ch-04', state: { location: 'Gull Point', mood: 'grim' } }],
    } });
    await run('mutation ($p: ID!, $e: ID!) { deleteEntity(projectId: $p, entityId: $e) { id } }', { e: gone });

    const exported = await exportOf(key, projectId);
    expect(exported).toEqual({
      project: { name: 'Written by hand', description: 'No bundle was harmed.' },
      entities: [
        { key: 'gull-point', type: 'location', name: 'Gull Point', state: { lit: false }, status: 'approved' },
        {
          key: 'heron', type: 'object', name: 'the Heron', status: 'suggested',
          facts: [{ text: 'The Heron is a lugger.', status: 'approved' }, { text: 'The Heron was stolen.', until: 'ch-02', status: 'suggested' }],
        },
        {
          key: 'mara', type: 'character', name: 'Mara Voss', aliases: ['Mara', 'the Captain'], confidence: 0.8, status: 'approved',
          state: { eyes: 'grey' },
          stateChanges: [{ from: 'ch-02', until: 'ch-04', state: { location: 'Gull Point', mood: 'grim' } }, { from: 'ch-04', state: { status: 'dead' } }],
          facts: ['Mara swims like a seal.', { text: 'Mara captains the Heron until it sinks.', from: 'ch-01', until: 'ch-04', status: 'approved' }],
        },
      ],
      relationships: [
        { from: 'gull-point', to: 'mara', kind: 'haunts', weight: 1 },
        { from: 'mara', to: 'heron', kind: 'captains', weight: 0.75 },
      ],
      chapters: [
        { id: 'ch-01', title: 'Low Tide', ordinal: 1, text: 'Mara Voss sailed the Heron past Gull Point.' },
        { id: 'ch-02', ordinal: 2, text: 'The Captain came ashore.' },
        { id: 'ch-03', title: 'Fog', ordinal: 3 },
        { id: 'ch-04', title: 'The Wreck', ordinal: 4, text: 'Mara sank with the Heron.' },
      ],
    });
    await expectRecallToShow(key, projectId, exported);

    const target = await emptyProject('Written by hand');
    await importBundle(gw, target.key, exported, target.projectId);
    const again = await exportOf(target.key, target.projectId);
    expect(JSON.stringify(again)).toBe(JSON.stringify(exported));
    await expectRecallToShow(target.key, target.projectId, again);
  });

  it('when imported canon is changed through the authoring mutations, then the export is what recall shows at every chapter, without retired facts', async () => {
    const { key } = await gw.createKey('enterprise', roomy);
    const { projectId } = await importBundle(gw, key, generatedBundle('Authored'));
    const entities = await graphqlOk(key, 'query ($p: ID!) { recall(projectId: $p, limit: 100) { id key facts { id text } } }', { p: projectId });
    const mara = entities.recall.find((e: any) => e.key === 'character-0');
    const heron = entities.recall.find((e: any) => e.key === 'object-0');

    const create = 'mutation ($p: ID!, $e: ID!, $input: CreateFactInput!) { createFact(projectId: $p, entityId: $e, input: $input) { id } }';
    await graphqlOk(key, create, { p: projectId, e: mara.id, input: { text: 'Mara Voss learns to swim.', from: 'ch-02', until: 'ch-07', status: 'suggested' } });
    await graphqlOk(key, create, { p: projectId, e: heron.id, input: { text: 'The Heron flies a black flag.' } });
    const update = 'mutation ($p: ID!, $f: ID!, $input: UpdateFactInput!) { updateFact(projectId: $p, factId: $f, input: $input) { fact { id } replaced { id } } }';
    const replaced = mara.facts.find((f: any) => f.text === 'Mara Voss is part of the canon.');
    await graphqlOk(key, update, { p: projectId, f: replaced.id, input: { text: 'Mara Voss is the heart of the canon.', from: 'ch-03' } });
    const retired = (await graphqlOk(key, 'query ($p: ID!, $e: ID!) { entity(projectId: $p, entityId: $e) { facts { id text } } }', { p: projectId, e: heron.id }))
      .entity.facts.find((f: any) => f.text === 'the Heron was first named in the ledger.');
    await graphqlOk(key, 'mutation ($p: ID!, $f: ID!) { retireFact(projectId: $p, factId: $f) { replaced { id } } }', { p: projectId, f: retired.id });

    const exported = await exportOf(key, projectId);
    const exportedMara = exported.entities.find((e: any) => e.key === 'character-0');
    const exportedHeron = exported.entities.find((e: any) => e.key === 'object-0');
    const texts = (entity: any) => entity.facts.map((f: any) => (typeof f === 'string' ? f : f.text));
    expect(texts(exportedMara)).not.toContain('Mara Voss is part of the canon.');
    expect(exportedMara.facts).toContainEqual({ text: 'Mara Voss is the heart of the canon.', from: 'ch-03', status: 'approved' });
    expect(exportedMara.facts).toContainEqual({ text: 'Mara Voss learns to swim.', from: 'ch-02', until: 'ch-07', status: 'suggested' });
    expect(exportedHeron.facts).toContain('The Heron flies a black flag.');
    expect(texts(exportedHeron)).not.toContain('the Heron was first named in the ledger.');

    await expectRecallToShow(key, projectId, exported);
  });

  it("when the model wrote a chapter's beats, then the export carries them while they match the chapter's text, and not once it changed", async () => {
    const { key } = await gw.createKey('enterprise', roomy);
    const bundle = generatedBundle('Summarised');
    const { projectId } = await importBundle(gw, key, bundle);
    // ch-02 has no imported beats: the timeline asks the model for them.
    fake.script({ object: { beats: [{ summary: 'Ilse walks to the Saltworks.', entities: ['Ilse Brand', 'the Saltworks', 'nobody'] }] } });
    const timeline = await gw.request(`/projects/${projectId}/timeline?from=20&to=20`, { key, headers: { 'X-LLM-Provider': 'anthropic', 'X-LLM-Key': 'sk-ant-test' } });
    expect(timeline.status, timeline.text).toBe(200);
    expect(timeline.body.data[0].beats.map((b: any) => b.summary)).toEqual(['Ilse walks to the Saltworks.']);

    const exported = await exportOf(key, projectId);
    expect(exported.timeline.map((t: any) => t.chapter)).toEqual(['ch-01', 'ch-02', 'ch-03', 'ch-04b', 'ch-06', 'ch-08']);
    expect(exported.timeline[1]).toEqual({ chapter: 'ch-02', beats: [{ summary: 'Ilse walks to the Saltworks.', entities: ['character-1', 'location-1'] }] });

    // New text for ch-02: the model's beats are stale (the timeline would summarise it again), so they are not canon.
    const changed = structuredClone(bundle);
    changed.chapters.find((c: any) => c.id === 'ch-02').text = 'Ilse Brand burned the Saltworks.';
    await importBundle(gw, key, changed, projectId);
    const after = await exportOf(key, projectId);
    expect(after.timeline.map((t: any) => t.chapter)).toEqual(['ch-01', 'ch-03', 'ch-04b', 'ch-06', 'ch-08']);
    expect(after.chapters.find((c: any) => c.id === 'ch-02').text).toBe('Ilse Brand burned the Saltworks.');
  });
});

describe('GET /projects/{id}/export', () => {
  it('when read, then 200 with the bundle as JSON (nulls in state kept) and Content-Disposition naming a file after the project', async () => {
    const { key } = await gw.createKey('pro');
    const bundle = generatedBundle();
    const { projectId } = await importBundle(gw, key, bundle);
    const res = await gw.request(`/projects/${projectId}/export`, { key });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="the-glass-orchard-ete.lore.json"');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(res.body).toEqual(bundle);
    expect(res.body.entities[0].state.unknown).toBeNull();
    expect(res.text).toBe(JSON.stringify(await exportOf(key, projectId)));
  });

  it('when a project name has no letters or digits to spell a file name with, then the file is project.lore.json', async () => {
    const target = await emptyProject('— ✦ —');
    const res = await gw.request(`/projects/${target.projectId}/export`, { key: target.key });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="project.lore.json"');
    expect(res.body).toEqual({ project: { name: '— ✦ —' } });
  });

  it('when read, then it costs one call', async () => {
    const { key } = await gw.createKey('pro');
    const { projectId } = await importBundle(gw, key, generatedBundle());
    const before = (await gw.request('/usage', { key })).body.used;
    expect((await gw.request(`/projects/${projectId}/export`, { key })).status).toBe(200);
    expect((await gw.request('/usage', { key })).body.used).toBe(before + 1);
  });

  it("when the project is another account's, then 404 not_found exactly as for a missing one, on REST and GraphQL", async () => {
    const owner = await gw.createKey('pro');
    const { projectId } = await importBundle(gw, owner.key, generatedBundle());
    const { key } = await gw.createKey('pro');
    const missing = 'prj_01nosuchproject0000000000';
    const theirs = await gw.request(`/projects/${projectId}/export`, { key });
    const absent = await gw.request(`/projects/${missing}/export`, { key });
    expectProblem(theirs, 404, 'not_found');
    expectProblem(absent, 404, 'not_found');
    expect(theirs.headers.get('content-disposition')).toBeNull();
    expect(theirs.body.detail.replace(projectId, '<id>')).toBe(absent.body.detail.replace(missing, '<id>'));
    expect(Object.keys(theirs.body).sort()).toEqual(Object.keys(absent.body).sort());

    const viaGraphql = await gw.graphql(exportQuery, { projectId }, key);
    const missingViaGraphql = await gw.graphql(exportQuery, { projectId: missing }, key);
    expect(viaGraphql.errors?.map((e: any) => e.extensions.code)).toEqual(['not_found']);
    expect(viaGraphql.errors![0].message.replace(projectId, '<id>')).toBe(missingViaGraphql.errors![0].message.replace(missing, '<id>'));
    expect(viaGraphql.data?.exportProject ?? null).toBeNull();
  });

  it('when the project id is not an id, then 400 validation_error naming path.id', async () => {
    const { key } = await gw.createKey('pro');
    const res = await gw.request(`/projects/${encodeURIComponent('no such!')}/export`, { key });
    const problem = expectProblem(res, 400, 'validation_error');
    expect(problem.errors?.map((e) => e.path)).toEqual(['path.id']);
  });

  it('when the OpenAPI document is read, then the operation declares scope recall, cost 1, the bundle schema and Content-Disposition', async () => {
    const { body } = await gw.request('/openapi.json');
    const operation = body.paths['/projects/{id}/export'].get;
    expect(operation).toMatchObject({ operationId: 'exportProject', 'x-lore-scope': 'recall', 'x-lore-cost': 1 });
    expect(operation.responses['200'].headers['Content-Disposition']).toMatchObject({ schema: { type: 'string' } });
    expect(operation.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CanonBundle' });
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['400', '401', '402', '403', '404', '429']));
  });
});
