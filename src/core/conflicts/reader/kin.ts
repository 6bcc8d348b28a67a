// Kinship as the relationship graph holds it. Relationship kinds are read "<from> <kind> <to>" as "from is to's
// <kind>": the first word of the kind names the role, so child_of, son_of, daughter_of; parent_of, father_of,
// mother_of; sibling_of, brother_of, sister_of, twin_of; married_to, spouse_of, husband_of, wife_of, widow_of,
// widower_of; grandparent_of, grandmother_of…; grandchild_of, grandson_of…; uncle_of, aunt_of; nephew_of, niece_of;
// cousin_of. Kinds with "in_law", "step", "half" or "foster", and every other kind, say nothing of kinship.
import { inverseRole, kinPrefixes, kinWord, type Gender, type KinRole } from './lexicon.ts';

export type Kin = { role: KinRole; gender?: Gender };
/** The graph says `of` has `who` as its `kin` (through relationship `id`). */
export type Held = { who: string; of: string; kin: Kin; id: string };

const spouseWords = new Set(['married', 'wed', 'wedded']);

/** The kinship a relationship kind states of its `from` end, or undefined. */
export function kinOfKind(kind: string): Kin | undefined {
  const words = kind.toLowerCase().split(/[^a-z]+/).filter(Boolean);
  if (words.some((w) => kinPrefixes.has(w)) || words.join(' ').includes('in law')) return undefined;
  const first = words.find((w) => !['is', 'the', 'a', 'an'].includes(w));
  if (!first) return undefined;
  if (spouseWords.has(first)) return { role: 'spouse' };
  const kin = kinWord(first) ?? kinWord(first.replace(/s$/, ''));
  return kin ? { role: kin[0], gender: kin[1] } : undefined;
}

/** Every kinship the graph holds: both directions of each relationship. */
export function heldKinship(relationships: { id: string; from: string; to: string; kind: string }[]): Held[] {
  const held: Held[] = [];
  for (const r of relationships) {
    const kin = kinOfKind(r.kind);
    if (!kin) continue;
    held.push({ who: r.from, of: r.to, kin, id: r.id });
    held.push({ who: r.to, of: r.from, kin: { role: inverseRole[kin.role] }, id: r.id });
  }
  return held;
}
