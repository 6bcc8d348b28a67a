// importManuscript and extractCanon over /graphql, as a dashboard or an editor plugin sends them: the manuscript's
// files in the variables, the writer's LLM in the BYOK headers (a loopback provider speaking OpenAI's wire format).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { docxBook, markdownBook } from './fixtures.ts';
import { exported, recallOne } from './support.ts';

let gw: TestGateway;
let fake: FakeLlm;
let key: string;
let stranger: string;
const byok = { 'X-LLM-Provider': 'openai', 'X-LLM-Key': 'sk-test-provider-key-0123456789', 'X-LLM-Model': 'gpt-test' };

beforeAll(async () => {
  fake = await startFakeLlm();
  gw = await startTestGateway({ LORE_OPENAI_BASE_URL: fake.url });
  ({ key } = await gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 }));
  ({ key: stranger } = await gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 }));
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.maxInFlight = 0;
});

async function gql(query: string, variables: Record<string, unknown>, options: { key?: string; headers?: Record<string, string> } = {}) {
  const res = await gw.request(`${gw.url}/graphql`, { method: 'POST', key: options.key ?? key, headers: options.headers, json: { query, variables } });
  return res.body as { data?: any; errors?: { message: string; extensions: { code: string; errors?: { path: string; message: string }[] } }[] };
}

const importManuscript = `mutation ($projectId: ID, $name: String, $format: ManuscriptFormat!, $files: [ManuscriptFileInput!]!, $options: ManuscriptOptionsInput, $sync: Boolean, $idempotencyKey: String) {
  importManuscript(projectId: $projectId, name: $name, format: $format, files: $files, options: $options, sync: $sync, idempotencyKey: $idempotencyKey) {
    projectId projectCreated changed chapters { id title ordinal file change } unchangedChapters chapterCount entityCount
    counts { importer { chaptersCreated chaptersUpdated mentionsRecorded entitiesCreated } chaptersRemoved } skipped { file reason }
  }
}`;

const extractCanon = `mutation ($projectId: ID!, $chapters: [String!], $startingAfter: String, $limit: Int) {
  extractCanon(projectId: $projectId, chapters: $chapters, startingAfter: $startingAfter, limit: $limit) {
    projectId chapters { chapter title ordinal status entitiesProposed factsProposed entitiesMatched dropped candidateIds }
    candidateIds entitiesProposed factsProposed dropped remainingChapters hasMore nextStartingAfter
  }
}`;

const candidatesQuery = `query ($projectId: ID!) { candidates(projectId: $projectId, status: pending, limit: 100) { data { id kind status entityName facts { text status } content source } } }`;

const md = (text: string, path = 'book.md') => [{ path, content: text }];

describe('importManuscript', () => {
  it('when sections are reordered, retitled (keeping their ids) and synced, then each change is named and only changed chapters are written', async () => {
    const chapters = [
      { title: 'Low Tide', id: 'ch-1', text: 'Mara stood on the quay.' },
      { title: 'High Water', id: 'ch-2', text: 'Keth came home.' },
      { title: 'Storm', id: 'ch-3', text: 'The storm broke.' },
    ];
    const first = await gql(importManuscript, { name: 'Reorder', format: 'markdown', files: md(markdownBook(chapters)) });
    expect(first.errors).toBeUndefined();
    const { projectId } = first.data.importManuscript;
    expect(first.data.importManuscript.chapters.map((c: any) => `${c.id}:${c.change}:${c.ordinal}`)).toEqual(['ch-1:added:1', 'ch-2:added:2', 'ch-3:added:3']);

    const edited = [{ ...chapters[1] }, { ...chapters[0], title: 'Low Tide at Dusk' }];
    const second = await gql(importManuscript, { projectId, format: 'markdown', files: md(markdownBook(edited)), sync: true });
    expect(second.errors).toBeUndefined();
    const result = second.data.importManuscript;
    expect(result.chapters.map((c: any) => `${c.id}:${c.change}`)).toEqual(['ch-2:moved', 'ch-1:moved', 'ch-3:removed']);
    expect(result.counts).toMatchObject({ importer: { chaptersCreated: 0, chaptersUpdated: 2 }, chaptersRemoved: 1 });
    expect((await exported(gw, key, projectId)).chapters.map((c) => [c.id, c.title, c.ordinal])).toEqual([['ch-2', 'High Water', 1], ['ch-1', 'Low Tide at Dusk', 2]]);

    const retitled = await gql(importManuscript, { projectId, format: 'markdown', files: md(markdownBook([edited[0], { ...edited[1], title: 'Dusk' }])) });
    expect(retitled.data.importManuscript.chapters.map((c: any) => `${c.id}:${c.change}`)).toEqual(['ch-1:retitled']);
  });

  it('when headingLevel is 1, then a Markdown file with one title is one chapter; by default its level-2 headings make the chapters', async () => {
    const text = markdownBook([{ title: 'One', text: 'A.' }, { title: 'Two', text: 'B.' }], 'Whole Book');
    const cut = await gql(importManuscript, { name: 'Levels default', format: 'markdown', files: md(text) });
    expect(cut.data.importManuscript.chapterCount).toBe(2);
    const whole = await gql(importManuscript, { name: 'Levels one', format: 'markdown', files: md(text), options: { headingLevel: 1 } });
    expect(whole.data.importManuscript.chapters).toEqual([expect.objectContaining({ id: 'whole-book', title: 'Whole Book', change: 'added' })]);
  });

  it('when a .docx is sent as base64, then it is read like a file on disk', async () => {
    const content = (await docxBook([{ title: 'The Wreck', text: 'Mara dove.' }])).toString('base64');
    const res = await gql(importManuscript, { name: 'Docx over GraphQL', format: 'docx', files: [{ path: 'novel.docx', content, encoding: 'base64' }] });
    expect(res.errors).toBeUndefined();
    expect(res.data.importManuscript.chapters).toEqual([{ id: 'the-wreck', title: 'The Wreck', ordinal: 1, file: 'novel.docx:1', change: 'added' }]);
  });

  it('when a vault names its own chapters folder, tags a chapter and orders chapters by number, then those are the chapters, in that order', async () => {
    const files = [
      { path: '.obsidian/app.json', content: '{}' },
      { path: 'Manuscript/b.md', content: '---\norder: 1\n---\nFirst by number.' },
      { path: 'Manuscript/a.md', content: '---\norder: 2\n---\nSecond by number.' },
      { path: 'Drafts/epilogue.md', content: '---\ntags: [chapter]\ntitle: Epilogue\n---\nLast: no number.' },
      { path: 'Chapters/not-here.md', content: 'Not a chapter with this folder option.' },
    ];
    const res = await gql(importManuscript, { name: 'Vault options', format: 'obsidian', files, options: { chaptersFolder: 'Manuscript' } });
    expect(res.errors).toBeUndefined();
    expect(res.data.importManuscript.chapters.map((c: any) => [c.id, c.title])).toEqual([['manuscript.b', 'b'], ['manuscript.a', 'a'], ['drafts.epilogue', 'Epilogue']]);
    expect(res.data.importManuscript.skipped.map((s: any) => s.file)).toEqual(['.obsidian/app.json', 'Chapters/not-here.md']);
  });

  it('when files are malformed (a path out of the manuscript, bad base64, two files for a single-file format), then a validation_error names each and nothing is written', async () => {
    const outside = await gql(importManuscript, { name: 'Bad paths', format: 'markdown_folder', files: [{ path: '../secret.md', content: 'x' }, { path: '/etc/passwd', content: 'x' }] });
    expect(outside.errors![0].extensions.code).toBe('validation_error');
    expect(outside.errors![0].extensions.errors).toEqual([
      { path: '../secret.md', message: 'a file path must not have empty, . or .. parts' },
      { path: '/etc/passwd', message: 'a file path must be relative and use / between folders' },
    ]);
    const base64 = await gql(importManuscript, { name: 'Bad base64', format: 'docx', files: [{ path: 'a.docx', content: 'not*base64', encoding: 'base64' }] });
    expect(base64.errors![0].extensions).toMatchObject({ code: 'validation_error', errors: [{ path: 'files.0.content', message: 'must be base64 (encoding is base64)' }] });
    const two = await gql(importManuscript, { name: 'Two files', format: 'markdown', files: [...md('# A'), ...md('# B', 'b.md')] });
    expect(two.errors![0].extensions.errors).toEqual([{ path: '(manuscript)', message: 'a markdown manuscript is one file; 2 were given' }]);
    const projects = await gw.request('/projects', { key });
    expect(projects.body.data.map((p: any) => p.name)).not.toEqual(expect.arrayContaining(['Bad paths']));
  });

  it("when another account's project is named, then it is not_found, exactly like a missing one, and nothing is written", async () => {
    const theirs = (await importBundle(gw, stranger, { project: { name: 'Theirs' }, chapters: [{ id: 'c', title: 'C', ordinal: 1, text: 'Theirs.' }] })).projectId;
    const res = await gql(importManuscript, { projectId: theirs, format: 'markdown', files: md('# Mine\n\nMine.'), sync: true });
    expect(res.errors![0].extensions.code).toBe('not_found');
    const missing = await gql(importManuscript, { projectId: 'prj_00000000000000000000000000', format: 'markdown', files: md('# Mine\n\nMine.') });
    expect(missing.errors![0].message.replace('prj_00000000000000000000000000', theirs)).toBe(res.errors![0].message);
    expect((await exported(gw, stranger, theirs)).chapters.map((c) => c.id)).toEqual(['c']);
  });

  it('when the same import is sent again with its idempotency key, then the first answer is replayed; with another body the key is refused', async () => {
    const variables = { name: 'Idempotent', format: 'markdown', files: md('# One\n\nA.'), idempotencyKey: 'manuscript-1' };
    const first = await gql(importManuscript, variables);
    const again = await gql(importManuscript, variables);
    expect(again.data).toEqual(first.data);
    const other = await gql(importManuscript, { ...variables, files: md('# One\n\nB.') });
    expect(other.errors![0].extensions.code).toBe('idempotency_key_reused');
  });
});

describe('extractCanon', () => {
  let projectId: string;
  const lowTide = ['Mara stood on the deck of the Gull at first light.', 'Her eyes were green as bottle glass.', 'The Gull was an old fishing boat out of Saltmarsh.'].join('\n');

  beforeAll(async () => {
    projectId = (await importBundle(gw, key, { project: { name: 'Extraction' }, entities: [{ key: 'mara', type: 'character', name: 'Mara Voss', aliases: ['Mara'] }] })).projectId;
    const res = await gql(importManuscript, { projectId, format: 'markdown', files: md(markdownBook([{ title: 'Low Tide', text: lowTide }, { title: 'Empty', text: '' }])) });
    expect(res.errors).toBeUndefined();
  });

  const reply = {
    entities: [
      { name: 'Mara', type: 'character', aliases: [], quote: 'Mara stood on the deck', facts: [
        { text: "Mara's eyes are green.", quote: 'Her eyes were green as bottle glass.' },
        { text: 'Mara is a smuggler.', quote: 'She smuggled brandy.' },
      ] },
      { name: 'The Gull', type: 'object', aliases: ['Gull'], quote: '“The Gull was an old fishing boat”', facts: [{ text: 'The Gull is an old fishing boat.', quote: 'The Gull was an old   fishing boat out of Saltmarsh.' }] },
      { name: 'Captain Rook', type: 'character', aliases: [], quote: 'Rook laughed.', facts: [] },
    ],
  };

  it('when no provider is sent, then it is 402 precondition_required and the model is not called', async () => {
    const res = await gql(extractCanon, { projectId });
    expect(res.errors![0].extensions.code).toBe('precondition_required');
    expect(fake.requests).toHaveLength(0);
  });

  it('when the model answers, then quoted proposals land as suggested candidates (a known entity matched by alias, a new one suggested), quotes not in the chapter are dropped, and nothing is approved', async () => {
    fake.script({ object: reply });
    const res = await gql(extractCanon, { projectId }, { headers: byok });
    expect(res.errors).toBeUndefined();
    const result = res.data.extractCanon;
    expect(result.chapters).toEqual([
      expect.objectContaining({ chapter: 'low-tide', status: 'asked', entitiesMatched: 1, entitiesProposed: 1, factsProposed: 2, dropped: 2 }),
      expect.objectContaining({ chapter: 'empty', status: 'empty', candidateIds: [] }),
    ]);
    expect(result).toMatchObject({ hasMore: false, nextStartingAfter: null, remainingChapters: 0 });
    expect(fake.requests).toHaveLength(1);
    const sent = JSON.stringify(fake.requests[0].body);
    expect(sent).toContain('Her eyes were green as bottle glass.');
    expect(sent).toContain('Mara Voss');

    const queue = await gql(candidatesQuery, { projectId });
    const pending = queue.data.candidates.data;
    expect(pending.map((c: any) => c.id).sort()).toEqual([...result.candidateIds].sort());
    const fact = pending.find((c: any) => c.kind === 'fact');
    expect(fact).toMatchObject({ entityName: 'Mara Voss', status: 'pending', facts: [{ text: "Mara's eyes are green.", status: 'suggested' }], source: 'proposal' });
    expect(fact.content).toMatch(/^Extracted from chapter low-tide, version [0-9a-f]{16}\nline 2: "Her eyes were green as bottle glass\."$/);
    const entity = pending.find((c: any) => c.kind === 'entity');
    expect(entity).toMatchObject({ entityName: 'The Gull', facts: [{ text: 'The Gull is an old fishing boat.', status: 'suggested' }] });
    expect(entity.content).toContain('line 3: "“The Gull was an old fishing boat”"');

    const mara = await recallOne(gw, key, projectId, 'Mara Voss');
    expect(mara.facts).toEqual([]);
    const gull = await recallOne(gw, key, projectId, 'The Gull');
    expect(gull).toMatchObject({ approvalStatus: 'suggested', aliases: ['Gull'] });
    const rook = await gw.request(`/projects/${projectId}/recall?q=Rook`, { key });
    expect(rook.body.entities).toEqual([]);
  });

  it('when the same chapter is extracted again, then the model is not asked; once the chapter is edited, it is asked again and matches the entity it proposed before', async () => {
    const again = await gql(extractCanon, { projectId }, { headers: byok });
    expect(again.data.extractCanon.chapters.map((c: any) => c.status)).toEqual(['cached', 'empty']);
    expect(fake.requests).toHaveLength(0);

    const edited = `${lowTide}\nThe Gull had a red sail.`;
    await gql(importManuscript, { projectId, format: 'markdown', files: md(markdownBook([{ title: 'Low Tide', text: edited }, { title: 'Empty', text: '' }])) });
    fake.script({ object: { entities: [{ name: 'Gull', type: 'object', aliases: [], quote: 'The Gull had a red sail.', facts: [{ text: 'The Gull has a red sail.', quote: 'The Gull had a red sail.' }] }] } });
    const res = await gql(extractCanon, { projectId, chapters: ['low-tide'] }, { headers: byok });
    expect(res.data.extractCanon.chapters).toEqual([expect.objectContaining({ chapter: 'low-tide', status: 'asked', entitiesMatched: 1, entitiesProposed: 0, factsProposed: 1 })]);
    expect(fake.requests).toHaveLength(1);
  });

  it('when the model proposes nothing for a chapter, then that version is not asked again either', async () => {
    const quiet = (await importBundle(gw, key, { project: { name: 'Quiet book' }, chapters: [{ id: 'fog', title: 'Fog', ordinal: 1, text: 'Fog lay on the flats all day.' }] })).projectId;
    fake.script({ object: { entities: [] } });
    const first = await gql(extractCanon, { projectId: quiet }, { headers: byok });
    expect(first.data.extractCanon.chapters).toEqual([expect.objectContaining({ chapter: 'fog', status: 'asked', candidateIds: [] })]);
    const again = await gql(extractCanon, { projectId: quiet }, { headers: byok });
    expect(again.data.extractCanon.chapters).toEqual([expect.objectContaining({ chapter: 'fog', status: 'cached' })]);
    expect(fake.requests).toHaveLength(1);
  });

  it('when many chapters are extracted, then at most four are asked at once, limit bounds a call and nextStartingAfter goes on', async () => {
    const chapters = Array.from({ length: 7 }, (_, i) => ({ title: `Part ${i + 1}`, text: `Mara sailed on day ${i + 1}.` }));
    const many = (await importBundle(gw, key, { project: { name: 'Many chapters' }, entities: [{ key: 'mara', type: 'character', name: 'Mara Voss', aliases: ['Mara'] }] })).projectId;
    await gql(importManuscript, { projectId: many, format: 'markdown', files: md(markdownBook(chapters)) });
    fake.fallback = { delayMs: 150, object: { entities: [] } };
    try {
      const first = await gql(extractCanon, { projectId: many, limit: 5 }, { headers: byok });
      expect(first.data.extractCanon).toMatchObject({ hasMore: true, nextStartingAfter: 'part-5', remainingChapters: 2 });
      expect(first.data.extractCanon.chapters.map((c: any) => c.status)).toEqual(['asked', 'asked', 'asked', 'asked', 'asked']);
      expect(fake.maxInFlight).toBe(4);
      const rest = await gql(extractCanon, { projectId: many, limit: 5, startingAfter: 'part-5' }, { headers: byok });
      expect(rest.data.extractCanon.chapters.map((c: any) => c.chapter)).toEqual(['part-6', 'part-7']);
      expect(rest.data.extractCanon.hasMore).toBe(false);
    } finally {
      fake.fallback = { object: { conflicts: [] } };
    }
  });

  it('when chapters or the cursor name no chapter of the project, or the project is another account\'s, then the error names it and the model is not called', async () => {
    const unknown = await gql(extractCanon, { projectId, chapters: ['low-tide', 'nope'] }, { headers: byok });
    expect(unknown.errors![0].extensions).toMatchObject({ code: 'validation_error', errors: [{ path: 'chapters.1', message: 'no chapter nope in this project' }] });
    const cursor = await gql(extractCanon, { projectId, startingAfter: 'nope' }, { headers: byok });
    expect(cursor.errors![0].extensions.code).toBe('invalid_cursor');
    const limit = await gql(extractCanon, { projectId, limit: 21 }, { headers: byok });
    expect(limit.errors![0].extensions.errors).toEqual([{ path: 'limit', message: 'must be at most 20' }]);
    const theirs = await gql(extractCanon, { projectId }, { key: stranger, headers: byok });
    expect(theirs.errors![0].extensions.code).toBe('not_found');
    expect(fake.requests).toHaveLength(0);
  });

  it('when the provider refuses the key, then it is llm_provider_error and nothing is recorded', async () => {
    const before = (await gql(candidatesQuery, { projectId })).data.candidates.data.length;
    await gql(importManuscript, { projectId, format: 'markdown', files: md(markdownBook([{ title: 'Low Tide', text: `${lowTide}\nA third version.` }, { title: 'Empty', text: '' }])) });
    fake.script({ status: 401, error: 'invalid api key' });
    const res = await gql(extractCanon, { projectId }, { headers: byok });
    expect(res.errors![0].extensions.code).toBe('llm_provider_error');
    expect(res.errors![0].message).not.toContain(byok['X-LLM-Key']);
    expect((await gql(candidatesQuery, { projectId })).data.candidates.data.length).toBe(before);
  });
});
