// Hybrid search pages are built from entity cards each gateway keeps in memory (src/core/canon/entityCards.ts): a
// write through one gateway shows in the very next search on another that holds the cards from before, with its page
// cache off, exactly as a gateway that never searched before answers it; and another account never reaches them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeEmbeddings, type FakeEmbeddings } from '../support/fakeEmbeddings.ts';
import { entityIdsByName, importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectProblem } from '../support/problem.ts';
import { seaBundle } from './fixtures.ts';
import { drained, embeddingEnv, search } from './helpers.ts';
import { pgvectorTestsRun } from './pgvector.ts';

const runs = await pgvectorTestsRun('test/search/cards.test.ts');

let fake: FakeEmbeddings;
/** reads (cards kept), writes (another process's writes, as far as the reader knows) */
let reader: TestGateway;
let writer: TestGateway;
let key: string;
let projectId: string;
let ids: Record<string, string>;
const queries = ['deep water', 'Mara', "the sailor's fear of deep water"];

beforeAll(async () => {
  if (!runs) return;
  fake = await startFakeEmbeddings();
  writer = await startTestGateway({ ...embeddingEnv(fake.url), LORE_READ_CACHE_MB: '0' });
  reader = await startTestGateway({ ...embeddingEnv(fake.url), LORE_READ_CACHE_MB: '0', DATABASE_URL: writer.databaseUrl });
  ({ key } = await writer.createKey('studio'));
  projectId = (await importBundle(writer, key, seaBundle())).projectId;
  ids = await entityIdsByName(writer, key, projectId);
  await drained(writer);
}, 60_000);

afterAll(async () => {
  await reader?.close();
  await writer?.close();
  await fake?.close();
});

/** Every page of `queries` as the reader answers it, and as a gateway that has kept nothing answers it. */
async function pages() {
  const fresh = await startTestGateway({ ...embeddingEnv(fake.url), LORE_READ_CACHE_MB: '0', DATABASE_URL: writer.databaseUrl });
  try {
    const answers = async (gw: TestGateway) =>
      Promise.all(queries.flatMap((q) => ['1', '3', '100'].map(async (limit) => {
        const page = await search(gw, key, projectId, q, { limit });
        expect(page.ranking).toBe('hybrid');
        return page.res.text;
      })));
    return { reader: await answers(reader), fresh: await answers(fresh) };
  } finally {
    await fresh.close();
  }
}

const entityOf = async (gw: TestGateway, q: string, name: string) =>
  (await search(gw, key, projectId, q, { limit: '100' })).res.body.entities.find((e: { canonicalName: string }) => e.canonicalName === name);

describe.runIf(runs)('hybrid search pages from entity cards', () => {
  it('when a fact is added, a state changed and an entity renamed through one gateway, then the next search on another that kept their cards shows each', async () => {
    const before = await pages();
    expect(before.reader).toEqual(before.fresh);

    const fact = await writer.request(`/projects/${projectId}/facts`, { key, method: 'POST', json: { entity_id: ids['Oren Hale'], text: 'Oren dives for pearls.' } });
    expect(fact.status, fact.text).toBe(201);
    expect((await entityOf(reader, 'deep water', 'Oren Hale')).facts.map((f: { text: string }) => f.text)).toContain('Oren dives for pearls.');

    const state = await writer.request(`/projects/${projectId}/entities/${ids['Tobin Reed']}`, { key, method: 'PATCH', json: { state: { mood: 'thirsty' } } });
    expect(state.status, state.text).toBe(200);
    expect((await entityOf(reader, 'deep water', 'Tobin Reed')).currentState).toMatchObject({ mood: 'thirsty' });

    const renamed = await writer.request(`/projects/${projectId}/entities/${ids['Keth Voss']}`, { key, method: 'PATCH', json: { name: 'Keth Vossen' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(await entityOf(reader, 'deep water', 'Keth Vossen')).toBeDefined();

    const after = await pages();
    expect(after.reader).toEqual(after.fresh);
    expect(after.reader).not.toEqual(before.reader);
  });

  it('when a chapter mentions an entity, then its latest mentions show in the next search on the other gateway', async () => {
    await pages();
    const chapter = await writer.request(`/projects/${projectId}/chapters/ch-9`, { key, method: 'PUT', json: { title: 'The well', ordinal: 9, text: 'Tobin Reed lowered the bucket into the deep well.' } });
    expect(chapter.status, chapter.text).toBe(201);
    const tobin = await entityOf(reader, 'deep water', 'Tobin Reed');
    expect(tobin.lastMentions.map((m: { chapter: string }) => m.chapter)).toContain('ch-9');
    const { reader: answers, fresh } = await pages();
    expect(answers).toEqual(fresh);
  });

  it("when another account searches a project whose cards a gateway keeps, then it is answered as a missing project, and its own project shows none of them", async () => {
    await pages();
    const other = await writer.createKey('studio');
    expectProblem(await reader.request(`/projects/${projectId}/search?q=${encodeURIComponent('deep water')}`, { key: other.key }), 404, 'not_found');
    const { projectId: otherProject } = await importBundle(writer, other.key, seaBundle('Another sea'));
    await drained(writer);
    const page = await search(reader, other.key, otherProject, 'deep water', { limit: '100' });
    expect(page.ranking).toBe('hybrid');
    const mine = new Set(Object.values(ids));
    expect(page.res.body.entities.length).toBeGreaterThan(0);
    for (const entity of page.res.body.entities) expect(mine.has(entity.id)).toBe(false);
  });
});
