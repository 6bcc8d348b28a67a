// Chapters written one at a time over REST and GraphQL: a PUT creates or replaces (only that chapter's mentions are
// recorded again), a new ordinal reorders (the latest state follows), a DELETE takes the chapter's mentions and beats
// and is refused while live story time uses the chapter. The LLM provider (for the timeline's model beats) is the
// only thing replaced.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chapter, ChapterList, DeletedChapter, PutChapterResult } from '../../rest/schemas/chapters.ts';
import { Dependents, Fact } from '../../rest/schemas/facts.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.ts';
import { entityIdsByName, importBundle, startTestGateway, type ApiResponse, type TestGateway } from '../support/gateway.ts';
import { expectProblem } from '../support/problem.ts';

let gw: TestGateway;
let fake: FakeLlm;
let key: string;
let projectId: string;
let ids: Record<string, string>;

// Mara's location changes in ch-02 (at sea) and again in ch-03 (the harbour): the later start is the latest state.
function bundle() {
  const b = saltmarshBundle();
  b.chapters.push({ id: 'ch-03', title: 'Harbour', ordinal: 3, text: 'The Heron came home.\nMara Voss tied her up at the quay.' });
  const mara = b.entities.find((e: any) => e.key === 'mara');
  mara.stateChanges = [
    { from: 'ch-02', state: { location: 'at sea' } },
    { from: 'ch-03', state: { location: 'the harbour' } },
  ];
  return b;
}

beforeAll(async () => {
  fake = await startFakeLlm();
  gw = await startTestGateway({ LORE_ANTHROPIC_BASE_URL: fake.url });
  // Enough rate and quota for every request of this file in one minute.
  ({ key } = await gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 }));
  projectId = (await importBundle(gw, key, bundle())).projectId;
  ids = await entityIdsByName(gw, key, projectId);
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

const db = () => gw.gateway.runtime.services.prisma;
const put = (chapterId: string, json: unknown, as = key) => gw.request(`/projects/${projectId}/chapters/${chapterId}`, { method: 'PUT', key: as, json });
const del = (chapterId: string, as = key) => gw.request(`/projects/${projectId}/chapters/${chapterId}`, { method: 'DELETE', key: as });
const fieldsOf = (res: ApiResponse) => (res.body.errors as { path: string }[]).map((e) => e.path);
/** Every mention id of the project, by chapter id. */
async function mentionIdsByChapter(): Promise<Record<string, string[]>> {
  const rows = await db().mention.findMany({ where: { projectId }, select: { id: true, chapter: { select: { externalId: true } } }, orderBy: { id: 'asc' } });
  const out: Record<string, string[]> = {};
  for (const m of rows) (out[m.chapter.externalId] ??= []).push(m.id);
  return out;
}
const recallOf = async (q: string) => (await gw.request(`/projects/${projectId}/recall?q=${encodeURIComponent(q)}`, { key })).body.entities[0];
const mentionsOf = async (entityId: string) => (await gw.request(`/projects/${projectId}/recall/${entityId}/mentions?limit=100`, { key })).body.data as any[];

describe('putting a chapter', () => {
  it('when a new chapter is put, then 201 with its mentions recorded, and recall shows them at once; other chapters keep their mention ids', async () => {
    const before = await mentionIdsByChapter();
    expect((await recallOf('Keth')).lastMentions.map((m: any) => m.chapter)).not.toContain('ch-04');
    const res = await put('ch-04', { title: 'Ghosts', ordinal: 4, text: 'Keth walked the shore at night.\nMara Voss did not see him.\nKeth smiled.' });
    expect(res.status, res.text).toBe(201);
    expect(PutChapterResult.parse(res.body)).toEqual({ chapter: { id: 'ch-04', title: 'Ghosts', ordinal: 4 }, created: true, mentions_recorded: 3 });
    const keth = await recallOf('Keth');
    expect(keth.lastMentions[0]).toMatchObject({ chapter: 'ch-04', line: 3 });
    const after = await mentionIdsByChapter();
    for (const chapter of ['ch-01', 'ch-02', 'ch-03']) expect(after[chapter]).toEqual(before[chapter]);
    expect(after['ch-04']).toHaveLength(3);
  });

  it('when a chapter is replaced, then 200, only its mentions are recorded again, the title is kept when left out, and the same PUT again changes nothing', async () => {
    const before = await mentionIdsByChapter();
    const res = await put('ch-04', { ordinal: 4, text: 'Keth was gone.\nThe Heron rocked at anchor.' });
    expect(res.status, res.text).toBe(200);
    expect(PutChapterResult.parse(res.body)).toEqual({ chapter: { id: 'ch-04', title: 'Ghosts', ordinal: 4 }, created: false, mentions_recorded: 2 });
    const after = await mentionIdsByChapter();
    for (const chapter of ['ch-01', 'ch-02', 'ch-03']) expect(after[chapter]).toEqual(before[chapter]);
    expect(after['ch-04']).toHaveLength(2);
    expect(after['ch-04'].some((id) => before['ch-04'].includes(id))).toBe(false);
    expect((await mentionsOf(ids['Mara Voss'])).map((m) => m.chapter)).not.toContain('ch-04');
    expect((await mentionsOf(ids['the Heron'])).at(-1)).toMatchObject({ chapter: 'ch-04', line: 2 });

    const again = await put('ch-04', { ordinal: 4, text: 'Keth was gone.\nThe Heron rocked at anchor.' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ created: false, mentions_recorded: 0 });
    expect((await mentionIdsByChapter())['ch-04']).toEqual(after['ch-04']);
  });

  it('when a chapter moves in reading order, then the mentions follow it and the latest state is the one that now starts last', async () => {
    expect((await recallOf('Mara')).currentState.location).toBe('the harbour');
    // ch-03 (the harbour) moves before ch-02 (at sea): at sea now starts last.
    const res = await put('ch-03', { ordinal: 0, text: 'The Heron came home.\nMara Voss tied her up at the quay.' });
    expect(res.status, res.text).toBe(200);
    expect((await recallOf('Mara')).currentState.location).toBe('at sea');
    const order = (await mentionsOf(ids['Mara Voss'])).map((m) => m.chapter);
    expect(order.indexOf('ch-03')).toBeLessThan(order.indexOf('ch-02'));
    expect((await put('ch-03', { ordinal: 3, text: 'The Heron came home.\nMara Voss tied her up at the quay.' })).status).toBe(200);
    expect((await recallOf('Mara')).currentState.location).toBe('the harbour');
  });

  it("when a new ordinal would put a fact's until before its from, then 409 in_use naming the ordinal and nothing is written", async () => {
    const fact = Fact.parse(
      (await gw.request(`/projects/${projectId}/facts`, { method: 'POST', key, json: { entity_id: ids['Keth Voss'], text: 'Keth haunts the shore.', from: 'ch-02', until: 'ch-04' } })).body,
    );
    const res = await put('ch-04', { ordinal: 0, text: 'Keth was gone.' });
    expectProblem(res, 409, 'in_use');
    expect(fieldsOf(res)).toEqual(['body.ordinal']);
    expect(res.body.errors[0].message).toContain(fact.id);
    expect(await db().chapter.findFirstOrThrow({ where: { projectId, externalId: 'ch-04' } })).toMatchObject({ ordinal: 4, text: 'Keth was gone.\nThe Heron rocked at anchor.' });
    await gw.request(`/projects/${projectId}/facts/${fact.id}`, { method: 'DELETE', key });
  });

  it('when the body or the chapter id is bad, then 400 naming the field and nothing is written', async () => {
    const count = await db().chapter.count({ where: { projectId } });
    const cases: [string, Record<string, unknown>, string][] = [
      ['ch-05', { ordinal: -1, text: 'x' }, 'body.ordinal'],
      ['ch-05', { ordinal: 1.5, text: 'x' }, 'body.ordinal'],
      ['ch-05', { ordinal: 1_000_001, text: 'x' }, 'body.ordinal'],
      ['ch-05', { ordinal: 5 }, 'body.text'],
      ['ch-05', { ordinal: 5, text: 'a\u0000b' }, 'body.text'],
      ['ch-05', { ordinal: 5, text: 'x', title: 't'.repeat(301) }, 'body.title'],
      ['ch%2005', { ordinal: 5, text: 'x' }, 'path.chapterId'],
    ];
    for (const [chapterId, json, field] of cases) {
      const res = await put(chapterId, json);
      expectProblem(res, 400, 'validation_error');
      expect(fieldsOf(res), JSON.stringify(json)).toContain(field);
    }
    const gql = await gw.graphql(
      'mutation ($p: ID!) { putChapter(projectId: $p, chapterId: "bad id", input: { ordinal: 5, text: "x" }) { created } }',
      { p: projectId },
      key,
    );
    expect(gql.errors![0].extensions).toMatchObject({ code: 'validation_error', errors: [{ path: 'chapterId' }] });
    expect(await db().chapter.count({ where: { projectId } })).toBe(count);
  });

  it("when a chapter's text changes, then the timeline's model beats for it are made again", async () => {
    const headers = { 'X-LLM-Provider': 'anthropic', 'X-LLM-Key': 'sk-ant-test' };
    fake.requests.length = 0;
    fake.script({ object: { beats: [{ summary: 'The Heron rocks at anchor.', entities: ['the Heron'] }] } });
    const first = await gw.request(`/projects/${projectId}/timeline?from=4&to=4`, { key, headers });
    expect(first.body.data[0].beats.map((b: any) => b.summary)).toEqual(['The Heron rocks at anchor.']);
    await gw.request(`/projects/${projectId}/timeline?from=4&to=4`, { key, headers });
    expect(fake.requests).toHaveLength(1);

    expect((await put('ch-04', { ordinal: 4, text: 'The Heron sank at anchor.' })).status).toBe(200);
    fake.script({ object: { beats: [{ summary: 'The Heron sinks.', entities: ['the Heron'] }] } });
    const second = await gw.request(`/projects/${projectId}/timeline?from=4&to=4`, { key, headers });
    expect(second.body.data[0].beats.map((b: any) => b.summary)).toEqual(['The Heron sinks.']);
    expect(fake.requests).toHaveLength(2);
  });

  it('when chapters are put and deleted over GraphQL, then the same rules hold', async () => {
    const putResult = await gw.graphql(
      'mutation ($p: ID!, $input: PutChapterInput!) { putChapter(projectId: $p, chapterId: "ch-gql", input: $input) { chapter { id title ordinal } created mentionsRecorded } }',
      { p: projectId, input: { title: 'Aside', ordinal: 9, text: 'Mara Voss laughed.' } },
      key,
    );
    expect(putResult.errors).toBeUndefined();
    expect(putResult.data.putChapter).toEqual({ chapter: { id: 'ch-gql', title: 'Aside', ordinal: 9 }, created: true, mentionsRecorded: 1 });
    const deleted = await gw.graphql('mutation ($p: ID!) { deleteChapter(projectId: $p, chapterId: "ch-gql") { id deleted } }', { p: projectId }, key);
    expect(deleted.data.deleteChapter).toEqual({ id: 'ch-gql', deleted: true });
    const gone = await gw.graphql('mutation ($p: ID!) { deleteChapter(projectId: $p, chapterId: "ch-gql") { id } }', { p: projectId }, key);
    expect(gone.errors![0].extensions.code).toBe('not_found');
  });
});

describe('deleting a chapter', () => {
  it('when live facts or state values hold from or until it, then 409 in_use listing them; once they are gone, the chapter goes with its mentions and beats', async () => {
    const keth = ids['Keth Voss'];
    const fact = Fact.parse((await gw.request(`/projects/${projectId}/facts`, { method: 'POST', key, json: { entity_id: keth, text: 'Keth sleeps in the deep.', from: 'ch-02' } })).body);
    const refused = await del('ch-02');
    expectProblem(refused, 409, 'in_use');
    const listed = (refused.body.errors as { path: string; message: string }[]).map((e) => e.message).join('\n');
    expect(listed).toContain(fact.id);
    expect(listed).toContain('state value location');
    expect(fieldsOf(refused).every((p) => p === 'path.chapterId')).toBe(true);
    expect(await db().chapter.count({ where: { projectId, externalId: 'ch-02' } })).toBe(1);

    // The fact retired (history keeps it) and Mara's timed values replaced by a re-import without them.
    await gw.request(`/projects/${projectId}/facts/${fact.id}`, { method: 'DELETE', key });
    const b = bundle();
    b.entities.find((e: any) => e.key === 'mara').stateChanges = [];
    await importBundle(gw, key, b, projectId);
    const beatsBefore = Dependents.parse((await gw.request(`/projects/${projectId}/entities/${keth}/dependents`, { key })).body).beats;
    expect(beatsBefore.map((x) => x.chapter)).toContain('ch-02');

    const res = await del('ch-02');
    expect(res.status, res.text).toBe(200);
    expect(DeletedChapter.parse(res.body)).toEqual({ id: 'ch-02', deleted: true });
    expect((await mentionsOf(keth)).map((m) => m.chapter)).not.toContain('ch-02');
    const after = Dependents.parse((await gw.request(`/projects/${projectId}/entities/${keth}/dependents`, { key })).body);
    expect(after.beats.map((x) => x.chapter)).not.toContain('ch-02');
    expect(await db().mention.count({ where: { projectId, chapter: { externalId: 'ch-02' } } })).toBe(0);
    // The retired fact stays in history, its text kept, its reference to the gone chapter dropped.
    const history = (await gw.request(`/projects/${projectId}/entities/${keth}/history`, { key })).body.data as any[];
    expect(history.find((f) => f.id === fact.id)).toMatchObject({ text: 'Keth sleeps in the deep.' });
    expect(history.find((f) => f.id === fact.id).from).toBeUndefined();
    expectProblem(await del('ch-02'), 404, 'not_found');
  });

  it("when another account puts or deletes this project's chapters, then 404 not_found and nothing is written", async () => {
    const stranger = await gw.createKey('pro');
    const count = await db().chapter.count({ where: { projectId } });
    expectProblem(await put('ch-01', { ordinal: 1, text: 'Overwritten.' }, stranger.key), 404, 'not_found');
    expectProblem(await put('ch-new', { ordinal: 7, text: 'New.' }, stranger.key), 404, 'not_found');
    expectProblem(await del('ch-01', stranger.key), 404, 'not_found');
    const gql = await gw.graphql('mutation ($p: ID!) { deleteChapter(projectId: $p, chapterId: "ch-01") { id } }', { p: projectId }, stranger.key);
    expect(gql.errors![0].extensions.code).toBe('not_found');
    expect(await db().chapter.count({ where: { projectId } })).toBe(count);
    expect((await db().chapter.findFirstOrThrow({ where: { projectId, externalId: 'ch-01' } })).text).not.toBe('Overwritten.');
  });
});

describe('listing and reading chapters', () => {
  it('when the chapters are listed, then they come in reading order, a page at a time, without their text; a cursor that is not a chapter is 400', async () => {
    const { key: own } = await gw.createKey('pro');
    const { projectId: p } = await importBundle(gw, own, {
      project: { name: 'Order' },
      entities: [{ key: 'ann', type: 'character', name: 'Ann' }],
      chapters: [
        { id: 'epilogue', title: 'After', ordinal: 9, text: 'Ann left.' },
        { id: 'ch-1.a', title: 'One', ordinal: 1, text: 'Ann came.' },
        { id: 'prologue', title: 'Before', ordinal: 0, text: 'Nobody.' },
      ],
    });
    const first = await gw.request(`/projects/${p}/chapters?limit=2`, { key: own });
    expect(first.status, first.text).toBe(200);
    expect(ChapterList.parse(first.body)).toEqual({
      data: [{ id: 'prologue', title: 'Before', ordinal: 0 }, { id: 'ch-1.a', title: 'One', ordinal: 1 }],
      has_more: true,
      next_starting_after: 'ch-1.a',
    });
    const second = ChapterList.parse((await gw.request(`/projects/${p}/chapters?limit=2&starting_after=ch-1.a`, { key: own })).body);
    expect(second).toEqual({ data: [{ id: 'epilogue', title: 'After', ordinal: 9 }], has_more: false });
    expectProblem(await gw.request(`/projects/${p}/chapters?starting_after=ch-99`, { key: own }), 400, 'invalid_cursor');
    const gql = await gw.graphql('query ($p: ID!) { chapters(projectId: $p, limit: 1) { data { id ordinal } hasMore nextStartingAfter } }', { p }, own);
    expect(gql.data.chapters).toEqual({ data: [{ id: 'prologue', ordinal: 0 }], hasMore: true, nextStartingAfter: 'prologue' });
  });

  it('when a chapter is read, then it comes with its text; an unknown one is 404 naming it', async () => {
    const res = await gw.request(`/projects/${projectId}/chapters/ch-01`, { key });
    expect(res.status, res.text).toBe(200);
    const chapter = Chapter.parse(res.body);
    expect(chapter).toMatchObject({ id: 'ch-01', ordinal: 1 });
    expect(chapter.text).toBe((await db().chapter.findFirstOrThrow({ where: { projectId, externalId: 'ch-01' } })).text);
    const missing = expectProblem(await gw.request(`/projects/${projectId}/chapters/ch-404`, { key }), 404, 'not_found');
    expect(missing.detail).toContain('ch-404');
    const gql = await gw.graphql('query ($p: ID!) { chapter(projectId: $p, chapterId: "ch-01") { id text } }', { p: projectId }, key);
    expect(gql.data.chapter.text).toBe(chapter.text);
  });
});
