// Graph bundles for the graph tests, and a reference answer computed straight from a bundle: breadth-first distance
// over relationships in both directions, degree (a self-loop counts once), the bounds of graphLimits, code-point order.
import { graphLimits, type GraphSubset } from '../../src/core/relationships/graphStore.ts';
import { prng } from '../support/prng.ts';

export type Bundle = {
  project: { name: string };
  entities: { key: string; type: string; name: string }[];
  relationships: { from: string; to: string; kind: string; weight: number }[];
};

const types = ['character', 'location', 'object', 'event', 'rule', 'promise'];
// Mixed case and underscores: their order differs between code points and a linguistic collation.
const kinds = ['ally_of', 'Ally_of', 'allyOf', 'b', 'B_2', 'sibling_of', 'owes', 'a_b'];

/**
 * A small hand-made graph: hub with a self-loop and two relationships to b1, a chain b1 - c1 - d1 walked against
 * the arrows from d1, and an isolated node. Names carry Cypher and SQL that must come back as plain text.
 */
export function smallGraph(name = 'Graph: small', overrides: { hubName?: string; hubB2Weight?: number } = {}): Bundle {
  return {
    project: { name },
    entities: [
      { key: 'hub', type: 'character', name: overrides.hubName ?? 'Hub' },
      { key: 'b1', type: 'character', name: "b1'}) MATCH (n) DETACH DELETE n //" },
      { key: 'b2', type: 'location', name: "b2'; DROP TABLE \"Entity\"; --" },
      { key: 'b3', type: 'object', name: 'b3 $projectId `x`' },
      { key: 'c1', type: 'event', name: 'c1' },
      { key: 'd1', type: 'rule', name: 'd1' },
      { key: 'iso', type: 'promise', name: 'iso' },
    ],
    relationships: [
      { from: 'hub', to: 'b1', kind: 'ally_of', weight: 1 },
      { from: 'hub', to: 'b1', kind: 'sibling_of', weight: 0.5 },
      { from: 'hub', to: 'b2', kind: 'ally_of', weight: overrides.hubB2Weight ?? 2 },
      { from: 'b3', to: 'hub', kind: 'owes', weight: 1 },
      { from: 'hub', to: 'hub', kind: 'mirrors', weight: 1 },
      { from: 'b1', to: 'c1', kind: 'owes', weight: 3 },
      { from: 'c1', to: 'd1', kind: 'owes', weight: 1 },
    ],
  };
}

/** A star bigger than both bounds: hub to `leaves` leaves, some leaves linked to each other (varied degrees). */
export function starGraph(name = 'Graph: star', leaves = graphLimits.neighbourhoodNodes + 40): Bundle {
  const random = prng(7);
  const entities = [{ key: 'star', type: 'character', name: 'Star' }];
  const relationships: Bundle['relationships'] = [];
  for (let i = 0; i < leaves; i++) {
    entities.push({ key: `leaf${i}`, type: types[i % types.length], name: `Leaf ${i}` });
    relationships.push({ from: 'star', to: `leaf${i}`, kind: 'ally_of', weight: 1 });
  }
  for (let i = 0; i < leaves / 3; i++) {
    const a = Math.floor(random() * leaves);
    const b = Math.floor(random() * leaves);
    relationships.push({ from: `leaf${a}`, to: `leaf${b}`, kind: kinds[i % kinds.length], weight: Math.round(random() * 100) / 10 });
  }
  return { project: { name }, entities, relationships: dedupe(relationships) };
}

/** A random graph with self-loops, parallel relationships of different kinds and unconnected nodes. */
export function randomGraph(name: string, size: { entities: number; relationships: number }, seed = 42, keyPrefix = 'e'): Bundle {
  const random = prng(seed);
  const entities = Array.from({ length: size.entities }, (_, i) => ({ key: `${keyPrefix}${i}`, type: types[i % types.length], name: `${keyPrefix.toUpperCase()} ${i}` }));
  const relationships: Bundle['relationships'] = [];
  // Skewed ends: a few well connected nodes, a long tail, and the last tenth never linked.
  const end = () => Math.floor(random() ** 2 * size.entities * 0.9);
  for (let i = 0; i < size.relationships; i++) {
    const from = end();
    const to = random() < 0.01 ? from : end();
    relationships.push({ from: `${keyPrefix}${from}`, to: `${keyPrefix}${to}`, kind: kinds[Math.floor(random() * kinds.length)], weight: Math.round(random() * 1000) / 100 });
  }
  return { project: { name }, entities, relationships: dedupe(relationships) };
}

function dedupe(relationships: Bundle['relationships']) {
  const seen = new Set<string>();
  return relationships.filter((r) => {
    const key = `${r.from}|${r.to}|${r.kind}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** What a store must answer for `bundle` once imported, given the ids the import gave its keys. */
export function expectedSubset(bundle: Bundle, idOf: Map<string, string>, root?: string, depth = 1): GraphSubset {
  const entities = new Map(bundle.entities.map((e) => [idOf.get(e.key)!, e]));
  const relationships = bundle.relationships.map((r) => ({ from: idOf.get(r.from)!, to: idOf.get(r.to)!, kind: r.kind, weight: r.weight }));
  const degree = new Map<string, number>();
  const adjacent = new Map<string, Set<string>>();
  for (const r of relationships) {
    for (const id of new Set([r.from, r.to])) degree.set(id, (degree.get(id) ?? 0) + 1);
    if (!adjacent.has(r.from)) adjacent.set(r.from, new Set());
    if (!adjacent.has(r.to)) adjacent.set(r.to, new Set());
    adjacent.get(r.from)!.add(r.to);
    adjacent.get(r.to)!.add(r.from);
  }
  const deg = (id: string) => degree.get(id) ?? 0;
  let ids: string[];
  if (root) {
    const distance = new Map([[root, 0]]);
    let frontier = [root];
    for (let d = 1; d <= depth; d++) {
      const next: string[] = [];
      for (const id of frontier) for (const n of adjacent.get(id) ?? []) if (!distance.has(n)) (distance.set(n, d), next.push(n));
      frontier = next;
    }
    ids = [...distance.keys()]
      .sort((a, b) => distance.get(a)! - distance.get(b)! || deg(b) - deg(a) || byCodePoint(a, b))
      .slice(0, graphLimits.neighbourhoodNodes);
  } else {
    ids = [...entities.keys()].sort((a, b) => deg(b) - deg(a) || byCodePoint(a, b)).slice(0, graphLimits.topNodes);
  }
  const chosen = new Set(ids);
  return {
    nodes: ids.map((id) => ({ id, label: entities.get(id)!.name, type: entities.get(id)!.type })),
    edges: relationships
      .filter((r) => chosen.has(r.from) && chosen.has(r.to))
      .sort((a, b) => byCodePoint(a.from, b.from) || byCodePoint(a.to, b.to) || byCodePoint(a.kind, b.kind)),
  };
}
