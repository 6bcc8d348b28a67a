// Dev harness: the core alone on a set, with an in-memory slice (approximate: whole canon as slice).
import { readFileSync } from 'node:fs';
import { findDeterministicConflicts } from '/work/wt/published/src/core/conflicts/deterministic.ts';
const name = process.argv[2];
if (['janeeyre', 'twocities', 'wuthering'].includes(name)) throw new Error('held out');
const dir = `/work/wt/published/test/eval/sets/${name}`;
const canon = JSON.parse(readFileSync(`${dir}/canon.json`, 'utf8'));
const { passages } = JSON.parse(readFileSync(`${dir}/passages.json`, 'utf8'));
const ord: Record<string, number> = {};
for (const c of canon.chapters ?? []) ord[c.id] = c.ordinal;
const byKey = new Map<string, any>();
for (const e of canon.entities) byKey.set(e.key, e);
const findLoc = (v: string) => canon.entities.find((e: any) => e.type === 'location' && (e.key === v || e.name === v || (e.aliases ?? []).includes(v)))?.key;
let tp = 0, fp = 0, fn = 0;
const only = process.argv[3];
for (const p of passages) {
  if (only && !p.id.includes(only)) continue;
  const position = p.chapter ? ord[p.chapter] : undefined;
  const heldAt: Record<string, string> = {};
  const entities = canon.entities.filter((e: any) => !['rule', 'promise'].includes(e.type)).map((e: any) => {
    let state = { ...e.state };
    for (const sc of e.stateChanges ?? []) if (position === undefined || ord[sc.from] <= position) state = { ...state, ...sc.state };
    if (typeof state.location === 'string') { const l = findLoc(state.location); if (l) heldAt[e.key] = l; }
    return { id: e.key, type: e.type, name: e.name, aliases: e.aliases ?? [], state, facts: (e.facts ?? []).map((f: any, i: number) => ({ id: `${e.key}#${i}`, text: typeof f === 'string' ? f : f.text })) };
  });
  const slice: any = { entities, relationships: (canon.relationships ?? []).map((r: any) => ({ id: `${r.from}>${r.kind}>${r.to}`, from: r.from, to: r.to, kind: r.kind })), rules: [], promises: [], beats: [], position, chapterOrdinals: ord, ids: new Set(), anchorsLost: [], heldAt, unaware: {}, ledger: {} };
  const hits = findDeterministicConflicts(p.text, slice, p.chapter ?? null);
  const kinds = ['dead_character_active', 'attribute_contradiction', 'location_conflict', 'relationship_contradiction'];
  const got = new Set<string>();
  const wrong: string[] = [];
  for (const h of hits.filter((h) => kinds.includes(h.kind))) {
    const keys = h.refs.map((r) => r.split(/[#>]/)[0]).concat(h.refs.filter((r) => r.includes('>')).map((r) => r.split('>')[2]));
    const m = p.expected.filter((e: any) => e.kind === h.kind && keys.includes(e.entity));
    if (m.length) m.forEach((e: any) => got.add(`${e.kind}:${e.entity}`));
    else wrong.push(`${h.kind}:${h.refs[0]} ${h.title} | ${h.rationale.slice(0, 200)}`);
  }
  const exp = p.expected.filter((e: any) => kinds.includes(e.kind)).map((e: any) => `${e.kind}:${e.entity}`);
  const miss = exp.filter((e: string) => !got.has(e));
  tp += exp.length - miss.length; fn += miss.length; fp += wrong.length;
  if (miss.length || wrong.length) console.log(`${p.id}: ${miss.length ? 'MISS ' + miss.join(',') : ''} ${wrong.length ? 'FP ' + wrong.join(' ;; ') : ''}\n    ${p.text.slice(0, 300).replace(/\n/g, ' ')}`);
}
console.log(`${name}: tp ${tp} fp ${fp} fn ${fn} P ${(tp / Math.max(1, tp + fp)).toFixed(2)} R ${(tp / Math.max(1, tp + fn)).toFixed(2)}`);
