// Token patterns kept as data, in the manner of spaCy's Matcher: a rule is a list of slots, each matching one token by
// its lower-case form, part of speech or word class, with an operator saying how many it takes ('?' none or one, '*'
// any, '+' at least one). A rule is read around one reference to the canon: the slots before it are matched backwards
// from the word before the reference, those after it forwards from the word after it, and the words a slot `takes`
// are handed back under that name. Phrasings are added to the tables of the checks, not to their code.
import type { Token } from './nlp.ts';

export type Slot = {
  /** lower-case forms */
  words?: readonly string[];
  /** parts of speech */
  pos?: readonly string[];
  /** a word class of the lexicon, by name */
  is?: string;
  op?: '?' | '*' | '+';
  /** the name the matched words are handed back under */
  take?: string;
};
export type Rule<Meta = unknown> = { id: string; before?: Slot[]; after?: Slot[]; meta?: Meta };
export type Match = { rule: string; from: number; to: number; taken: Record<string, number[]> };
/** The word classes a table's slots may name, each a test of one token. */
export type Classes = Record<string, (t: Token) => boolean>;

function fits(slot: Slot, t: Token | undefined, classes: Classes): boolean {
  if (!t) return false;
  if (slot.words && !slot.words.includes(t.lower)) return false;
  if (slot.pos && !slot.pos.includes(t.pos)) return false;
  if (slot.is && !classes[slot.is](t)) return false;
  return true;
}

type Found = { end: number; taken: Record<string, number[]> };
type Walk = { tokens: Token[]; slots: Slot[]; dir: 1 | -1; lo: number; hi: number; classes: Classes };

/**
 * Slots from the s-th matched from token k, one step of `dir` a word, within [lo, hi]; greedy, backtracking. Returns
 * the token after the last one matched (in the direction read) and what each slot took, or undefined.
 */
function walk(w: Walk, s: number, k: number): Found | undefined {
  if (s === w.slots.length) return { end: k, taken: {} };
  const slot = w.slots[s];
  const min = slot.op === '?' || slot.op === '*' ? 0 : 1;
  const max = slot.op === '*' || slot.op === '+' ? 12 : 1;
  let n = 0;
  while (n < max && k + w.dir * n >= w.lo && k + w.dir * n <= w.hi && fits(slot, w.tokens[k + w.dir * n], w.classes)) n++;
  for (; n >= min; n--) {
    const rest = walk(w, s + 1, k + w.dir * n);
    if (!rest) continue;
    if (slot.take) {
      const mine: number[] = [];
      for (let j = 0; j < n; j++) mine.push(k + w.dir * j);
      rest.taken[slot.take] = [...(rest.taken[slot.take] ?? []), ...mine].sort((a, b) => a - b);
    }
    return rest;
  }
  return undefined;
}

const reversed = new WeakMap<Slot[], Slot[]>();
const backwards = (slots: Slot[]) => {
  let r = reversed.get(slots);
  if (!r) reversed.set(slots, (r = [...slots].reverse()));
  return r;
};
const none: Slot[] = [];

/** The first rule of the table that matches around the reference spanning tokens first..last, within its sentence. */
export function matchAround<Meta>(tokens: Token[], first: number, last: number, rules: Rule<Meta>[], classes: Classes): (Match & { meta?: Meta }) | undefined {
  const sentence = tokens[first].sentence;
  let lo = first;
  while (lo > 0 && tokens[lo - 1].sentence === sentence) lo--;
  let hi = last;
  while (hi + 1 < tokens.length && tokens[hi + 1].sentence === sentence) hi++;
  for (const rule of rules) {
    const before = walk({ tokens, slots: backwards(rule.before ?? none), dir: -1, lo, hi, classes }, 0, first - 1);
    if (!before) continue;
    const after = walk({ tokens, slots: rule.after ?? none, dir: 1, lo, hi, classes }, 0, last + 1);
    if (!after) continue;
    const taken: Record<string, number[]> = { ...before.taken };
    for (const [name, at] of Object.entries(after.taken)) taken[name] = [...(taken[name] ?? []), ...at];
    return { rule: rule.id, from: before.end + 1, to: after.end - 1, taken, meta: rule.meta };
  }
  return undefined;
}

/** The first rule of the table whose `after` slots match from token `at` on, within its sentence (`before` is ignored). */
export function matchAt<Meta>(tokens: Token[], at: number, rules: Rule<Meta>[], classes: Classes): (Match & { meta?: Meta }) | undefined {
  const sentence = tokens[at].sentence;
  let hi = at;
  while (hi + 1 < tokens.length && tokens[hi + 1].sentence === sentence) hi++;
  for (const rule of rules) {
    const m = walk({ tokens, slots: rule.after ?? none, dir: 1, lo: at, hi, classes }, 0, at);
    if (m) return { rule: rule.id, from: at, to: m.end - 1, taken: m.taken, meta: rule.meta };
  }
  return undefined;
}
