// GET /projects/{id}/search: ranking, the Entities envelope and paging, against a real gateway and database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EntitiesEnvelope, RecallEntity } from '../../rest/schemas.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectProblem } from '../support/problem.ts';

let gw: TestGateway;
let key: string;
let projectId: string;
let otherProjectId: string;
const ids = new Map<string, string>();
const guardCount = 25;

const bundle = {
  project: { name: 'Harbour of Names', description: 'search fixtures' },
  entities: [
    { key: 'mara', type: 'character', name: 'Mara Voss', aliases: ['Mara', 'the Captain'] },
    { key: 'marabel', type: 'character', name: 'Marabel' },
    { key: 'maren', type: 'character', name: 'Maren Holt' },
    { key: 'lantern', type: 'object', name: 'the Lantern', facts: ['The lantern burns whale oil.'] },
    { key: 'oath', type: 'promise', name: 'The harbour oath', facts: ['Sealed with driftwood ash.'], status: 'suggested' },
    { key: 'guardhouse', type: 'location', name: 'Guardhouse' },
    { key: 'watchman', type: 'character', name: 'Old Tobin', facts: ['A guard stands at the harbour gate at night.'] },
    ...Array.from({ length: guardCount }, (_, i) => ({
      key: `guard-${i + 1}`, type: 'character', name: `Harbour Guard ${String(i + 1).padStart(2, '0')}`,
    })),
  ],
};

async function search(q: string, extra: Record<string, string> = {}, project = projectId) {
  const res = await gw.request(`/projects/${project}/search?${new URLSearchParams({ q, ...extra })}`, { key });
  return res;
}

async function searchNames(q: string): Promise<string[]> {
  const res = await search(q, { limit: '100' });
  expect(res.status).toBe(200);
  return res.body.data.map((e: any) => e.canonicalName);
}

async function walk(q: string, limit: number) {
  const pages: any[] = [];
  let after: string | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const res = await search(q, { limit: String(limit), ...(after ? { starting_after: after } : {}) });
    expect(res.status).toBe(200);
    pages.push(EntitiesEnvelope.parse(res.body));
    if (!res.body.has_more) break;
    after = res.body.next_starting_after;
  }
  return pages;
}

beforeAll(async () => {
  gw = await startTestGateway();
  ({ key } = await gw.createKey('studio'));
  projectId = (await importBundle(gw, key, bundle)).projectId;
  otherProjectId = (await importBundle(gw, key, { project: { name: 'Other book' }, entities: [{ key: 'g', type: 'character', name: 'Harbour Guard 99' }] })).projectId;
  const rows = await gw.gateway.runtime.services.prisma.entity.findMany({ where: { projectId }, select: { id: true, key: true } });
  for (const row of rows) ids.set(row.key, row.id);
});
afterAll(() => gw?.close());

describe('GET /projects/{id}/search', () => {
  it('when q matches, then the Entities envelope has data and the same entities, has_more and no cursor on the last page', async () => {
    const res = await search('Maren Holt');
    expect(res.status).toBe(200);
    const body = EntitiesEnvelope.parse(res.body);
    expect(body.entities).toEqual(body.data);
    expect(body.has_more).toBe(false);
    expect(res.body).not.toHaveProperty('next_starting_after');
    for (const entity of res.body.data) RecallEntity.parse(entity);
    expect(body.data[0]).toMatchObject({ id: ids.get('maren'), canonicalName: 'Maren Holt', type: 'character' });
  });

  it('when q is missing, empty or blank, then 400 validation_error on query.q', async () => {
    for (const query of ['', '?q=', '?q=%20%20', '?limit=5']) {
      const res = await gw.request(`/projects/${projectId}/search${query}`, { key });
      const problem = expectProblem(res, 400, 'validation_error');
      expect(problem.errors?.map((e) => e.path)).toEqual(['query.q']);
    }
  });

  it('when q holds a NUL character, then 400 validation_error on query.q, on search and recall alike', async () => {
    for (const path of ['search?q=Maren%00Holt', 'search?q=%00', 'recall?q=Ma%00ren']) {
      const problem = expectProblem(await gw.request(`/projects/${projectId}/${path}`, { key }), 400, 'validation_error');
      expect(problem.errors?.map((e) => e.path)).toEqual(['query.q']);
    }
  });

  it('when a path segment is not valid percent-encoding, then 400 validation_error', async () => {
    for (const id of ['%E0%A4%A', '%', '%ED%A0%80']) {
      const res = await gw.request(`/projects/${id}/search?q=guard`, { key });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_error', detail: 'The path is not valid percent-encoded UTF-8.' });
    }
  });

  it('when an exact name is searched, then it ranks above names that only resemble it', async () => {
    const names = await searchNames('Mara');
    expect(names[0]).toBe('Mara Voss');
    expect(names).toContain('Marabel');
    expect(names.indexOf('Marabel')).toBeGreaterThan(0);
    expect((await searchNames('MARA'))[0]).toBe('Mara Voss');
    expect((await searchNames('Marabel'))[0]).toBe('Marabel');
  });

  it('when a name is misspelt, then the entity is still found first', async () => {
    expect((await searchNames('Mra'))[0]).toBe('Mara Voss');
    expect((await searchNames('Marren Holt'))[0]).toBe('Maren Holt');
  });

  it('when an alias is searched, then its entity is found', async () => {
    expect((await searchNames('captain'))[0]).toBe('Mara Voss');
  });

  it('when a word appears only in an approved fact, then that entity is found; a suggested fact is not searched', async () => {
    expect(await searchNames('whale')).toEqual(['the Lantern']);
    expect(await searchNames('driftwood')).toEqual([]);
    const approve = await gw.request(`/projects/${projectId}/canon/${ids.get('oath')}/approve`, {
      method: 'POST', key, json: { fact: 'Sealed with driftwood ash.' },
    });
    expect(approve.status).toBe(200);
    expect(await searchNames('driftwood')).toEqual(['The harbour oath']);
  });

  it('when nothing matches, then an empty page', async () => {
    const res = await search('xylophone');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], entities: [], has_more: false });
  });

  it('when results are paged with starting_after, then each result comes once, in the order of one big page', async () => {
    const reference = (await search('guard', { limit: '100' })).body.data.map((e: any) => e.id);
    // 25 guards, the Guardhouse and the watchman whose approved fact names a guard.
    expect(reference.length).toBeGreaterThanOrEqual(guardCount + 2);
    expect(reference).toContain(ids.get('watchman'));
    expect(reference).toContain(ids.get('guardhouse'));
    for (const limit of [1, 4, 20]) {
      const pages = await walk('guard', limit);
      const seen = pages.flatMap((p) => p.data.map((e: any) => e.id));
      expect(seen).toEqual(reference);
      expect(new Set(seen).size).toBe(seen.length);
      for (const page of pages.slice(0, -1)) {
        expect(page.has_more).toBe(true);
        expect(page.next_starting_after).toBe(page.data.at(-1).id);
        expect(page.entities).toEqual(page.data);
      }
      expect(pages.at(-1).has_more).toBe(false);
      expect(pages.at(-1)).not.toHaveProperty('next_starting_after');
    }
    // The default page size is 20.
    expect((await search('guard')).body.data).toHaveLength(20);
  });

  it('when the cursor is not a result of this search, of another project, or garbage, then 400', async () => {
    const otherEntity = (await gw.request(`/projects/${otherProjectId}/recall`, { key })).body.entities[0].id;
    expectProblem(await search('guard', { starting_after: otherEntity }), 400, 'invalid_cursor');
    expectProblem(await search('guard', { starting_after: ids.get('lantern')! }), 400, 'invalid_cursor');
    expectProblem(await search('guard', { starting_after: 'ent_nosuchentity' }), 400, 'invalid_cursor');
    const garbage = expectProblem(await search('guard', { starting_after: '../../etc' }), 400, 'validation_error');
    expect(garbage.errors?.map((e) => e.path)).toEqual(['query.starting_after']);
  });

  it('when limit is 0 or 101, then 400', async () => {
    for (const limit of ['0', '101']) {
      const problem = expectProblem(await search('guard', { limit }), 400, 'validation_error');
      expect(problem.errors?.map((e) => e.path)).toEqual(['query.limit']);
    }
  });

  it('when the project is unknown, then 404 not_found', async () => {
    expectProblem(await search('guard', {}, 'prj_nosuchproject'), 404, 'not_found');
  });
});
