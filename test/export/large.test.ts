// A large project (20,000 entities with facts and timed state, 400 chapters of text): the export is read with a few
// set queries, so it takes about a second (a query per entity would take tens; the test prints the time). The project is written straight into
// its tables, in a few statements: through the importer it would take most of a minute of a shared machine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw?.close());

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** Inserts rows (objects keyed by column) with one statement per 20,000; `columns` gives each column's SQL type. */
async function insertRows(table: string, columns: Record<string, string>, rows: object[]) {
  const names = Object.keys(columns).map((c) => `"${c}"`).join(', ');
  const definitions = Object.entries(columns).map(([c, type]) => `"${c}" ${type}`).join(', ');
  for (let i = 0; i < rows.length; i += 20_000) {
    await gw.gateway.runtime.services.prisma.$executeRawUnsafe(
      `INSERT INTO "${table}" (${names}) SELECT ${names} FROM jsonb_to_recordset($1::jsonb) AS x(${definitions})`,
      JSON.stringify(rows.slice(i, i + 20_000)),
    );
  }
}

describe('a large project', () => {
  it('when 20,000 entities and 400 chapters are exported, then the bundle holds them all (the time is printed, not judged)', { timeout: 300_000 }, async () => {
    const { key } = await gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 });
    const projectId = (await gw.request('/projects', { method: 'POST', key, json: { name: 'Large' } })).body.id;

    const chapters = Array.from({ length: 400 }, (_, c) => ({
      id: newId('chp'), projectId, externalId: `ch-${pad(c + 1, 3)}`, title: `Chapter ${c + 1}`, ordinal: c + 1,
      text: Array.from({ length: 40 }, (_, l) => `Line ${l + 1} of chapter ${c + 1}: the tide came in over the grey stones, slow and cold.`).join('\n'),
    }));
    const entities = Array.from({ length: 20_000 }, (_, i) => ({
      id: newId('ent'), projectId, key: `e${pad(i, 5)}`, type: 'character', name: `Zq${pad(i, 5)}`, aliases: [`Zx${pad(i, 5)}`],
      baseState: { age: i % 90, status: 'alive' }, status: 'approved', updatedAt: new Date().toISOString(),
    }));
    // Every tenth entity leaves the story at some chapter: a timed state value and a timed fact.
    const leaving = (i: number) => chapters[i % 399];
    const facts = entities.flatMap((e, i) => [
      { id: newId('fct'), projectId, entityId: e.id, text: `${e.name} keeps a lantern.`, status: 'approved', source: 'import' },
      ...(i % 10 === 0 ? [{ id: newId('fct'), projectId, entityId: e.id, text: `${e.name} left the harbour.`, status: 'approved', source: 'import', fromChapterId: leaving(i).id }] : []),
    ]);
    const stateValues = entities.flatMap((e, i) =>
      i % 10 === 0 ? [{ id: newId('stv'), projectId, entityId: e.id, key: 'status', value: 'gone', fromChapterId: leaving(i).id }] : [],
    );
    const relationships = entities.slice(1, 5001).map((e, i) => ({ id: newId('rel'), projectId, fromId: e.id, toId: entities[i].id, kind: 'knows', weight: 1 }));
    await insertRows('Chapter', { id: 'text', projectId: 'text', externalId: 'text', title: 'text', ordinal: 'int', text: 'text' }, chapters);
    await insertRows('Entity', { id: 'text', projectId: 'text', key: 'text', type: '"EntityType"', name: 'text', aliases: 'text[]', baseState: 'jsonb', status: '"ApprovalStatus"', updatedAt: 'timestamp' }, entities);
    await insertRows('Fact', { id: 'text', projectId: 'text', entityId: 'text', text: 'text', status: '"ApprovalStatus"', source: 'text', fromChapterId: 'text' }, facts);
    await insertRows('StateValue', { id: 'text', projectId: 'text', entityId: 'text', key: 'text', value: 'jsonb', fromChapterId: 'text' }, stateValues);
    await insertRows('Relationship', { id: 'text', projectId: 'text', fromId: 'text', toId: 'text', kind: 'text', weight: 'float8' }, relationships);

    const started = performance.now();
    const res = await gw.request(`/projects/${projectId}/export`, { key });
    const seconds = (performance.now() - started) / 1000;
    console.log(`export of 20,000 entities and 400 chapters: ${(res.text.length / 1e6).toFixed(1)} MB in ${seconds.toFixed(2)} s`);
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    expect(res.body.entities).toHaveLength(20_000);
    expect(res.body.entities[10]).toEqual({
      key: 'e00010', type: 'character', name: 'Zq00010', aliases: ['Zx00010'], state: { age: 10, status: 'alive' },
      stateChanges: [{ from: 'ch-011', state: { status: 'gone' } }],
      facts: ['Zq00010 keeps a lantern.', { text: 'Zq00010 left the harbour.', from: 'ch-011', status: 'approved' }],
      status: 'approved',
    });
    expect(res.body.entities.reduce((n: number, e: any) => n + e.facts.length, 0)).toBe(22_000);
    expect(res.body.relationships).toHaveLength(5_000);
    expect(res.body.chapters).toEqual(chapters.map((c) => ({ id: c.externalId, title: c.title, ordinal: c.ordinal, text: c.text })));
  });
});
