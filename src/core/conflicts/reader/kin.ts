// Kinship as the relationship graph holds it. Relationship kinds are read "<from> <kind> <to>" as "from is to's
// <kind>", from the tables in lexicon.ts: the first word of the kind names the role (child_of, son_of; parent_of,
// father_of; sibling_of, twin_of; married_to, husband_of, widow_of; grandmother_of; uncle_of, niece_of; cousin_of;
// engaged_to, betrothed_to, guardian_of, ward_of), past words that keep it ("great_aunt_of", "elder_brother_of"), and
// a bond makes another role of it (step_father_of, half_sister_of, brother_in_law_of, adoptive_mother_of). Every other
// kind ("serves", "godson_of", "ex_wife_of") says nothing of kinship.
import type { Token } from './nlp.ts';
import { inverseRole, kinBonds, kinKinds, kinModifiers, kinPrefixes, kinWord, type Gender, type KinRole } from './lexicon.ts';

export type Kin = { role: KinRole; gender?: Gender };
/** The graph says `of` has `who` as its `kin` (through relationship `id`). */
export type Held = { who: string; of: string; kin: Kin; id: string };

const spouseWords = new Set(['married', 'wed', 'wedded']);
const fillers = new Set(['is', 'the', 'a', 'an', 'of', 'to']);

/** The role a bond makes of `kin`: undefined when the bond names no kinship of that role ("godfather", "half-uncle"). */
function bonded(kin: Kin, bond: string | undefined): Kin | undefined {
  if (bond === undefined) return kin;
  const role = kinBonds[bond]?.[kin.role];
  return role ? { role, gender: kin.gender } : undefined;
}

/** The kinship a relationship kind states of its `from` end, or undefined. */
export function kinOfKind(kind: string): Kin | undefined {
  const words = kind.toLowerCase().split(/[^\p{L}]+/u).filter(Boolean);
  const inLaw = words.findIndex((w, i) => w === 'in' && words[i + 1] === 'law');
  const bonds = [...(inLaw >= 0 ? ['in law'] : []), ...words.filter((w) => w in kinBonds)];
  if (bonds.length > 1) return undefined;
  const first = words.find((w, i) => !fillers.has(w) && !kinModifiers.has(w) && !(w in kinBonds) && !(inLaw >= 0 && i >= inLaw && i <= inLaw + 1));
  if (!first) return undefined;
  if (spouseWords.has(first)) return bonded({ role: 'spouse' }, bonds[0]);
  const word = kinWord(first) ?? kinWord(first.replace(/s$/, '')) ?? kinKinds[first];
  return word ? bonded({ role: word[0], gender: word[1] }, bonds[0]) : undefined;
}

/**
 * The kin word starting at token k, read whole: "brother", "stepmother", "step-father", "half-brother",
 * "foster mother", "brother-in-law", "father in law". `last` is its last token. Undefined when the words there name no
 * kin role, or one no bond row gives ("god-father", "half-uncle").
 */
export function kinWordAt(tokens: Token[], k: number): { kin: Kin; word: string; last: number } | undefined {
  const t = tokens[k];
  if (!t) return undefined;
  const prefix = kinPrefixes.has(t.lower) ? t.lower : undefined;
  const at = prefix === undefined ? k : tokens[k + 1]?.text === '-' ? k + 2 : k + 1;
  const head = tokens[at];
  if (!head || (head.pos !== 'NOUN' && head.pos !== 'PROPN')) return undefined;
  const found = kinWord(head.lower);
  if (!found) return undefined;
  // "brother-in-law", "brother in law"
  const hyphened = tokens[at + 1]?.text === '-';
  const inLaw = tokens[at + (hyphened ? 1 : 0) + 1]?.lower === 'in' && tokens[at + (hyphened ? 3 : 2)]?.lower === 'law' && (!hyphened || tokens[at + 3]?.text === '-');
  // Any other hyphen joins a compound the tables do not read ("brother-officer").
  if (hyphened && !inLaw) return undefined;
  if (prefix !== undefined && inLaw) return undefined;
  const last = inLaw ? at + (hyphened ? 4 : 2) : at;
  const kin = bonded({ role: found[0], gender: found[1] }, prefix ?? (inLaw ? 'in law' : undefined));
  if (!kin) return undefined;
  const word = tokens.slice(k, last + 1).map((w) => w.text).join(' ').replace(/ - /g, '-');
  return { kin, word, last };
}

/**
 * The kin word after a possessor at token k, past words that qualify it ("my poor mother", "his copper-haired
 * brother", "her great-aunt"): `at` is where it starts.
 */
export function kinAfter(tokens: Token[], k: number): { at: number; found: ReturnType<typeof kinWordAt> } {
  for (const limit = k + 5; k >= 0 && k < limit && tokens[k] && !kinWord(tokens[k].lower) && !kinPrefixes.has(tokens[k].lower); k++) {
    const t = tokens[k];
    if (!(t.pos === 'ADJ' || kinModifiers.has(t.lower) || t.text === '-' || tokens[k + 1]?.text === '-' || tokens[k - 1]?.text === '-')) break;
  }
  return { at: k, found: k >= 0 ? kinWordAt(tokens, k) : undefined };
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
