// Issue 28, item 3: a name write finds its mentions through the chapters' word index instead of reading every chapter.
// What it records must be what a scan of the whole text records: here the scan is an import of the same chapters and
// names into a new project (which searches every line), and the index is a project that got the same names one write
// at a time, on real prose (the first chapters of Jane Eyre: possessives, hyphens, sentence-initial capitals,
// multi-word names), before and after chapter edits, a deletion, a rename, and on chapters written before the index
// existed. On PostgreSQL and on the embedded store.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../../app/gateway.ts';
import { loadConfig } from '../../src/config.ts';
import { createTestDatabase } from '../support/gateway.ts';
import { apiRequest } from '../support/processes.ts';
import { mentionHash, termsOf } from '../../src/core/ingest/mentions.ts';

type Chapter = { id: string; title: string; ordinal: number; text: string };
type Name = { key: string; name: string; aliases: string[] };

// None is the start of another's later word, so a scan with all of them and a write of each alone find the same.
const firstNames: Name[] = [
  { key: 'bessie', name: 'Bessie', aliases: ['Bessie Lee'] },
  { key: 'reed', name: 'Mrs. Reed', aliases: ['Aunt Reed'] },
  { key: 'abbot', name: 'Miss Abbot', aliases: [] },
  { key: 'red-room', name: 'the red-room', aliases: [] },
  { key: 'eliza', name: 'Eliza', aliases: [] },
  { key: 'georgiana', name: 'Georgiana', aliases: [] },
];
const laterNames: Name[] = [
  { key: 'helen', name: 'Helen Burns', aliases: ['Helen'] },
  { key: 'temple', name: 'Miss Temple', aliases: [] },
];
const afterEdits: Name[] = [
  { key: 'lloyd', name: 'Mr. Lloyd', aliases: ['the apothecary'] },
  { key: 'scatcherd', name: 'Miss Scatcherd', aliases: [] },
  { key: 'brocklehurst', name: 'Mr. Brocklehurst', aliases: ['Brocklehurst'] },
];
const renamedTemple: Name = { key: 'temple', name: 'Maria Temple', aliases: ['Miss Temple', 'the superintendent'] };

let novel: Chapter[];
beforeAll(async () => {
  const book = JSON.parse(await readFile(new URL('../eval/sets/janeeyre/canon.json', import.meta.url), 'utf8')) as { chapters: Chapter[] };
  novel = book.chapters.slice(0, 7).map((c, i) => ({ id: `ch-0${i + 1}`, title: c.title, ordinal: i + 1, text: c.text }));
});

describe.each(['postgres', 'embedded'] as const)('mentions through the word index, on %s', (store) => {
  let gateway: Gateway;
  let dataDir: string | undefined;
  let key: string;
  let request: ReturnType<typeof apiRequest>;

  beforeAll(async () => {
    dataDir = store === 'embedded' ? await mkdtemp(path.join(tmpdir(), 'lore-mention-index-')) : undefined;
    const storeEnv = dataDir ? { LORE_DATA_DIR: dataDir } : { DATABASE_URL: await createTestDatabase() };
    gateway = await startGateway(loadConfig({ PORT: '0', HOST: '127.0.0.1', LORE_LOG_LEVEL: 'silent', LORE_MAX_BODY_BYTES: String(4 * 1024 * 1024), ...storeEnv }));
    request = apiRequest(`${gateway.url}/api/v1`);
    ({ key } = await gateway.runtime.services.keys.create({ tier: 'enterprise', customQuota: 1_000_000, customRate: 1_000_000 }));
  }, 120_000);
  afterAll(async () => {
    await gateway?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const db = () => gateway.runtime.services.prisma;

  async function imported(chapters: Chapter[], names: Name[], label: string): Promise<string> {
    const bundle = {
      project: { name: `${label} ${Math.random().toString(36).slice(2)}` },
      entities: names.map((n) => ({ ...n, type: 'character' })),
      relationships: [],
      chapters,
      timeline: [],
    };
    const res = await request(`${gateway.url}/graphql`, { method: 'POST', key, json: { query: 'mutation ($b: JSON!) { importBundle(bundle: $b) { projectId } }', variables: { b: bundle } } });
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    return res.body.data.importBundle.projectId;
  }

  async function created(projectId: string, n: Name): Promise<string> {
    const res = await request(`/projects/${projectId}/entities`, { method: 'POST', key, json: { key: n.key, name: n.name, aliases: n.aliases, type: 'character' } });
    expect(res.status, res.text).toBe(201);
    return res.body.id;
  }

  /** Every mention of the project as (entity key, chapter, line, column, snippet), in one order. */
  async function mentions(projectId: string): Promise<string[]> {
    const rows = await db().mention.findMany({
      where: { projectId },
      select: { line: true, column: true, snippet: true, entity: { select: { key: true } }, chapter: { select: { externalId: true } } },
    });
    return rows.map((m) => JSON.stringify([m.entity.key, m.chapter.externalId, m.line, m.column, m.snippet])).sort();
  }

  /** The chapters an import would search again: those not marked up to date under the project's names as they stand. */
  async function staleChapters(projectId: string): Promise<string[]> {
    const entities = await db().entity.findMany({ where: { projectId }, select: { id: true, name: true, aliases: true }, orderBy: { id: 'asc' } });
    const { namesHash } = termsOf(entities);
    const chapters = await db().chapter.findMany({ where: { projectId }, select: { externalId: true, contentHash: true, ordinal: true, mentionHash: true } });
    return chapters.filter((c) => c.mentionHash !== mentionHash(c, namesHash)).map((c) => c.externalId);
  }

  it('when names are written one at a time, then each records exactly what a scan of every chapter records, also on chapters written before the index, and the chapters stay marked up to date', async () => {
    const chapters = novel.slice(0, 6);
    const scanned = await imported(chapters, [...firstNames, ...laterNames], 'scan');
    const indexed = await imported(chapters, [], 'index');
    for (const n of firstNames) await created(indexed, n);
    // As a project from before the index: no words indexed, so the next name write indexes its chapters first.
    await db().chapterWordBucket.deleteMany({ where: { projectId: indexed } });
    await db().chapter.updateMany({ where: { projectId: indexed }, data: { wordsHash: '' } });
    for (const n of laterNames) await created(indexed, n);
    // Named nowhere in the text, with characters JSON escapes.
    await created(indexed, { key: 'odd', name: 'Ölaf "the\\Q" Zed', aliases: ['Ø ✓\ttab'] });

    const expected = await mentions(scanned);
    expect(expected.length).toBeGreaterThan(200);
    expect(new Set(expected.map((m) => JSON.parse(m)[0]))).toEqual(new Set([...firstNames, ...laterNames].map((n) => n.key)));
    expect(await mentions(indexed)).toEqual(expected);
    expect(await staleChapters(indexed)).toEqual([]);
  });

  it('when chapters are edited, added and deleted and a name is renamed, then new names written afterwards still record what a scan of the text as it now stands records', async () => {
    const indexed = await imported(novel.slice(0, 6), [], 'edits');
    const ids: Record<string, string> = {};
    for (const n of [...firstNames, ...laterNames]) ids[n.key] = await created(indexed, n);

    // ch-02 loses its second half and gains lines naming old and new names; ch-03 goes; ch-07 is new.
    const ch02Lines = novel[1].text.split('\n');
    const edited = [
      ...ch02Lines.slice(0, Math.floor(ch02Lines.length / 2)),
      'Miss Abbot sent for Mr. Lloyd, the apothecary; Mr. Lloyd\'s hands were cold. The red-room stayed shut.',
      'Brocklehurst! said Miss Scatcherd, and Maria Temple, the superintendent, looked up.',
    ].join('\n');
    const now = [novel[0], { ...novel[1], text: edited }, novel[3], novel[4], novel[5], novel[6]];
    expect((await request(`/projects/${indexed}/chapters/ch-02`, { method: 'PUT', key, json: { ordinal: 2, text: edited } })).status).toBe(200);
    expect((await request(`/projects/${indexed}/chapters/ch-03`, { method: 'DELETE', key })).status).toBe(200);
    expect((await request(`/projects/${indexed}/chapters/ch-07`, { method: 'PUT', key, json: { title: novel[6].title, ordinal: 7, text: novel[6].text } })).status).toBe(201);
    const renamed = await request(`/projects/${indexed}/entities/${ids.temple}`, { method: 'PATCH', key, json: { name: renamedTemple.name, aliases: renamedTemple.aliases } });
    expect(renamed.status, renamed.text).toBe(200);
    for (const n of afterEdits) await created(indexed, n);

    const scanned = await imported(now, [...firstNames, ...laterNames.map((n) => (n.key === 'temple' ? renamedTemple : n)), ...afterEdits], 'scan after edits');
    const expected = await mentions(scanned);
    expect(expected.filter((m) => m.includes('"ch-02"') && m.includes('Mr. Lloyd')).length).toBeGreaterThan(0);
    expect(expected.filter((m) => m.startsWith('["temple","ch-02"')).length).toBe(2);
    expect(await mentions(indexed)).toEqual(expected);
    expect(await staleChapters(indexed)).toEqual([]);
    // Every chapter left is indexed at its current text; the deleted chapter's words went with it.
    const left = await db().chapter.findMany({ where: { projectId: indexed }, select: { id: true, contentHash: true, wordsHash: true } });
    expect(left.map((c) => c.wordsHash)).toEqual(left.map((c) => c.contentHash));
    const bucketed = await db().chapterWordBucket.findMany({ where: { projectId: indexed }, select: { chapterId: true }, distinct: ['chapterId'] });
    expect(new Set(bucketed.map((b) => b.chapterId))).toEqual(new Set(left.map((c) => c.id)));
  });
});
