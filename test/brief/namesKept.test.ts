// Each gateway keeps a project's names and what the brief makes of them (src/core/names/projectNames.ts), and after a
// change of names reads only the entities changed since (the NameChange log) and patches them in: under concurrent new
// entities, renames and deletions on two gateway processes, every brief after the writes names exactly the entities
// whose current names the scene holds, on both, and none by a name no entity has any longer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { spawnGateways, type GatewayProcess } from '../support/processes.ts';

type Gateway = Pick<TestGateway, 'request'>;
let here: TestGateway;
let other: GatewayProcess;
let key: string;
let projectId: string;

// Each name one word of its own, so a scene names exactly the entities whose names it holds.
const word = (n: number) => `Qu${'bcdfghjklmnprstvwz'[n % 18]}${'aeiou'[Math.floor(n / 18) % 5]}${'bcdfghjklmnprstvwz'[Math.floor(n / 90) % 18]}or`;
let next = 0;
const freshName = () => word(next++);

const brief = async (gw: Gateway, text: string): Promise<string[]> => {
  const res = await gw.request(`/projects/${projectId}/brief`, { method: 'POST', key, json: { text, budget: 200_000 } });
  expect(res.status, res.text).toBe(200);
  return (res.body.content.entities as { id: string; named_by: string }[]).filter((e) => e.named_by === 'text').map((e) => e.id).sort();
};

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  here = await startTestGateway({ DATABASE_URL: databaseUrl });
  ({ key } = await here.createKey('enterprise', { customRate: 1_000_000, customQuota: 1_000_000 }));
  const entities = Array.from({ length: 12 }, (_, i) => ({ key: `q${i}`, type: 'character', name: freshName() }));
  projectId = (await importBundle(here, key, { project: { name: 'The Quarry Rolls' }, entities })).projectId;
  [other] = await spawnGateways(1, databaseUrl);
}, 120_000);

afterAll(async () => {
  await other?.stop();
  await here?.close();
});

describe('a project\'s names kept by each gateway', () => {
  it('when entities are created, renamed and deleted on two gateways at once, then every brief after names exactly the entities the canon now has', async () => {
    const gateways: Gateway[] = [here, other];
    const recall = await here.request(`/projects/${projectId}/recall?limit=100`, { key });
    // The entities now, by id: their name and aliases; the names no entity has any longer.
    const current = new Map<string, string[]>(recall.body.entities.map((e: { id: string; canonicalName: string }) => [e.id, [e.canonicalName]]));
    const gone: string[] = [];
    const write = async (gw: Gateway, method: string, path: string, json?: unknown) => {
      const res = await gw.request(`/projects/${projectId}${path}`, { method, key, json });
      expect(res.status, res.text).toBeLessThan(300);
      return res.body;
    };
    // Both gateways hold the names before the writes.
    for (const gw of gateways) expect(await brief(gw, [...current.values()].flat().join(' '))).toEqual([...current.keys()].sort());
    let writing = true;
    // Briefs while the writes go on, so that each gateway keeps names of every version between.
    const readers = gateways.map(async (gw) => {
      while (writing) await brief(gw, [...current.values()].flat().join(' '));
    });
    try {
      for (let round = 0; round < 4; round++) {
        const ids = [...current.keys()];
        await Promise.all(gateways.map(async (gw, g) => {
          const mine = ids.filter((_, i) => i % 2 === g);
          await Promise.all([
            ...[0, 1].map(async () => {
              const name = freshName();
              const alias = freshName();
              const created = await write(gw, 'POST', '/entities', { type: 'character', name, aliases: [alias] });
              current.set(created.id, [name, alias]);
            }),
            (async () => {
              const renamed = mine[0];
              const name = freshName();
              await write(gw, 'PATCH', `/entities/${renamed}`, { name, aliases: [] });
              gone.push(...current.get(renamed)!);
              current.set(renamed, [name]);
            })(),
            (async () => {
              const deleted = mine[1];
              await write(gw, 'DELETE', `/entities/${deleted}`);
              gone.push(...current.get(deleted)!);
              current.delete(deleted);
            })(),
          ]);
        }));
        for (const gw of gateways) {
          expect(await brief(gw, [...current.values()].flat().join(' ')), `round ${round}`).toEqual([...current.keys()].sort());
          expect(await brief(gw, gone.join(' ')), `round ${round}, names gone`).toEqual([]);
          // Each entity by each of its names alone.
          for (const [id, names] of current) for (const name of names) expect(await brief(gw, `${name} waited.`)).toEqual([id]);
        }
      }
    } finally {
      writing = false;
      await Promise.all(readers);
    }
  }, 240_000);
});
