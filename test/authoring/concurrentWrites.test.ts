// Writes to one project at once, from two gateways over one database (src/core/canon/canon.ts projectLockName): new
// facts and state edits of different entities run side by side, those of one entity one after the other, new entities
// beside them but one after the other, and writers of the whole project (a retcon) alone; whatever the interleaving, every write is kept whole, the
// project's canon version goes up exactly once per write with each logged change at its write's version, and every
// write has its audit entry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mentionHash, termsOf } from '../../src/core/ingest/mentions.ts';
import { importBundle, startTestGateway, type ApiResponse, type TestGateway } from '../support/gateway.ts';

const people = ['Arden', 'Bryn', 'Cael', 'Dara', 'Eskel', 'Fenn'];
const bundle = {
  project: { name: 'The Salt Roads' },
  entities: people.map((first) => ({ key: first.toLowerCase(), type: 'character', name: `${first} Vell`, facts: [`${first} keeps the salt road.`] })),
  chapters: [{ id: 'ch-01', ordinal: 1, title: 'Roads', text: people.map((p) => `${p} Vell walked the salt road.`).join('\n') }],
};

let gateways: TestGateway[];
let key: string;
let account: string;
let projectId: string;
const ids = new Map<string, string>();

const db = () => gateways[0].gateway.runtime.services.prisma;
const send = (gw: TestGateway, method: string, path: string, json?: unknown) => gw.request(`/projects/${projectId}${path}`, { method, key, json });
const ok = (res: ApiResponse) => {
  expect(res.status, res.text).toBeLessThan(300);
  return res.body;
};

/** The project's canon version and what the log holds above `since`: each version's rows, and rows not yet stamped. */
async function canonLog(since: bigint) {
  const { canonVersion } = await db().project.findUniqueOrThrow({ where: { id: projectId }, select: { canonVersion: true } });
  const rows = await db().canonChange.findMany({ where: { projectId, OR: [{ version: { gt: since } }, { version: { lt: 0 } }] }, select: { version: true } });
  return { version: canonVersion, versions: new Set(rows.map((r) => r.version)), unstamped: rows.filter((r) => r.version < 0).length };
}

const audited = (since: Date) => db().auditEntry.findMany({ where: { accountId: account, createdAt: { gte: since } }, select: { operation: true, targets: true } });

beforeAll(async () => {
  const first = await startTestGateway();
  gateways = [first, await startTestGateway({ DATABASE_URL: first.databaseUrl })];
  ({ key, account } = await first.createKey('enterprise', { customRate: 1_000_000, customQuota: 1_000_000 }));
  projectId = (await importBundle(first, key, bundle)).projectId;
  const recall = await first.request(`/projects/${projectId}/recall?q=Vell`, { key });
  for (const entity of recall.body.entities) ids.set(entity.canonicalName.split(' ')[0], entity.id);
}, 60_000);

afterAll(async () => {
  for (const gw of gateways ?? []) await gw.close();
});

describe('concurrent writes to one project', () => {
  it('when facts and state edits of several entities and many of one entity run at once on two gateways, then all are kept, the canon version rises once per write and each has its audit entry', async () => {
    const before = await canonLog(-1n);
    const since = new Date(Date.now() - 1);
    const versionsBefore = new Map((await db().entity.findMany({ where: { projectId }, select: { id: true, version: true } })).map((e) => [e.id, e.version]));
    const rounds = 4;
    // Every entity gets facts and state keys of its own; Arden, the busy one, gets three times as many.
    const plan = people.flatMap((person) =>
      Array.from({ length: person === 'Arden' ? rounds * 3 : rounds }, (_, i) => [
        { person, kind: 'fact' as const, text: `${person} counted sacks ${i}.` },
        { person, kind: 'state' as const, state: { [`sacks${i}`]: i } },
      ]).flat(),
    );
    const results = await Promise.all(
      plan.map((w, i) =>
        w.kind === 'fact'
          ? send(gateways[i % 2], 'POST', '/facts', { entity_id: ids.get(w.person), text: w.text })
          : send(gateways[i % 2], 'PATCH', `/entities/${ids.get(w.person)}`, { state: w.state }),
      ),
    );
    for (const res of results) ok(res);

    for (const person of people) {
      const entity = ok(await gateways[0].request(`/projects/${projectId}/entities/${ids.get(person)}`, { key }));
      const mine = plan.filter((w) => w.person === person);
      // A merge that read the state before another edit of the entity committed would have lost that edit's key.
      expect(entity.currentState).toEqual(Object.assign({}, ...mine.flatMap((w) => (w.kind === 'state' ? [w.state] : []))));
      const facts = await db().fact.findMany({ where: { entityId: ids.get(person), retiredAt: null }, select: { text: true } });
      expect(facts.map((f) => f.text).sort()).toEqual(
        [`${person} keeps the salt road.`, ...mine.flatMap((w) => (w.kind === 'fact' ? [w.text] : []))].sort(),
      );
      const { version } = await db().entity.findUniqueOrThrow({ where: { id: ids.get(person)! }, select: { version: true } });
      expect(version - versionsBefore.get(ids.get(person)!)!).toBe(mine.filter((w) => w.kind === 'state').length);
    }

    const after = await canonLog(before.version);
    expect(after.version - before.version).toBe(BigInt(plan.length));
    expect(after.unstamped).toBe(0);
    expect([...after.versions].sort((a, b) => Number(a - b))).toEqual(Array.from({ length: plan.length }, (_, i) => before.version + BigInt(i + 1)));
    const entries = await audited(since);
    expect(entries.filter((e) => e.operation === 'createFact')).toHaveLength(plan.filter((w) => w.kind === 'fact').length);
    expect(entries.filter((e) => e.operation === 'updateEntity')).toHaveLength(plan.filter((w) => w.kind === 'state').length);
  }, 120_000);

  it('when the same fact is posted to one entity many times at once, then exactly one is written and the others answer 409', async () => {
    const text = 'Bryn sold the last sack.';
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => send(gateways[i % 2], 'POST', '/facts', { entity_id: ids.get('Bryn'), text })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(7);
    expect(await db().fact.count({ where: { entityId: ids.get('Bryn'), text, retiredAt: null } })).toBe(1);
  });

  it('when state edits of one entity race at the same expected version, then one wins and the others answer version_conflict', async () => {
    const { version } = ok(await gateways[0].request(`/projects/${projectId}/entities/${ids.get('Cael')}`, { key }));
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => send(gateways[i % 2], 'PATCH', `/entities/${ids.get('Cael')}`, { state: { winner: i }, expected_version: version })),
    );
    const won = results.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    expect(results.filter((r) => r.status === 409).map((r) => r.body.code)).toEqual(Array(5).fill('version_conflict'));
    const entity = ok(await gateways[1].request(`/projects/${projectId}/entities/${ids.get('Cael')}`, { key }));
    expect(entity.version).toBe(version + 1);
    expect(entity.currentState.winner).toBe(won[0].body.currentState.winner);
  });

  it('when new entities, some of one name and some of one key, are created at once beside facts and state edits, then each name and key is taken once and the chapters stay marked up to date', async () => {
    const { namesVersion: namesBefore } = await db().project.findUniqueOrThrow({ where: { id: projectId }, select: { namesVersion: true } });
    // One name in three spellings (names are compared lower-cased), and five names of one key ("ivo-marsh").
    const sameName = ['Wren Hale', 'wren hale', 'WREN HALE'];
    const sameKey = ['Ivo Marsh', 'Ivo-Marsh', 'Ivo  Marsh', 'Ivo Marsh!', 'ivo_marsh'];
    const results = await Promise.all([
      ...[...sameName, ...sameKey].map((name, i) => send(gateways[i % 2], 'POST', '/entities', { type: 'character', name })),
      ...people.map((person, i) => send(gateways[(i + 1) % 2], 'POST', '/facts', { entity_id: ids.get(person), text: `${person} met a stranger.` })),
      ...people.map((person, i) => send(gateways[i % 2], 'PATCH', `/entities/${ids.get(person)}`, { state: { stranger: true } })),
    ]);
    const created = results.slice(0, sameName.length + sameKey.length);
    for (const res of results.slice(created.length)) ok(res);
    expect(created.slice(0, sameName.length).filter((r) => r.status === 201)).toHaveLength(1);
    expect(created.slice(0, sameName.length).filter((r) => r.status === 409).map((r) => r.body.code)).toEqual(['name_taken', 'name_taken']);
    const keys = created.slice(sameName.length).map((r) => ok(r).key);
    expect(keys.sort()).toEqual(['ivo-marsh', 'ivo-marsh-2', 'ivo-marsh-3', 'ivo-marsh-4', 'ivo-marsh-5']);
    // The names version went up once per new entity, and every chapter is marked up to date under the names now.
    const { namesVersion } = await db().project.findUniqueOrThrow({ where: { id: projectId }, select: { namesVersion: true } });
    expect(namesVersion - namesBefore).toBe(BigInt(1 + sameKey.length));
    const { namesHash } = termsOf(await db().entity.findMany({ where: { projectId }, select: { id: true, name: true, aliases: true }, orderBy: { id: 'asc' } }));
    const chapters = await db().chapter.findMany({ where: { projectId }, select: { contentHash: true, ordinal: true, mentionHash: true } });
    expect(chapters.map((c) => c.mentionHash)).toEqual(chapters.map((c) => mentionHash(c, namesHash)));
  }, 60_000);

  it('when facts of one entity are retconned while new facts and new entities are written beside them, then each retcon replaces exactly its fact and every version is stamped', async () => {
    const dara = ids.get('Dara')!;
    const olds = await Promise.all([0, 1, 2].map(async (i) => ok(await send(gateways[0], 'POST', '/facts', { entity_id: dara, text: `Dara owes ${i} crowns.` }))));
    const before = await canonLog(-1n);
    const results = await Promise.all([
      ...olds.map((old, i) => send(gateways[i % 2], 'PATCH', `/facts/${old.id}`, { text: `Dara owes ${i + 10} crowns.` })),
      ...[0, 1, 2].map((i) => send(gateways[(i + 1) % 2], 'POST', '/facts', { entity_id: dara, text: `Dara bought ${i} mules.` })),
      ...[0, 1].map((i) => send(gateways[i % 2], 'POST', '/entities', { type: 'character', name: `Tamsin Rook${'ab'[i]}` })),
      ...[0, 1].map((i) => send(gateways[i % 2], 'PATCH', `/entities/${dara}`, { state: { mules: i } })),
    ]);
    for (const res of results) ok(res);
    const live = await db().fact.findMany({ where: { entityId: dara, retiredAt: null, text: { contains: ' crowns' } }, select: { text: true } });
    expect(live.map((f) => f.text).sort()).toEqual([10, 11, 12].map((n) => `Dara owes ${n} crowns.`));
    expect(await db().fact.count({ where: { entityId: dara, retiredAt: null, text: { contains: ' mules' } } })).toBe(3);
    const replaced = await db().fact.findMany({ where: { id: { in: olds.map((o) => o.id) } }, select: { retiredAt: true, replacedById: true } });
    expect(replaced.every((r) => r.retiredAt !== null)).toBe(true);
    const replacements = await db().fact.findMany({ where: { id: { in: replaced.map((r) => r.replacedById!) } }, select: { text: true, retiredAt: true } });
    expect(replacements.map((f) => [f.text, f.retiredAt])).toEqual(expect.arrayContaining([10, 11, 12].map((n) => [`Dara owes ${n} crowns.`, null])));
    expect(replacements).toHaveLength(3);
    const after = await canonLog(before.version);
    expect(after.unstamped).toBe(0);
    expect(after.version - before.version).toBe(BigInt(after.versions.size));
    expect(after.version - before.version).toBeGreaterThanOrEqual(BigInt(results.length));
  }, 60_000);
});
