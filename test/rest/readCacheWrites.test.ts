// The read cache keeps the pages a write cannot have changed (src/core/canon/readCache.ts): under many concurrent
// writers and readers on two gateways over one database, every read made after a write's response shows that write,
// on the gateway that wrote and on the other, whether the page is about the entity written, about several entities
// (one of them written) or a search ranking that the write moves; and a new entity shows in every recall whose filter
// its names contain, in any case, while the pages it does not match stay cached; a new fact keeps the search pages
// whose query has none of its words, and a new entity those it can match by no word and no trigram; a write to an
// entity a page shows reads that entity again and keeps the page's others, unless it moved the page's ranking.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';

const people = ['Arden', 'Bryn', 'Cael', 'Dara', 'Eskel', 'Fenn', 'Garrow', 'Hale'];
const bundle = {
  project: { name: 'The Tide Ledger' },
  entities: [
    ...people.map((first) => ({ key: first.toLowerCase(), type: 'character', name: `${first} Marrow`, facts: [`${first} rows the ferry.`] })),
    { key: 'quay', type: 'location', name: 'The Long Quay' },
  ],
  chapters: [{ id: 'ch-01', ordinal: 1, title: 'Tide', text: people.map((p) => `${p} Marrow came down to the Long Quay.`).join('\n') }],
};

let gateways: TestGateway[];
let key: string;
let projectId: string;
const ids = new Map<string, string>();

type Entity = { id: string; canonicalName: string; currentState: Record<string, unknown>; facts: { text: string }[] };

async function recall(gw: TestGateway, q: string): Promise<Entity[]> {
  const res = await gw.request(`/projects/${projectId}/recall?q=${encodeURIComponent(q)}&limit=50`, { key });
  expect(res.status).toBe(200);
  return res.body.entities;
}

async function search(gw: TestGateway, q: string): Promise<Entity[]> {
  const res = await gw.request(`/projects/${projectId}/search?q=${encodeURIComponent(q)}&limit=50`, { key });
  expect(res.status).toBe(200);
  return res.body.data;
}

async function write(gw: TestGateway, method: string, path: string, json: unknown) {
  const res = await gw.request(`/projects/${projectId}${path}`, { method, key, json });
  expect(res.status, res.text).toBeLessThan(300);
  return res.body;
}

beforeAll(async () => {
  const first = await startTestGateway();
  gateways = [first, await startTestGateway({ DATABASE_URL: first.databaseUrl })];
  ({ key } = await first.createKey('enterprise', { customRate: 1_000_000, customQuota: 1_000_000 }));
  projectId = (await importBundle(first, key, bundle)).projectId;
  for (const entity of await recall(first, 'Marrow')) ids.set(entity.canonicalName.split(' ')[0], entity.id);
}, 60_000);

afterAll(async () => {
  for (const gw of gateways ?? []) await gw.close();
});

describe('read cache under concurrent writes', () => {
  it('when many writers change entities while readers read, then every read after a write shows it, on both gateways', async () => {
    const rounds = 6;
    let writing = true;
    // Readers keep the pages of every entity, of all of them and of searches in both caches while the writers write.
    const readers = gateways.flatMap((gw) =>
      [0, 1].map(async (r) => {
        for (let i = 0; writing; i++) {
          const person = people[(i + r) % people.length];
          await Promise.all([recall(gw, person), recall(gw, 'Marrow'), search(gw, person), search(gw, `ferry ${person}`)]);
        }
      }),
    );
    // Each writer owns one person (Hale is the renamer's), so what the reads must show after each of its writes is known exactly.
    const writers = people.filter((p) => p !== 'Hale').map(async (person, w) => {
      const id = ids.get(person)!;
      for (let round = 1; round <= rounds; round++) {
        const via = gateways[(w + round) % 2];
        await write(via, 'PATCH', `/entities/${id}`, { state: { tide: round } });
        for (const gw of gateways) {
          const [own] = await recall(gw, person);
          expect(own.currentState.tide, `${person} round ${round}`).toBe(round);
          expect((await recall(gw, 'Marrow')).find((e) => e.id === id)!.currentState.tide).toBe(round);
        }
        const fact = `${person} sighted the gull${round}.`;
        await write(via, 'POST', '/facts', { entity_id: id, text: fact });
        for (const gw of gateways) {
          expect((await recall(gw, person))[0].facts.map((f) => f.text)).toContain(fact);
          // Every writer's fact of a round has the word gull<round>: a page of it that another writer's check cached, not
          // showing this entity, has to go with this fact (src/core/canon/canonChanges.ts, scope 'appended').
          expect((await search(gw, `gull${round}`)).map((e) => e.id)).toContain(id);
        }
      }
    });
    // One writer renames an entity back and forth: the old name stops finding it, the new one finds it.
    const renamer = (async () => {
      const id = ids.get('Hale')!;
      for (let round = 1; round <= rounds; round++) {
        const name = round % 2 ? `Hollis Marrow` : `Hale Marrow`;
        const old = round % 2 ? 'Hale' : 'Hollis';
        await write(gateways[round % 2], 'PATCH', `/entities/${id}`, { name });
        for (const gw of gateways) {
          expect((await recall(gw, name)).map((e) => e.id)).toEqual([id]);
          expect((await recall(gw, old)).map((e) => e.id)).toEqual([]);
          expect((await search(gw, name.split(' ')[0])).map((e) => e.id)).toContain(id);
        }
      }
    })();
    try {
      await Promise.all([...writers, renamer]);
    } finally {
      writing = false;
      await Promise.all(readers);
    }
  }, 120_000);

  it('when entities are created while readers keep recall pages of many filters, then every recall after a creation finds it, in any case', async () => {
    const rounds = 5;
    let writing = true;
    // Filters the new names contain, in other cases, short (read by the name-order scan) and long (the trigram index),
    // and filters they do not contain, all kept in both caches while the creators create.
    const filters = ['Tallow', 'tallow', 'TALLOW', 'ta', 'W', 'wick', 'Marrow', 'Quay', 'zz'];
    const readers = gateways.flatMap((gw) =>
      [0, 1].map(async (r) => {
        for (let i = 0; writing; i++) await Promise.all(filters.map((f, j) => (i + j + r) % 3 === 0 && recall(gw, f)));
      }),
    );
    const creators = gateways.map(async (via, w) => {
      for (let round = 1; round <= rounds; round++) {
        const first = `Wen${'xyz'[w]}${'abcde'[round - 1]}`;
        // The page of the exact name is cached empty just before the name exists.
        for (const gw of gateways) expect(await recall(gw, first)).toEqual([]);
        const created = await write(via, 'POST', '/entities', { type: 'character', name: `${first} Tallow`, aliases: [`the Wick ${first}`] });
        for (const gw of gateways) {
          expect((await recall(gw, first)).map((e) => e.id), `${first} on gateway ${gateways.indexOf(gw)}`).toEqual([created.id]);
          expect((await recall(gw, first.toUpperCase())).map((e) => e.id)).toEqual([created.id]);
          for (const filter of ['tallow', 'TALLOW', 'Tallow', 'ta', 'W', 'wick']) {
            expect((await recall(gw, filter)).map((e) => e.id), `${first} by ${filter}`).toContain(created.id);
          }
          for (const filter of ['Marrow', 'Quay', 'zz']) expect((await recall(gw, filter)).map((e) => e.id)).not.toContain(created.id);
        }
      }
    });
    try {
      await Promise.all(creators);
    } finally {
      writing = false;
      await Promise.all(readers);
    }
  }, 120_000);

  it('when a fact is written, then the search pages whose query has none of its words stay cached and those with one are read again', async () => {
    const fenn = ids.get('Fenn')!;
    const gw = gateways[0];
    expect((await search(gw, 'Fenn')).map((e) => e.id)).toContain(fenn);
    // Changed behind the caches' back (no trigger, so no new canon version): a page read again shows it, a kept one does not.
    await gw.gateway.runtime.services.prisma.$transaction([
      gw.gateway.runtime.services.prisma.$executeRawUnsafe('SET LOCAL session_replication_role = replica'),
      gw.gateway.runtime.services.prisma.$executeRawUnsafe(`UPDATE "Entity" SET state = state || '{"unseen": 1}' WHERE id = $1`, fenn),
    ]);
    await write(gw, 'POST', '/facts', { entity_id: ids.get('Bryn'), text: 'Bryn mended a lantern.' });
    expect((await search(gw, 'Fenn')).find((e) => e.id === fenn)!.currentState.unseen).toBeUndefined();
    await write(gw, 'POST', '/facts', { entity_id: ids.get('Dara'), text: 'Dara met Fenn at dawn.' });
    const after = await search(gw, 'Fenn');
    expect(after.find((e) => e.id === fenn)!.currentState.unseen).toBe(1);
    expect(after.map((e) => e.id)).toContain(ids.get('Dara'));
  });

  it('when an entity is created, then the search pages it cannot match stay cached and those it may match are read again', async () => {
    const fenn = ids.get('Fenn')!;
    const gw = gateways[0];
    const prisma = gw.gateway.runtime.services.prisma;
    const marked = async (q: string) => (await search(gw, q)).find((e) => e.id === fenn)!.currentState.marked;
    expect(await marked('Fenn')).toBeUndefined();
    expect(await marked('Fenn -lantern')).toBeUndefined();
    // Changed behind the caches' back (no trigger, so no new canon version): a page read again shows it, a kept one does not.
    await prisma.$transaction([
      prisma.$executeRawUnsafe('SET LOCAL session_replication_role = replica'),
      prisma.$executeRawUnsafe(`UPDATE "Entity" SET state = state || '{"marked": 1}' WHERE id = $1`, fenn),
    ]);
    // No word and no trigram of "Fenn": the page stays; a query with a negated word matches entities without its words.
    await write(gw, 'POST', '/entities', { type: 'character', name: 'Ondine Pell' });
    expect(await marked('Fenn')).toBeUndefined();
    expect(await marked('Fenn -lantern')).toBe(1);
    // A name like the query (shared trigrams, no shared word): shown on the page, which is read again.
    const like = await write(gw, 'POST', '/entities', { type: 'character', name: 'Fennick Ode' });
    const page = await search(gw, 'Fenn');
    expect(page.map((e) => e.id)).toContain(like.id);
    expect(page.find((e) => e.id === fenn)!.currentState.marked).toBe(1);
  });

  it('when an entity a cached page shows is written, then that entity is read again and the page keeps the others', async () => {
    const gw = gateways[0];
    const prisma = gw.gateway.runtime.services.prisma;
    const [arden, cael] = [ids.get('Arden')!, ids.get('Cael')!];
    const pages = async () => [await recall(gw, 'Marrow'), await search(gw, 'ferry')];
    for (const page of await pages()) expect(page.map((e) => e.id)).toEqual(expect.arrayContaining([arden, cael]));
    // Changed behind the caches' back (no trigger, so no new canon version): a page read again shows it, a kept one does not.
    await prisma.$transaction([
      prisma.$executeRawUnsafe('SET LOCAL session_replication_role = replica'),
      prisma.$executeRawUnsafe(`UPDATE "Entity" SET state = state || '{"hidden": 1}' WHERE id = $1`, arden),
    ]);
    await write(gw, 'PATCH', `/entities/${cael}`, { state: { tide: 'slack' } });
    for (const page of await pages()) {
      expect(page.find((e) => e.id === cael)!.currentState.tide).toBe('slack');
      expect(page.find((e) => e.id === arden)!.currentState.hidden).toBeUndefined();
    }
    // A fact none of whose words the query has: its entity read again with it, the ranking and the others kept.
    await write(gw, 'POST', '/facts', { entity_id: cael, text: 'Cael counted the oars.' });
    for (const [i, page] of (await pages()).entries()) {
      expect(page.find((e) => e.id === cael)!.facts.map((f) => f.text), `page ${i}`).toContain('Cael counted the oars.');
      expect(page.find((e) => e.id === arden)!.currentState.hidden).toBeUndefined();
    }
    // Another gateway, which cached the pages before either write, shows both.
    for (const page of [await recall(gateways[1], 'Marrow'), await search(gateways[1], 'ferry')]) {
      const own = page.find((e) => e.id === cael)!;
      expect(own.currentState.tide).toBe('slack');
      expect(own.facts.map((f) => f.text)).toContain('Cael counted the oars.');
    }
  });

  it('when a fact moves its entity up a cached search page, then the page is ranked again, not only its entity read again', async () => {
    const gw = gateways[0];
    // A word sharing no trigram with their names: the two rank alike, by id, until one has it more often.
    const [bryn, dara] = [ids.get('Bryn')!, ids.get('Dara')!];
    await write(gw, 'POST', '/facts', { entity_id: bryn, text: 'Bryn found an oyster.' });
    await write(gw, 'POST', '/facts', { entity_id: dara, text: 'Dara ate an oyster.' });
    const order = (page: Entity[]) => page.map((e) => e.id).filter((id) => id === bryn || id === dara);
    const before = order(await search(gw, 'oyster'));
    expect(before).toHaveLength(2);
    await write(gw, 'POST', '/facts', { entity_id: before[1], text: 'Oyster, oyster and oyster again.' });
    expect(order(await search(gw, 'oyster'))).toEqual([before[1], before[0]]);
  });

  it('when an entity is created while its name is being recalled, then the next recall after the answer finds it', async () => {
    for (const gw of gateways) expect(await recall(gw, 'Ysolde')).toEqual([]);
    const created = await write(gateways[0], 'POST', '/entities', { type: 'character', name: 'Ysolde Marrow' });
    for (const gw of gateways) {
      expect((await recall(gw, 'Ysolde')).map((e) => e.id)).toEqual([created.id]);
      expect((await recall(gw, 'Marrow')).map((e) => e.id)).toContain(created.id);
    }
  });
});
