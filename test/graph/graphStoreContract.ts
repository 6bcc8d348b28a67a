// The graph store contract: every GraphStore implementation must give these answers on the same imported fixtures.
// graphStores.test.ts runs it once per store.
import { expect } from 'vitest';
import { describe, test } from '../support/neo4jTests.ts';
import { graphLimits, type GraphStore } from '../../src/core/relationships/graphStore.ts';
import { expectedSubset, type Bundle } from './fixtures.ts';

export type ImportedGraph = { projectId: string; bundle: Bundle; idOf: Map<string, string> };
export type ContractFixtures = {
  /** smallGraph, imported and then re-imported with hub renamed and a weight changed */
  small: ImportedGraph;
  /** the same small graph (same keys and names) in another project */
  smallElsewhere: ImportedGraph;
  star: ImportedGraph;
  random: ImportedGraph;
};

export function graphStoreContract(name: string, store: () => GraphStore, fixtures: () => ContractFixtures) {
  describe(`graph store contract: ${name}`, () => {
    const subset = (graph: ImportedGraph, root?: string, depth = 1) =>
      store().subset({ projectId: graph.projectId, root: root === undefined ? undefined : graph.idOf.get(root) ?? root, depth });
    const keysOf = (graph: ImportedGraph, ids: string[]) => {
      const keyOf = new Map([...graph.idOf].map(([k, id]) => [id, k]));
      return ids.map((id) => keyOf.get(id) ?? id);
    };

    test('when a root is given, then its neighbours come nearest first, then best connected, then by id', async () => {
      const { small } = fixtures();
      const byId = (...keys: string[]) => keys.sort((a, b) => (small.idOf.get(a)! < small.idOf.get(b)! ? -1 : 1));
      expect(keysOf(small, (await subset(small, 'hub', 1))!.nodes.map((n) => n.id))).toEqual(['hub', 'b1', ...byId('b2', 'b3')]);
      expect(keysOf(small, (await subset(small, 'hub', 2))!.nodes.map((n) => n.id))).toEqual(['hub', 'b1', ...byId('b2', 'b3'), 'c1']);
      expect(keysOf(small, (await subset(small, 'hub', 3))!.nodes.map((n) => n.id))).toEqual(['hub', 'b1', ...byId('b2', 'b3'), 'c1', 'd1']);
    });

    test('when the root only has incoming relationships, then the walk follows them backwards', async () => {
      const { small } = fixtures();
      expect(keysOf(small, (await subset(small, 'd1', 1))!.nodes.map((n) => n.id))).toEqual(['d1', 'c1']);
      expect(keysOf(small, (await subset(small, 'd1', 3))!.nodes.map((n) => n.id))).toEqual(['d1', 'c1', 'b1', 'hub']);
    });

    test('when nodes are returned, then the edges among them come sorted by from, to and kind, with self-loops and parallel kinds', async () => {
      const { small } = fixtures();
      const id = (key: string) => small.idOf.get(key)!;
      const answer = (await subset(small, 'hub', 1))!;
      const expected = [
        { from: id('hub'), to: id('b1'), kind: 'ally_of', weight: 1 },
        { from: id('hub'), to: id('b1'), kind: 'sibling_of', weight: 0.5 },
        { from: id('hub'), to: id('b2'), kind: 'ally_of', weight: 7.25 },
        { from: id('b3'), to: id('hub'), kind: 'owes', weight: 1 },
        { from: id('hub'), to: id('hub'), kind: 'mirrors', weight: 1 },
      ].sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.to < b.to ? -1 : a.to > b.to ? 1 : a.kind < b.kind ? -1 : 1));
      expect(answer.edges).toEqual(expected);
      // b1 - c1 is not among them: c1 is two hops away.
      expect(answer.edges.some((e) => e.to === id('c1'))).toBe(false);
    });

    test('when entities were renamed and relationships re-weighted by a later import, then the graph shows the new values', async () => {
      const { small } = fixtures();
      const answer = (await subset(small, 'hub', 1))!;
      expect(answer.nodes[0]).toEqual({ id: small.idOf.get('hub'), label: 'Hub the Renamed', type: 'character' });
      expect(answer.edges.find((e) => e.to === small.idOf.get('b2'))?.weight).toBe(7.25);
    });

    test('when names hold Cypher or SQL, then they come back as plain text', async () => {
      const { small } = fixtures();
      const labels = (await subset(small, 'hub', 1))!.nodes.map((n) => n.label);
      expect(labels).toContain("b1'}) MATCH (n) DETACH DELETE n //");
      expect(labels).toContain("b2'; DROP TABLE \"Entity\"; --");
      expect(labels).toContain('b3 $projectId `x`');
    });

    test('when the root has no relationships, then it comes alone', async () => {
      const { small } = fixtures();
      expect(await subset(small, 'iso', 3)).toEqual({ nodes: [{ id: small.idOf.get('iso'), label: 'iso', type: 'promise' }], edges: [] });
    });

    test('when no root is given, then the most connected nodes come first, unconnected ones last', async () => {
      const { small } = fixtures();
      const ids = (await subset(small))!.nodes.map((n) => n.id);
      const byId = (...keys: string[]) => keys.sort((a, b) => (small.idOf.get(a)! < small.idOf.get(b)! ? -1 : 1));
      expect(keysOf(small, ids)).toEqual(['hub', 'b1', 'c1', ...byId('b2', 'b3', 'd1'), 'iso']);
    });

    test('when the neighbourhood is bigger than the bound, then exactly the bound of nodes is kept, the same ones as the reference', async () => {
      const { star } = fixtures();
      const answer = (await subset(star, 'star', 2))!;
      expect(answer.nodes).toHaveLength(graphLimits.neighbourhoodNodes);
      expect(answer).toEqual(expectedSubset(star.bundle, star.idOf, star.idOf.get('star'), 2));
    });

    test('when there is no root and more nodes than the bound, then the top nodes are the reference ones', async () => {
      const { star, random } = fixtures();
      const top = (await subset(star))!;
      expect(top.nodes).toHaveLength(graphLimits.topNodes);
      expect(top).toEqual(expectedSubset(star.bundle, star.idOf));
      expect(await subset(random)).toEqual(expectedSubset(random.bundle, random.idOf));
    });

    test('when walking a random graph from many roots at depths 1 to 3, then every answer is the reference one', async () => {
      const { random } = fixtures();
      const keys = random.bundle.entities.map((e) => e.key).filter((_, i) => i % 7 === 0);
      for (const key of keys) {
        for (const depth of [1, 2, 3]) {
          expect(await subset(random, key, depth), `${key} at depth ${depth}`).toEqual(
            expectedSubset(random.bundle, random.idOf, random.idOf.get(key), depth),
          );
        }
      }
    }, 180_000);

    test('when the root is an entity of another project, then it is not found, and no answer ever holds a node of another project', async () => {
      const { small, smallElsewhere } = fixtures();
      const elsewhere = new Set(smallElsewhere.idOf.values());
      expect(await store().subset({ projectId: small.projectId, root: smallElsewhere.idOf.get('hub'), depth: 1 })).toBeUndefined();
      for (const key of small.idOf.keys()) {
        const answer = (await subset(small, key, 3))!;
        expect(answer.nodes.filter((n) => elsewhere.has(n.id))).toEqual([]);
        expect(answer.edges.filter((e) => elsewhere.has(e.from) || elsewhere.has(e.to))).toEqual([]);
      }
      expect((await subset(small))!.nodes.filter((n) => elsewhere.has(n.id))).toEqual([]);
      expect(keysOf(smallElsewhere, (await subset(smallElsewhere, 'hub', 1))!.nodes.map((n) => n.id))[0]).toBe('hub');
    });

    test('when the root or the project id carries an injection attempt, then nothing is found and the graph is unchanged', async () => {
      const { small } = fixtures();
      const before = await subset(small);
      const attempts = [
        "x' OR 1=1 --",
        "x'}) MATCH (n) DETACH DELETE n //",
        '"}) MATCH (n:Entity) SET n.projectId = "pwned" RETURN n //',
        `${small.idOf.get('hub')}' OR '1'='1`,
        '$projectId',
        '*',
        '',
      ];
      for (const attempt of attempts) {
        expect(await store().subset({ projectId: small.projectId, root: attempt || ' ', depth: 3 })).toBeUndefined();
        expect(await store().subset({ projectId: attempt, root: small.idOf.get('hub'), depth: 3 })).toBeUndefined();
        expect(await store().subset({ projectId: attempt, depth: 1 })).toEqual({ nodes: [], edges: [] });
      }
      expect(await subset(small)).toEqual(before);
    });

    test('when the project is unknown, then a root is not found and the top is empty', async () => {
      const { small } = fixtures();
      expect(await store().subset({ projectId: 'prj_unknown', root: small.idOf.get('hub'), depth: 1 })).toBeUndefined();
      expect(await store().subset({ projectId: 'prj_unknown', depth: 1 })).toEqual({ nodes: [], edges: [] });
    });
  });
}
