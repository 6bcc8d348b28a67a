// Packs a brief's candidate content into a token budget, most important first: the named entities, their facts
// (a first fact of each before any second one), the relationships between them, their neighbours, the rules, the
// promises, what each named character knows and does not know yet, then the beats, latest first. An item is taken
// whole or not at all; what is left out is counted per kind.
// Items are weighed alone (an item's count stops once past the room left, so what cannot fit is not read through),
// then the chosen rendering is counted whole, and the least important items are dropped
// until it fits: a token can straddle two items' text, so only the whole count is trusted.
import { emptyContent, markdown, renderJson, renderMarkdown, sectionTitles, type BriefContent, type BriefFormat } from './render.ts';
import type { Omitted, OmittedKind } from './omitted.ts';
import type { TokenCounter } from './tokens.ts';

export type Packed = { content: BriefContent; rendering: string; tokens: number; omitted: Omitted };

type Section = keyof typeof sectionTitles;
type Item = { kind: OmittedKind; of: object; parent?: object; json: () => string; markdown: () => string; section: Section };

function itemsByPriority(candidates: BriefContent, names: Map<string, string>): Item[] {
  const items: Item[] = [];
  for (const e of candidates.entities) {
    items.push({ kind: 'entities', of: e, section: 'entities', json: () => JSON.stringify({ ...e, facts: [] }), markdown: () => markdown.entity(e) });
  }
  const longest = Math.max(0, ...candidates.entities.map((e) => e.facts.length));
  for (let i = 0; i < longest; i++) {
    for (const e of candidates.entities) {
      const f = e.facts[i];
      if (f) items.push({ kind: 'facts', of: f, parent: e, section: 'entities', json: () => JSON.stringify(f), markdown: () => markdown.fact(f) });
    }
  }
  for (const r of candidates.relationships) {
    items.push({ kind: 'relationships', of: r, section: 'relationships', json: () => JSON.stringify(r), markdown: () => markdown.relationship(r, names) });
  }
  for (const n of candidates.neighbours) {
    items.push({ kind: 'neighbours', of: n, section: 'neighbours', json: () => JSON.stringify(n), markdown: () => markdown.neighbour(n, names) });
  }
  for (const r of candidates.rules) items.push({ kind: 'rules', of: r, section: 'rules', json: () => JSON.stringify(r), markdown: () => markdown.rule(r) });
  for (const p of candidates.promises) {
    items.push({ kind: 'promises', of: p, section: 'promises', json: () => JSON.stringify(p), markdown: () => markdown.promise(p) });
  }
  for (const k of candidates.knowledge) {
    items.push({ kind: 'knowledge', of: k, section: 'knowledge', json: () => JSON.stringify(k), markdown: () => markdown.knowledge(k) });
  }
  for (const b of [...candidates.beats].reverse()) items.push({ kind: 'beats', of: b, section: 'beats', json: () => JSON.stringify(b), markdown: () => markdown.beat(b) });
  return items;
}

/** The tokens of each section's heading, counted once per process: they never change. */
const headings = new Map<Section, number>();
function headingTokens(section: Section, count: TokenCounter['count']): number {
  let tokens = headings.get(section);
  if (tokens === undefined) headings.set(section, (tokens = count(markdown.section(sectionTitles[section]))));
  return tokens;
}

/** The candidates' items that `chosen` holds, in their rendering order. */
function selected(candidates: BriefContent, chosen: Set<object>): BriefContent {
  const has = (x: object) => chosen.has(x);
  return {
    entities: candidates.entities.filter(has).map((e) => ({ ...e, facts: e.facts.filter(has) })),
    relationships: candidates.relationships.filter(has),
    neighbours: candidates.neighbours.filter(has),
    rules: candidates.rules.filter(has),
    promises: candidates.promises.filter(has),
    knowledge: candidates.knowledge.filter(has),
    beats: candidates.beats.filter(has),
  };
}

export function pack(
  candidates: BriefContent,
  options: { budget: number; format: BriefFormat; chapter: string | null; tokens: TokenCounter },
): Packed {
  const { budget, format, chapter } = options;
  const { count, within } = options.tokens;
  const names = new Map<string, string>([...candidates.entities, ...candidates.neighbours].map((e) => [e.id, e.name]));
  const render = (content: BriefContent) => (format === 'json' ? renderJson(content) : renderMarkdown(content, chapter, names));
  const omitted: Omitted = { entities: 0, facts: 0, relationships: 0, neighbours: 0, rules: 0, promises: 0, knowledge: 0, beats: 0 };
  const chosen = new Set<object>();
  const taken: Item[] = [];
  const opened = new Set<string>();
  let used = count(render(emptyContent()));
  for (const item of itemsByPriority(candidates, names)) {
    if (item.parent && !chosen.has(item.parent)) {
      omitted[item.kind]++;
      continue;
    }
    // In JSON an item costs its text and a comma; in Markdown its lines, and its section's heading if it is the first.
    const extra = format === 'json' ? 1 : opened.has(item.section) ? 0 : headingTokens(item.section, count);
    const itemTokens = within(format === 'json' ? item.json() : item.markdown(), budget - used - extra);
    if (itemTokens === false) {
      omitted[item.kind]++;
      continue;
    }
    used += itemTokens + extra;
    chosen.add(item.of);
    taken.push(item);
    opened.add(item.section);
  }
  let content = selected(candidates, chosen);
  let rendering = render(content);
  let tokens = count(rendering);
  while (tokens > budget && taken.length > 0) {
    const dropped = taken.pop()!;
    chosen.delete(dropped.of);
    omitted[dropped.kind]++;
    content = selected(candidates, chosen);
    rendering = render(content);
    tokens = count(rendering);
  }
  return { content, rendering, tokens, omitted };
}
