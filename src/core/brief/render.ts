// A brief's content and its two renderings: compact JSON, and Markdown to paste into a prompt. Both render the same
// items; each item carries its id so an assistant can cite it.

export type BriefFact = { id: string; text: string };
export type BriefRelationship = { id: string; from: string; kind: string; to: string };
/** How an entity came into the brief: named in the text, given by id, or a relative a kin word points to. */
export type NamedBy = 'text' | 'id' | 'kin';
export type BriefEntity = {
  id: string;
  type: string;
  name: string;
  aliases: string[];
  state: Record<string, unknown>;
  named_by: NamedBy;
  facts: BriefFact[];
};
/** An entity one relationship away from a named one. */
export type BriefNeighbour = { id: string; type: string; name: string; state: Record<string, unknown>; relationships: BriefRelationship[] };
export type BriefRule = { id: string; name: string; facts: BriefFact[] };
/** An open promise: the chapter that set it up and the chapters since (null without a setup). */
export type BriefPromise = { id: string; name: string; set_up_in: string | null; age: number | null; facts: BriefFact[] };
export type BriefBeat = { id: string; chapter: string; summary: string };
/** A named character's knowledge (src/core/knowledge): the tracked facts it knows, and those the reader knows that it does not yet. */
export type BriefKnowledge = { id: string; name: string; knows: BriefFact[]; unaware: BriefFact[] };

export type BriefContent = {
  entities: BriefEntity[];
  relationships: BriefRelationship[];
  neighbours: BriefNeighbour[];
  rules: BriefRule[];
  promises: BriefPromise[];
  knowledge: BriefKnowledge[];
  beats: BriefBeat[];
};

export const emptyContent = (): BriefContent => ({ entities: [], relationships: [], neighbours: [], rules: [], promises: [], knowledge: [], beats: [] });

export type BriefFormat = 'json' | 'markdown';

export const renderJson = (content: BriefContent): string => JSON.stringify(content);

const facts = (list: BriefFact[]) => list.map((f) => `\n  - ${f.text} \`${f.id}\``).join('');
const value = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
const stateLine = (state: Record<string, unknown>) =>
  Object.entries(state)
    .map(([k, v]) => `${k}: ${value(v)}`)
    .join('; ');

/** Markdown pieces, one function per item, so the packer can weigh an item alone. */
export const markdown = {
  title: (chapter: string | null) => `# Canon brief${chapter ? ` as of ${chapter}` : ''}\n`,
  section: (title: string) => `\n## ${title}\n`,
  entity(e: BriefEntity): string {
    const lines = [`\n### ${e.name} (${e.type}) \`${e.id}\`${e.named_by === 'kin' ? ' (a relative the scene names by a kin word)' : ''}`];
    if (e.aliases.length > 0) lines.push(`Also called: ${e.aliases.join(', ')}`);
    const state = stateLine(e.state);
    if (state) lines.push(`State: ${state}`);
    return `${lines.join('\n')}\n`;
  },
  fact: (f: BriefFact) => `- ${f.text} \`${f.id}\`\n`,
  relationship: (r: BriefRelationship, names: Map<string, string>) => `- ${names.get(r.from) ?? r.from} ${r.kind} ${names.get(r.to) ?? r.to} \`${r.id}\`\n`,
  neighbour(n: BriefNeighbour, names: Map<string, string>): string {
    const state = stateLine(n.state);
    const via = n.relationships.map((r) => `${names.get(r.from) ?? r.from} ${r.kind} ${names.get(r.to) ?? r.to} \`${r.id}\``).join('; ');
    return `- ${n.name} (${n.type}) \`${n.id}\`${state ? `; ${state}` : ''}: ${via}\n`;
  },
  rule: (r: BriefRule) => `- ${r.name} \`${r.id}\`${facts(r.facts)}\n`,
  promise: (p: BriefPromise) =>
    `- ${p.name} \`${p.id}\`${p.set_up_in ? ` (set up in ${p.set_up_in}, ${p.age} chapters ago)` : ''}${facts(p.facts)}\n`,
  knowledge: (k: BriefKnowledge) =>
    `- ${k.name} \`${k.id}\`${k.knows.length ? `\n  - knows:${facts(k.knows).replaceAll('\n  -', '\n    -')}` : ''}${k.unaware.length ? `\n  - does not know yet:${facts(k.unaware).replaceAll('\n  -', '\n    -')}` : ''}\n`,
  beat: (b: BriefBeat) => `- ${b.chapter}: ${b.summary} \`${b.id}\`\n`,
};

export const sectionTitles = {
  entities: 'Named in the scene',
  relationships: 'Between them',
  neighbours: 'One step away',
  rules: 'Rules',
  promises: 'Open promises',
  knowledge: 'Who knows what',
  beats: 'Last beats',
} as const;

/** The Markdown rendering: sections in priority order, each only when it has items. */
export function renderMarkdown(content: BriefContent, chapter: string | null, names: Map<string, string>): string {
  let out = markdown.title(chapter);
  if (content.entities.length > 0) {
    out += markdown.section(sectionTitles.entities);
    for (const e of content.entities) out += markdown.entity(e) + e.facts.map(markdown.fact).join('');
  }
  if (content.relationships.length > 0) out += markdown.section(sectionTitles.relationships) + content.relationships.map((r) => markdown.relationship(r, names)).join('');
  if (content.neighbours.length > 0) out += markdown.section(sectionTitles.neighbours) + content.neighbours.map((n) => markdown.neighbour(n, names)).join('');
  if (content.rules.length > 0) out += markdown.section(sectionTitles.rules) + content.rules.map(markdown.rule).join('');
  if (content.promises.length > 0) out += markdown.section(sectionTitles.promises) + content.promises.map(markdown.promise).join('');
  if (content.knowledge.length > 0) out += markdown.section(sectionTitles.knowledge) + content.knowledge.map(markdown.knowledge).join('');
  if (content.beats.length > 0) out += markdown.section(sectionTitles.beats) + content.beats.map(markdown.beat).join('');
  return out;
}
