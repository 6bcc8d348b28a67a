// Canon that must not change by itself: a sync removes only the chapters its own manuscript brought, ordinals stay
// unique in a project, a Markdown novel's title page is not a chapter, a re-import does not bring back a retired fact,
// and recall as of a chapter shows no mention from later in the story. Over GraphQL and REST, as clients send them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { markdownBook } from '../manuscripts/fixtures.ts';
import { exported } from '../manuscripts/support.ts';

let gw: TestGateway;
let key: string;

beforeAll(async () => {
  gw = await startTestGateway();
  ({ key } = await gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 }));
});
afterAll(async () => {
  await gw?.close();
});

async function gql(query: string, variables: Record<string, unknown>) {
  const res = await gw.request(`${gw.url}/graphql`, { method: 'POST', key, json: { query, variables } });
  return res.body as { data?: any; errors?: { message: string; extensions: { code: string; errors?: { path: string; message: string }[] } }[] };
}

const recallAsOf = (projectId: string, q: string, chapter: string) =>
  gw.request(`/projects/${projectId}/recall?q=${encodeURIComponent(q)}&as_of=${chapter}`, { key });

const threeChapters = (name: string) => ({
  project: { name },
  entities: [{ key: 'ilse', type: 'character', name: 'Ilse Marr', aliases: ['Ilse'], facts: ['Ilse keeps the light.'] }],
  chapters: [
    { id: 'ch-01', ordinal: 1, title: 'One', text: 'Ilse climbed the stair.' },
    { id: 'ch-02', ordinal: 2, title: 'Two', text: 'Ilse lit the lamp.' },
    { id: 'ch-03', ordinal: 3, title: 'Three', text: 'Ilse slept.' },
  ],
});

describe('recall as of a chapter', () => {
  it('when recall is asked as of an early chapter, then lastMentions holds only mentions up to that chapter', async () => {
    const bundle = threeChapters('As of mentions');
    bundle.chapters.push({ id: 'ch-61', ordinal: 61, title: 'Sixty-one', text: 'Ilse drowned.\nIlse was gone.' });
    const { projectId } = await importBundle(gw, key, bundle);
    const res = await recallAsOf(projectId, 'Ilse', 'ch-02');
    expect(res.status, res.text).toBe(200);
    const ilse = res.body.entities.find((e: any) => e.canonicalName === 'Ilse Marr');
    expect(ilse.lastMentions.map((m: any) => m.chapter)).toEqual(['ch-02', 'ch-01']);
    const latest = await gw.request(`/projects/${projectId}/recall?q=Ilse`, { key });
    expect(latest.body.entities[0].lastMentions[0].chapter).toBe('ch-61');
  });
});

const importManuscript = `mutation ($projectId: ID, $name: String, $files: [ManuscriptFileInput!]!, $sync: Boolean, $after: String, $dryRun: Boolean, $source: String) {
  importManuscript(projectId: $projectId, name: $name, format: markdown, files: $files, sync: $sync, after: $after, dryRun: $dryRun, source: $source) {
    projectId projectCreated dryRun changed chapters { id ordinal change } unchangedChapters chapterCount
    counts { importer { chaptersCreated chaptersUpdated } chaptersRemoved } frontMatter { file line text }
  }
}`;
const md = (text: string, path = 'book.md') => [{ path, content: text }];
const ownBook = markdownBook([
  { title: 'Low Tide', text: 'Ilse stood on the quay.' },
  { title: 'High Water', text: 'Ilse came home.' },
]);

async function manuscript(variables: Record<string, unknown>) {
  const res = await gql(importManuscript, variables);
  expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
  return res.data.importManuscript;
}

const chapterOrder = async (projectId: string) => (await exported(gw, key, projectId)).chapters.map((c) => [c.id, c.ordinal]);

describe('sync and chapter sources', () => {
  it("when a project's chapters came from a bundle, then syncing a manuscript of other chapters removes none of them, and a dry run writes nothing", async () => {
    const { projectId } = await importBundle(gw, key, threeChapters('Sync keeps the bundle'));
    const dry = await manuscript({ projectId, files: md(ownBook), sync: true, dryRun: true });
    expect(dry).toMatchObject({ projectId, dryRun: true, changed: true, counts: { chaptersRemoved: 0, importer: { chaptersCreated: 0 } } });
    expect(dry.chapters).toEqual([{ id: 'low-tide', ordinal: 4, change: 'added' }, { id: 'high-water', ordinal: 5, change: 'added' }]);
    expect(await chapterOrder(projectId)).toEqual([['ch-01', 1], ['ch-02', 2], ['ch-03', 3]]);

    const synced = await manuscript({ projectId, files: md(ownBook), sync: true });
    expect(synced.counts.chaptersRemoved).toBe(0);
    expect(synced.chapters.filter((c: any) => c.change === 'removed')).toEqual([]);
    expect(await chapterOrder(projectId)).toEqual([['ch-01', 1], ['ch-02', 2], ['ch-03', 3], ['low-tide', 4], ['high-water', 5]]);
    const mentions = await gw.request(`/projects/${projectId}/recall?q=Ilse`, { key });
    expect(mentions.body.entities[0].lastMentions.map((m: any) => m.chapter)).toContain('ch-03');

    // The manuscript drops a chapter: the sync removes that one, its own, and no other (a dry run says so first).
    const shorter = markdownBook([{ title: 'Low Tide', text: 'Ilse stood on the quay.' }]);
    const dryShorter = await manuscript({ projectId, files: md(shorter), sync: true, dryRun: true });
    expect(dryShorter.chapters).toEqual([{ id: 'high-water', ordinal: null, change: 'removed' }]);
    expect(await chapterOrder(projectId)).toHaveLength(5);
    const removed = await manuscript({ projectId, files: md(shorter), sync: true });
    expect(removed.counts.chaptersRemoved).toBe(1);
    expect(await chapterOrder(projectId)).toEqual([['ch-01', 1], ['ch-02', 2], ['ch-03', 3], ['low-tide', 4]]);
  });

  it('when a second manuscript is synced into the project, then the first manuscript keeps its chapters', async () => {
    const { projectId } = await manuscript({ name: 'Two manuscripts', files: md(ownBook) });
    const other = markdownBook([{ title: 'Epilogue', text: 'Years later.' }], 'Extras');
    const synced = await manuscript({ projectId, files: md(other, 'extras.md'), sync: true });
    expect(synced.counts.chaptersRemoved).toBe(0);
    expect(await chapterOrder(projectId)).toEqual([['low-tide', 1], ['high-water', 2], ['epilogue', 3]]);
  });

  it("when a manuscript's chapter has the id of a bundle's or another manuscript's chapter, then import, sync and a dry run are refused naming it, and nothing changes", async () => {
    const { projectId } = await importBundle(gw, key, threeChapters('Ids of others'));
    const before = await exported(gw, key, projectId);
    // "{#ch-02}" gives the heading the id of the bundle's second chapter.
    const taker = `# Low Tide\n\nIlse stood on the quay.\n\n# The Stair {#ch-02}\n\nSomeone else's text.\n`;
    for (const variables of [{ sync: false }, { sync: true }, { sync: true, dryRun: true }]) {
      const res = await gql(importManuscript, { projectId, files: md(taker), ...variables });
      expect(res.errors?.[0].extensions.code, JSON.stringify(res)).toBe('name_taken');
      expect(res.errors?.[0].extensions.errors).toEqual([{ path: 'book.md:5', message: 'chapter id ch-02 is already the project\'s chapter "Two" from a canon bundle' }]);
      expect(res.errors?.[0].message).toMatch(/\{#my-id\}/);
    }
    expect(await exported(gw, key, projectId)).toEqual(before);

    // Another manuscript's chapter is not taken over either; the manuscript's own ids sync as before.
    await manuscript({ projectId, files: md(ownBook, 'first.md'), source: 'first' });
    const second = await gql(importManuscript, { projectId, files: md(markdownBook([{ title: 'Low Tide', text: 'Rewritten.' }]), 'second.md'), source: 'second', sync: true });
    expect(second.errors?.[0].extensions.errors).toEqual([{ path: 'second.md:3', message: 'chapter id low-tide is already the project\'s chapter "Low Tide" from the manuscript "first"' }]);
    const own = await manuscript({ projectId, files: md(markdownBook([{ title: 'Low Tide', text: 'Rewritten.' }]), 'first.md'), source: 'first', sync: true });
    expect(own.chapters).toEqual([{ id: 'low-tide', ordinal: 4, change: 'edited' }, { id: 'high-water', ordinal: null, change: 'removed' }]);
  });
});

describe('chapter ordinals', () => {
  it('when a manuscript is imported into a project that has chapters, then its chapters follow them, or go after the chapter named by after', async () => {
    const { projectId } = await importBundle(gw, key, threeChapters('Ordinals follow'));
    await manuscript({ projectId, files: md(ownBook) });
    expect(await chapterOrder(projectId)).toEqual([['ch-01', 1], ['ch-02', 2], ['ch-03', 3], ['low-tide', 4], ['high-water', 5]]);
    // Placed after ch-01: the chapters after it move along, keeping their order.
    const moved = await manuscript({ projectId, files: md(ownBook), after: 'ch-01' });
    expect(moved.chapters.map((c: any) => [c.id, c.ordinal, c.change])).toEqual([
      ['low-tide', 2, 'moved'], ['high-water', 3, 'moved'], ['ch-02', 4, 'moved'], ['ch-03', 5, 'moved'],
    ]);
    expect(await chapterOrder(projectId)).toEqual([['ch-01', 1], ['low-tide', 2], ['high-water', 3], ['ch-02', 4], ['ch-03', 5]]);
    // A later import without after keeps them where they are.
    const again = await manuscript({ projectId, files: md(ownBook) });
    expect(again.changed).toBe(false);
    const unknown = await gql(importManuscript, { projectId, files: md(ownBook), after: 'ch-99' });
    expect(unknown.errors?.[0].extensions.code).toBe('validation_error');
  });

  it('when a bundle or a chapter write would put two chapters on one ordinal, then it is refused and nothing changes', async () => {
    const bundle = threeChapters('Ordinal clash');
    bundle.chapters.push({ id: 'ch-1', ordinal: 1, title: 'Also one', text: '' });
    const clash = await gw.graphql('mutation ($b: JSON!) { importBundle(bundle: $b) { projectId } }', { b: bundle }, key);
    expect(clash.errors?.[0].extensions?.code).toBe('invalid_bundle');

    const { projectId } = await importBundle(gw, key, threeChapters('Ordinal clash 2'));
    const into = await gw.graphql('mutation ($b: JSON!, $p: ID) { importBundle(bundle: $b, projectId: $p) { projectId } }', {
      b: { project: { name: 'Ordinal clash 2' }, chapters: [{ id: 'ch1', ordinal: 2, title: 'Two again', text: '' }] }, p: projectId,
    }, key);
    expect(into.errors?.[0].extensions?.code).toBe('invalid_bundle');
    expect(into.errors?.[0].message).toMatch(/ch-02 and ch1 would both have ordinal 2/);
    const put = await gw.request(`/projects/${projectId}/chapters/ch1`, { method: 'PUT', key, json: { ordinal: 3, text: 'x' } });
    expect(put.status, put.text).toBe(409);
    expect(put.body.code ?? put.body.type).toMatch(/already.exists/);
    expect(await chapterOrder(projectId)).toEqual([['ch-01', 1], ['ch-02', 2], ['ch-03', 3]]);
    // Two chapters trading places in one bundle is fine.
    const swapped = threeChapters('Ordinal clash 2');
    swapped.chapters[0].ordinal = 2;
    swapped.chapters[1].ordinal = 1;
    await importBundle(gw, key, swapped, projectId);
    expect(await chapterOrder(projectId)).toEqual([['ch-02', 1], ['ch-01', 2], ['ch-03', 3]]);
  });
});

describe('front matter', () => {
  it("when a Markdown novel has a title and a byline before its first chapter heading, then they are front matter, not chapter 1", async () => {
    const book = ['The Drowned Year', 'by A. Writer', '', '# Chapter One', '', 'Ilse woke.', '', '# Chapter Two', '', 'Ilse slept.', ''].join('\n');
    const result = await manuscript({ name: 'Front matter', files: md(book, 'drowned.md') });
    expect(result.chapterCount).toBe(2);
    expect(result.frontMatter).toEqual([{ file: 'drowned.md', line: 1, text: 'The Drowned Year\nby A. Writer' }]);
    expect(await chapterOrder(result.projectId)).toEqual([['chapter-one', 1], ['chapter-two', 2]]);
    // Under the book's own title, the same.
    const titled = await manuscript({ name: 'Front matter 2', files: md(['# The Drowned Year', 'by A. Writer', '', '## One', 'Ilse woke.', '## Two', 'Ilse slept.'].join('\n'), 'titled.md') });
    expect(titled.frontMatter).toEqual([{ file: 'titled.md', line: 1, text: 'by A. Writer' }]);
    expect(await chapterOrder(titled.projectId)).toEqual([['one', 1], ['two', 2]]);
  });
});

describe('retired facts and re-imports', () => {
  it('when the original bundle is imported again after a retcon, then the retired fact stays retired and is reported, unless reinstateRetired', async () => {
    const bundle = threeChapters('Retcon stays');
    const { projectId } = await importBundle(gw, key, bundle);
    const ilse = await gw.request(`/projects/${projectId}/recall?q=Ilse`, { key });
    const fact = ilse.body.entities[0].facts.find((f: any) => f.text === 'Ilse keeps the light.');
    const retcon = await gw.graphql('mutation ($p: ID!, $f: ID!) { updateFact(projectId: $p, factId: $f, input: { text: "Ilse sold the light." }) { fact { id } } }', { p: projectId, f: fact.id }, key);
    expect(retcon.errors, JSON.stringify(retcon.errors)).toBeUndefined();
    const newId = retcon.data.updateFact.fact.id;

    const reimport = `mutation ($b: JSON!, $p: ID, $r: Boolean) { importBundle(bundle: $b, projectId: $p, reinstateRetired: $r) {
      changed counts { factsCreated } retiredFactsSkipped { entity text retiredFactId replacedBy { id text } } } }`;
    const again = await gw.graphql(reimport, { b: bundle, p: projectId }, key);
    expect(again.errors, JSON.stringify(again.errors)).toBeUndefined();
    expect(again.data.importBundle.counts.factsCreated).toBe(0);
    expect(again.data.importBundle.retiredFactsSkipped).toEqual([
      { entity: 'ilse', text: 'Ilse keeps the light.', retiredFactId: fact.id, replacedBy: { id: newId, text: 'Ilse sold the light.' } },
    ]);
    const live = async () => (await gw.request(`/projects/${projectId}/recall?q=Ilse`, { key })).body.entities[0].facts.map((f: any) => f.text).sort();
    expect(await live()).toEqual(['Ilse sold the light.']);

    const reinstated = await gw.graphql(reimport, { b: bundle, p: projectId, r: true }, key);
    expect(reinstated.data.importBundle.counts.factsCreated).toBe(1);
    expect(await live()).toEqual(['Ilse keeps the light.', 'Ilse sold the light.']);
  });
});
