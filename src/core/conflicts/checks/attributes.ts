// A stated eye colour, hair colour, age or title that contradicts the canon (the entity's state as of the passage's
// chapter, its facts of the form "X's eyes are grey", and the titles its own names carry, such as "Captain Crowe").
// Read wherever an editor would: "X's blue eyes", "her blue eyes" (pronoun resolved), "X's eyes, like …, were a cold
// blue", "X had dark brown eyes and black hair", "the red-haired Abbess", "X, whose green eyes…", "X, her hair still
// black,"; "X, 42,", "X, who was thirty-five that winter,", "X, a widow of forty,", "X came in, a man of sixty,", "the thirty-year-old X", "X turned
// twenty", "X had seen sixty summers", "X, …, having just reached twenty", '"I'm fifteen," said X', and ranges ("X, not yet fifty,", "X was past sixty",
// "about seventeen", "fifteen or so", "in her nineteenth year", "shall be twenty in September"), which agree with any
// canon age inside them; every feature of a list after "with" ("with blue eyes and black hair"); titles before the
// name ("Prioress Hilde", "Lt. Sato"), after it ("X, Abbot of Saint Ives,"; "X the Prior"), or as a predicate ("X was
// captain of the guard"). A colour followed by "with"/"from" is a passing state ("grey with dust", "red from
// weeping"), red eyes are sore eyes, vague shades ("dark") stated alone contradict nothing (a shade the canon gives
// alone is read as the colours it means: lexicon `loneShades`), an age told of an earlier time ("was six when…", "when X was six", "At sixty, X…") contradicts only an
// older canon age than it gives, and a change ("her hair turned white") is an event.
import type { SliceEntity } from '../canonSlice.ts';
import type { ConflictDraft } from '../kinds.ts';
import {
  ageLabels,
  agePerfectOpeners,
  agePerfectParticiples,
  ageRangesAfter,
  ageRangesBefore,
  ageReaching,
  type AgeRange,
  apposing,
  attributeCompounds,
  attributeNouns,
  changing,
  colourFamiliesOf,
  colours,
  genderOfWord,
  hypothetical,
  feelings,
  lifeYearDeterminers,
  lifeYearNouns,
  type ColourAttribute,
  kinWord,
  linking,
  loneShades,
  longestTitle,
  normaliseTitle,
  pastAge,
  people,
  personNouns,
  quotedClaims,
  shades,
  soreEyeColours,
  thinking,
  titlesAgree,
} from '../reader/lexicon.ts';
import { heldKinship } from '../reader/kin.ts';
import { verbIn, type Token } from '../reader/nlp.ts';
import { matchAround, type Classes, type Rule, type Slot } from '../reader/patterns.ts';
import { fits } from '../reader/pronouns.ts';
import type { Ref } from '../reader/references.ts';
import { continuedSpeaker, quotations, speakerNear, type Quotation } from '../reader/speech.ts';
import { asserts, clauseStart, moodOf, predicatesOf } from '../reader/syntax.ts';
import { addresseeOf } from './kinship.ts';
import { quoteAt, refsOf, spanAt, traceClaim, type Passage } from './passage.ts';

type Attribute = ColourAttribute | 'age' | 'title';
/**
 * `bygone`: an age told of an earlier time ("was six when…", "At sixty, X…"): wrong only when older than the canon's.
 * `range`: an age told as a range ("not yet fifty", "past sixty", "about seventeen", "fifteen or so"; lexicon
 * ageRangesBefore/After), "coming" when it is the age to come ("shall be twenty in September"), "year" when it counts
 * the year of life ("in her nineteenth year"): wrong only when the canon's is outside it.
 */
type Statement = { attribute: Attribute; value: string; from: number; to: number; bygone?: boolean; range?: StatedRange };
type StatedRange = AgeRange | 'coming' | 'year';
type CanonValue = { values: string[]; ref: string };

/** The ages a stated age with its range allows, inclusive. */
function ageSpan(n: number, range: StatedRange | undefined): [number, number] {
  const slack = Math.max(2, Math.round(n / 10));
  switch (range) {
    case 'under': return [-Infinity, n - 1];
    case 'atMost': return [-Infinity, n];
    case 'over': return [n + 1, Infinity];
    case 'atLeast': return [n, Infinity];
    case 'about': return [n - slack, n + slack];
    case 'nearly': return [n - slack, n];
    case 'justOver': return [n, n + slack];
    // "shall be twenty in September": nineteen now, or twenty already when the canon counts the coming birthday
    case 'coming': return [n - 2, n];
    // "in her nineteenth year": eighteen, or nineteen as a reader rounds it
    case 'year': return [n - 1, n];
    default: return [n, n];
  }
}
const rangeWords: Record<string, string> = { under: 'under ', atMost: 'at most ', over: 'over ', atLeast: 'at least ', about: 'about ', nearly: 'nearly ', justOver: 'just over ', coming: 'soon ', year: 'in year ' };

const labels: Record<Attribute, string> = { eyes: 'eye colour', hair: 'hair colour', eyebrows: 'eyebrow colour', age: 'age', title: 'title' };
const stateKeys: Record<string, Attribute> = {
  eyes: 'eyes', eye: 'eyes', eye_colour: 'eyes', eye_color: 'eyes', eyecolour: 'eyes', eyecolor: 'eyes',
  hair: 'hair', hair_colour: 'hair', hair_color: 'hair', haircolour: 'hair', haircolor: 'hair',
  eyebrows: 'eyebrows', brows: 'eyebrows', eyebrow: 'eyebrows',
  age: 'age', title: 'title', rank: 'title',
};
const wordPattern = /[\p{L}\p{N}]+/gu;

/** What the canon holds of each attribute: state values, then facts "X's eyes are grey", then titles in the names. */
export function canonAttributes(e: SliceEntity): Map<Attribute, CanonValue> {
  const found = new Map<Attribute, CanonValue>();
  for (const [key, value] of Object.entries(e.state)) {
    const attribute = stateKeys[key.toLowerCase()];
    if (attribute && (typeof value === 'string' || typeof value === 'number')) found.set(attribute, { values: [String(value).toLowerCase()], ref: e.id });
  }
  const names = [e.name, ...e.aliases].map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const pattern = new RegExp(`^(?:${names})['’]s\\s+(\\w+)\\s+(?:is|are|was|were)\\s+([\\w\\s-]+?)\\.?$`, 'i');
  for (const fact of e.facts) {
    const match = pattern.exec(fact.text.trim());
    const attribute = match && stateKeys[match[1].toLowerCase()];
    if (attribute && !found.has(attribute)) found.set(attribute, { values: [match[2].toLowerCase()], ref: fact.id });
  }
  // Titles the entity's own names carry ("Captain Crowe", "the old Captain", "Dr. Castell") are canon too.
  const named = [e.name, ...e.aliases].flatMap((n) => {
    const w = n.match(wordPattern) ?? [];
    const titles: string[] = [];
    for (let i = 0; i < w.length; i++) {
      for (let n2 = Math.min(longestTitle, w.length - i); n2 >= 1; n2--) {
        const t = normaliseTitle(w.slice(i, i + n2));
        if (t) {
          titles.push(t);
          break;
        }
      }
    }
    return titles;
  });
  if (named.length > 0) {
    const title = found.get('title');
    found.set('title', { values: [...new Set([...(title?.values ?? []), ...named])], ref: title?.ref ?? e.id });
  }
  return found;
}

const units = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const tens = ['twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
/** A number, as the tagger reads it or as a number word it misreads ("about seventeen" tagged a noun). */
const isNumber = (t: Token | undefined) => t !== undefined && (t.pos === 'NUM' || units.includes(t.lower) || tens.includes(t.lower) || /^\d{1,3}$/.test(t.text));

function numberValue(words: string[]): number | undefined {
  if (words.length === 1 && /^\d{1,3}$/.test(words[0])) return Number(words[0]);
  let total = 0;
  for (const w of words) {
    if (w === 'hundred') total = (total || 1) * 100;
    else if (tens.includes(w)) total += (tens.indexOf(w) + 2) * 10;
    else if (units.includes(w)) total += units.indexOf(w);
    else if (w !== 'and') return undefined;
  }
  return total;
}

/** A number at token i ("42", "thirty-five", "a hundred and two"): its value and last token. */
function numberAt(tokens: Token[], i: number): { value: number; last: number } | undefined {
  if (!isNumber(tokens[i])) return undefined;
  const parts = [tokens[i].lower];
  let last = i;
  while (tokens[last + 1] && ((tokens[last + 1].text === '-' && isNumber(tokens[last + 2])) || (tokens[last + 1].lower === 'and' && isNumber(tokens[last + 2])))) {
    parts.push(tokens[last + 2].lower);
    last += 2;
  }
  // "five-and-twenty": the units before the tens, the old way.
  if (tokens[last + 1]?.text === '-' && tokens[last + 2]?.lower === 'and' && tokens[last + 3]?.text === '-' && isNumber(tokens[last + 4])) {
    parts.unshift(tokens[last + 4].lower);
    last += 4;
  }
  const value = numberValue(parts.flatMap((p) => p.split('-')));
  return value === undefined ? undefined : { value, last };
}

/** After an age: "years old", "years of age"; returns the last token of that tail (or the number's). */
function ageTail(tokens: Token[], last: number): number {
  const [a, b, c] = [tokens[last + 1], tokens[last + 2], tokens[last + 3]];
  if (a && /^years?$/.test(a.lower) && b?.lower === 'old') return last + 2;
  if (a && /^years?$/.test(a.lower) && b?.lower === 'of' && c?.lower === 'age') return last + 3;
  // "a youth of thirty winters": the old way of counting years.
  if (a && /^(winters?|summers?)$/.test(a.lower)) return last + 1;
  if (a?.text === '-' && b && /^years?$/.test(b.lower)) return tokens[last + 3]?.text === '-' && tokens[last + 4]?.lower === 'old' ? last + 4 : last + 2;
  return last;
}

/** "a widow of", "a young man of" at token k: where the number after "of" starts. */
function personOfAge(tokens: Token[], k: number): number | undefined {
  if (!['a', 'an'].includes(tokens[k]?.lower ?? '')) return undefined;
  let j = k + 1;
  // "a rosy, smooth-haired, bright-eyed girl of ten", "a stout, well-grown girl of eighteen", "a tall, heavy-looking
  // young man of five-and-forty" (the tagger reads some of these adjectives as nouns: one before a comma or hyphen)
  const describing = (i: number) => {
    const t = tokens[i];
    if (!t) return false;
    return t.pos === 'ADJ' || t.pos === 'ADV' || t.text === ',' || t.text === '-' || (t.pos === 'VERB' && (/(ed|en|ing)$/.test(t.lower) || tokens[i - 1]?.text === '-')) || (t.pos === 'NOUN' && [',', '-'].includes(tokens[i + 1]?.text ?? ''));
  };
  while (describing(j)) j++;
  return tokens[j]?.pos === 'NOUN' && tokens[j + 1]?.lower === 'of' && isNumber(tokens[j + 2]) ? j + 2 : undefined;
}

/** Whether an age phrase ends where an age ends: a clause boundary, or "that winter", "this year", "today". */
/** Clause openers that set a time ("when X was six"): an age in their clause is told of that time. */
const temporal = new Set(['when', 'while', 'whenever', 'before', 'after', 'until', 'till', 'since', 'once', 'as']);

function endsAge(tokens: Token[], k: number): boolean {
  const t = tokens[k];
  // "a girl of eighteen, with a fine complexion": a description goes on.
  if (!t || t.pos === 'PUNCT' || t.lower === 'and' || t.lower === 'but' || t.lower === 'with') return true;
  if (pastAge.has(t.lower)) return false;
  // "that winter", "last June"
  const next = tokens[k + 1];
  if (['that', 'this', 'last', 'next'].includes(t.lower) && next && (next.pos === 'NOUN' || calendar.has(next.lower))) return true;
  // "in May", "in the spring", "in 1901": a time, not what was counted.
  if (['in', 'on', 'by', 'during'].includes(t.lower)) {
    const when = tokens[k + 1]?.pos === 'DET' ? tokens[k + 2] : tokens[k + 1];
    return when !== undefined && (calendar.has(when.lower) || /^\d{3,4}$/.test(when.text));
  }
  return ['today', 'tonight', 'now', 'tomorrow'].includes(t.lower);
}

/** Whether a time to come starts at token k: "next month", "tomorrow", "soon", "in May", "this spring". */
function comingTime(tokens: Token[], k: number): boolean {
  const t = tokens[k];
  if (!t) return false;
  if (['tomorrow', 'soon', 'next'].includes(t.lower)) return true;
  const when = tokens[k + 1]?.pos === 'DET' ? tokens[k + 2] : tokens[k + 1];
  return ['in', 'on', 'this'].includes(t.lower) && when !== undefined && calendar.has(when.lower);
}

const calendar = new Set(
  'january february march april may june july august september october november december spring summer autumn fall winter year christmas easter midsummer michaelmas lammas'.split(' '),
);

/** The colour words among tokens from..to. */
function coloursIn(tokens: Token[], from: number, to: number): string[] {
  const found: string[] = [];
  for (let k = from; k <= to; k++) if (colours.has(tokens[k].lower)) found.push(tokens[k].lower);
  return found;
}

const clauseEnds = new Set(['.', ';', ':', '!', '?', '--', '—', '–']);
const colourClasses: Classes = {
  colour: (t) => colours.has(t.lower),
  // "raven-black", "iron-gray": a colour compound is a run of colours parted by hyphens
  modifier: (t) => t.pos === 'ADJ' || t.pos === 'ADV' || colours.has(t.lower) || t.text === ',' || t.text === '-',
  attributeNoun: (t) => attributeNouns[t.lower] !== undefined,
  compoundSuffix: (t) => attributeCompounds[t.lower] !== undefined,
  possessiveMark: (t) => /^['’]s$/.test(t.lower),
  // the tagger reads some adjectives of a description as nouns ("a stout little man")
  describing: (t) => t.pos === 'ADJ' || t.pos === 'ADV' || t.pos === 'NOUN' || t.text === ',' || t.text === '-' || (t.pos === 'VERB' && /(ed|ing)$/.test(t.lower)),
  // the other features of one list after "with" ("with a mouth like a fish, dull staring eyes, and raven-black hair");
  // a second "with" starts another description, which may be of another time ("…, and with dark brown hair")
  feature: (t) => t.lower !== 'with' && !clauseEnds.has(t.text) && t.pos !== 'AUX' && (t.pos !== 'VERB' || /(ed|ing)$/.test(t.lower)) && t.pos !== 'PRON' && !/^['’]s$/.test(t.lower),
  person: (t) => t.pos === 'NOUN' && (people.has(t.lemma) || personNouns.has(t.lemma)),
  be: (t) => t.lemma === 'be' && (t.pos === 'AUX' || t.pos === 'VERB'),
  // what opens an apposition: a comma, or a dash ("Morgan--an old, red-haired sailor--")
  apposing: (t) => apposing.has(t.text),
  // "short, plump, and fair": adjectives in a row, parted by commas and "and" (the tagger reads some as nouns: "plump")
  adjectives: (t) => t.pos === 'ADJ' || t.pos === 'ADV' || t.pos === 'NOUN' || t.text === ',' || t.lower === 'and',
};
const colourRun: Slot[] = [{ is: 'modifier', op: '*' }, { is: 'colour', op: '+', take: 'colour' }];
const compound: Slot[] = [...colourRun, { words: ['-'] }, { is: 'compoundSuffix', take: 'noun' }];
/** "with curls of black hair", "with a mouth like a fish, dull staring eyes, and raven-black hair" */
const withFeature: Slot[] = [{ words: ['with'], take: 'with' }, { is: 'feature', op: '*' }, { is: 'modifier', op: '*' }, { is: 'attributeNoun', take: 'noun' }];

/**
 * Literary phrasings of a colour, read around a reference to the one it is said of (the words `colour` takes, of the
 * attribute the word `noun` takes names). `subject`: only when the reference is its clause's subject.
 */
const colourRules: Rule<{ subject?: boolean; whole?: boolean; list?: boolean; own?: boolean }>[] = [
  // "the deep auburn of Nell's hair", "the brown of his eyes"
  { id: 'colour-noun', before: [{ pos: ['DET'], op: '?' }, ...colourRun, { words: ['of'] }], after: [{ is: 'possessiveMark', op: '?' }, { is: 'modifier', op: '*' }, { is: 'attributeNoun', take: 'noun' }] },
  // "Nell, a grey-eyed girl of twenty-four,", "Morgan--an old, red-haired, mahogany-faced sailor--"
  { id: 'compound-apposition', after: [{ is: 'apposing' }, { words: ['a', 'an', 'the'] }, { is: 'describing', op: '*' }, ...compound] },
  // "Jem was a grey-eyed boy"
  { id: 'compound-predicate', after: [{ is: 'be' }, { pos: ['ADV'], op: '*' }, { words: ['a', 'an'] }, ...compound], meta: { subject: true } },
  // "the blue eyes of Eleanor Bellamy"
  { id: 'noun-of-name', before: [{ words: ['the'] }, ...colourRun, { is: 'attributeNoun', take: 'noun' }, { words: ['of'] }], meta: { whole: true } },
  // "Harcourt was a tall, spare man with blue eyes", "Crane, a stout little man with black hair,"
  // "Joe was a fair man, with curls of black hair", "a slow man, with a mouth like a fish, dull staring eyes, and
  // raven-black hair": the colour of one feature in the list after "with"
  // Every feature of the list is read ("with blue eyes and black hair": both), by withList.
  { id: 'with-predicate', after: [{ is: 'be' }, { pos: ['ADV'], op: '*' }, { words: ['a', 'an'] }, { is: 'describing', op: '*' }, { is: 'person' }, { words: [','], op: '?' }, ...withFeature], meta: { subject: true, list: true } },
  { id: 'with-apposition', after: [{ is: 'apposing' }, { words: ['a', 'an'] }, { is: 'describing', op: '*' }, { is: 'person' }, { words: [','], op: '?' }, ...withFeature], meta: { list: true } },
  // "My sister, Mrs. Joe, with fair hair and blue eyes, had…"
  { id: 'with-bare-apposition', after: [{ is: 'apposing' }, ...withFeature], meta: { list: true } },
  // "Jem came in, a boy with blue eyes and red hair": an apposition closing the subject's clause is the subject's
  { id: 'with-closing-apposition', after: [{ pos: ['VERB'] }, { pos: ['ADV', 'ADP'], op: '*' }, { is: 'apposing' }, { words: ['a', 'an'] }, { is: 'describing', op: '*' }, { is: 'person' }, { words: [','], op: '?' }, ...withFeature], meta: { subject: true, list: true } },
  // "Nell looked up with eyes of a deep grey", "Jem stared with wide blue eyes": the subject's own features
  { id: 'with-manner', after: [{ pos: ['VERB'] }, { pos: ['ADV', 'ADP'], op: '*' }, { words: ['with'], take: 'with' }, { is: 'modifier', op: '*' }, { is: 'attributeNoun', take: 'noun' }], meta: { subject: true, list: true } },
  // "She was short, plump, and fair, with a fine bloom, blue eyes, dark hair": adjectives for a predicate, then the
  // list after a comma and "with" (without the comma, "was angry with…" is what the adjective is said of); `own`: not a
  // feature someone else's "of" follows ("She was silent, with the fair hair of her cousin against her cheek")
  { id: 'with-adjective-predicate', after: [{ is: 'be' }, { pos: ['ADV'], op: '*' }, { pos: ['ADJ'] }, { is: 'adjectives', op: '*' }, { words: [','] }, ...withFeature], meta: { subject: true, list: true, own: true } },
];
/**
 * Ages told in an apposition closing the subject's clause, read around the subject: "he presented himself—a tall, stout
 * man of eighty,", "Jem came in, a lad of fifteen" (the age after the person noun's "of": personOfAge).
 */
const ageRules: Rule[] = [
  { id: 'age-closing-apposition', after: [{ pos: ['VERB'] }, { words: ['himself', 'herself'], op: '?' }, { pos: ['ADV', 'ADP'], op: '*' }, { is: 'apposing' }] },
];
/**
 * The colours of each feature in a list after "with", from the token after it to `to`: the colours right before each
 * attribute noun ("with a mouth like a fish, dull staring eyes, and raven-black hair"; "with blue eyes and black hair"
 * gives both) or told after it ("with eyes of such a very undecided blue").
 */
function withList(p: Passage, from: number, to: number, subject: number): Statement[] {
  const { tokens } = p.reading;
  const statements: Statement[] = [];
  for (let k = from; k <= to; k++) {
    const attribute = attributeNouns[tokens[k].lower];
    if (!attribute || (tokens[k + 1] && attributeNouns[tokens[k + 1].lower])) continue;
    const run: string[] = [];
    let j = k - 1;
    while (j >= from && (colourClasses.modifier(tokens[j]) || (tokens[j].pos === 'VERB' && /(ed|ing)$/.test(tokens[j].lower)))) {
      if (colours.has(tokens[j].lower)) run.unshift(tokens[j].lower);
      j--;
    }
    const asserted = (a: number, b: number) => tokens.slice(a, b + 1).every((t, i) => p.syntax.unasserted[a + i] === undefined && !t.negated);
    if (run.length > 0 && asserted(j + 1, k)) statements.push({ attribute, value: run.join(' '), from: subject, to: k });
    else {
      const of = colourAfterNoun(p, attribute, subject, k);
      if (of) statements.push(of);
    }
  }
  return statements;
}

/** A colour told after its noun: "hair of a dull brown", "eyes of the palest grey", "eyes of such a very undecided blue". */
const afterNounRules: Rule[] = [{ id: 'of-a-colour', after: [{ words: ['of'] }, { words: ['such'], op: '?' }, { words: ['a', 'an', 'the'], op: '?' }, ...colourRun] }];

/** The colour after an attribute noun at `head` by one of afterNounRules, unless a noun follows it ("eyes of a grey cat"). */
function colourAfterNoun(p: Passage, attribute: ColourAttribute, from: number, head: number): Statement | undefined {
  const { tokens } = p.reading;
  const m = matchAround(tokens, head, head, afterNounRules, colourClasses);
  if (!m || tokens[m.to + 1]?.pos === 'NOUN' || ['with', 'from'].includes(tokens[m.to + 1]?.lower ?? '')) return undefined;
  const asserted = tokens.slice(head, m.to + 1).every((t, j) => p.syntax.unasserted[head + j] === undefined && !t.negated);
  return asserted ? { attribute, value: m.taken.colour.map((k) => tokens[k].lower).join(' '), from, to: m.to } : undefined;
}

/** The statements of eye and hair colour made of the entity a reference points at. */
function colourStatements(p: Passage, ref: Ref): Statement[] {
  const { tokens } = p.reading;
  const { syntax } = p;
  const statements: Statement[] = [];
  const sentence = tokens[ref.first].sentence;
  const inSentence = (k: number) => k < tokens.length && tokens[k].sentence === sentence;
  const asserted = (k: number) => syntax.unasserted[k] === undefined && !tokens[k].negated;

  // A possessive: "X's …", "her …", "X, whose …".
  let np = -1;
  if (ref.pronoun === 'possessive') np = ref.last + 1;
  else if (!ref.pronoun && tokens[ref.last + 1] && /^['’]s$/.test(tokens[ref.last + 1].lower)) np = ref.last + 2;
  else if (!ref.pronoun && tokens[ref.last + 1]?.text === ',' && tokens[ref.last + 2]?.lower === 'whose') np = ref.last + 3;
  if (np >= 0) {
    let k = np;
    // Modifiers up to the noun, participles among them ("his cropped black hair").
    // "her green, tired eyes": adjectives may be parted by commas.
    const modifier = (t: Token, j: number) =>
      t.pos === 'ADJ' || t.pos === 'ADV' || t.text === '-' || colours.has(t.lower) || (t.pos === 'VERB' && /(ed|en)$/.test(t.lower)) || (t.text === ',' && j > np && (tokens[j + 1]?.pos === 'ADJ' || colours.has(tokens[j + 1]?.lower ?? '')));
    while (inSentence(k) && modifier(tokens[k], k) && !attributeNouns[tokens[k].lower]) k++;
    const head = tokens[k];
    const compound = tokens.slice(np, k).some((t) => attributeCompounds[t.lower]);
    let attribute = head && !compound ? attributeNouns[head.lower] : undefined;
    if (head && (head.lower === 'ones' || head.lower === 'one')) {
      // "Bryn's blue eyes met the Abbess's grey ones": the attribute named earlier in the sentence.
      const earlier = tokens.slice(p.reading.sentences[sentence].first, k).reverse().find((t) => attributeNouns[t.lower]);
      attribute = earlier ? attributeNouns[earlier.lower] : undefined;
    }
    // "her wonderfully fair complexion, keen brown eyes, and curls…", "her delicate features and mild blue eyes", "her
    // white crape mourning, and long floating black hair": the possessive holds every item of its list (an item's head
    // may be a compound, "crape mourning").
    if (!attribute && head?.pos === 'NOUN') {
      let last = k;
      while (inSentence(last + 1) && !attributeNouns[tokens[last + 1].lower] && (tokens[last + 1].pos === 'NOUN' || (tokens[last + 1].pos === 'VERB' && tokens[last + 1].lower.endsWith('ing')))) last++;
      if (tokens[last + 1]?.text === ',' || tokens[last + 1]?.lower === 'and') statements.push(...possessedList(last + 2 - Number(tokens[last + 1].lower === 'and')));
    }
    if (attribute && asserted(k)) {
      // "Mira's eyes, grey as the sea, …", "Thorne's hair, thick and black as a boy's, …": an adjective phrase in
      // apposition to the noun, up to what ends it ("as", "with", a comma).
      if (tokens[k + 1]?.text === ',') {
        // "his hair, a deep auburn, …"
        let j = ['a', 'an'].includes(tokens[k + 2]?.lower ?? '') ? k + 3 : k + 2;
        const apposed = [];
        while (tokens[j] && (['ADJ', 'ADV'].includes(tokens[j].pos) || colours.has(tokens[j].lower) || (tokens[j].lower === 'and' && tokens[j + 1]?.pos === 'ADJ'))) {
          if (colours.has(tokens[j].lower)) apposed.push(tokens[j].lower);
          j++;
        }
        if (apposed.length > 0 && !['with', 'from'].includes(tokens[j]?.lower ?? '')) statements.push({ attribute, value: apposed.join(' '), from: ref.first, to: j - 1 });
        // "Nell's hair, of a dull brown, …"
        const of = colourAfterNoun(p, attribute, ref.first, k + 1);
        if (of) statements.push(of);
      } else {
        const of = colourAfterNoun(p, attribute, ref.first, k);
        if (of) statements.push(of);
      }
      // "Ysra, her hair still black at seventy, …": an absolute phrase, the colour straight after the noun.
      if (tokens[k + 1]?.text !== ',') {
        let j = k + 1;
        while (inSentence(j) && tokens[j].pos === 'ADV' && !colours.has(tokens[j].lower)) j++;
        const bare: string[] = [];
        while (inSentence(j) && colours.has(tokens[j].lower)) bare.push(tokens[j++].lower);
        const ends = !inSentence(j) || (tokens[j].pos === 'PUNCT' && tokens[j].text !== '-') || ['at', 'as', 'and'].includes(tokens[j].lower);
        if (bare.length > 0 && ends && asserted(j - 1)) statements.push({ attribute, value: bare.join(' '), from: ref.first, to: j - 1 });
      }
      const stated = coloursIn(tokens, np, k - 1);
      if (stated.length > 0) statements.push({ attribute, value: stated.join(' '), from: ref.first, to: k });
      statements.push(...predicateColour(p, attribute, ref.first, k));
    }
  }
  /** The items of a possessive's list from token `from` (after the first item and its comma), up to three. */
  function possessedList(from: number): Statement[] {
    const found: Statement[] = [];
    let j = from;
    for (let item = 0; item < 3 && inSentence(j); item++) {
      if (tokens[j].lower === 'and') j++;
      const start = j;
      // a participle the tagger reads as a noun may qualify the item ("long floating black hair")
      const participle = (t: Token) => ['NOUN', 'VERB'].includes(t.pos) && /(ing|ed)$/.test(t.lower) && (['ADJ', 'NOUN'].includes(tokens[j + 1]?.pos ?? '') || colours.has(tokens[j + 1]?.lower ?? ''));
      while (inSentence(j) && (['ADJ', 'ADV'].includes(tokens[j].pos) || tokens[j].text === '-' || colours.has(tokens[j].lower) || participle(tokens[j])) && !attributeNouns[tokens[j].lower]) j++;
      if (!inSentence(j) || tokens[j].pos !== 'NOUN') break;
      const attribute = attributeNouns[tokens[j].lower];
      const stated = coloursIn(tokens, start, j - 1);
      if (attribute && stated.length > 0 && asserted(start) && asserted(j)) found.push({ attribute, value: stated.join(' '), from: ref.first, to: j });
      if (tokens[j + 1]?.text !== ',' && tokens[j + 1]?.lower !== 'and') break;
      j += tokens[j + 1].text === ',' && tokens[j + 2]?.lower === 'and' ? 3 : 2;
    }
    return found;
  }

  // "X had dark brown eyes and black hair."
  if (ref.subject) {
    for (const predicate of predicatesOf(syntax, ref.last)) {
      if (tokens[predicate.verb].lemma !== 'have' || !asserts(syntax, predicate)) continue;
      let start = predicate.verb + 1;
      for (let k = start; inSentence(k) && k < predicate.verb + 14; k++) {
        const attribute = attributeNouns[tokens[k].lower];
        if (attribute) {
          const stated = coloursIn(tokens, start, k - 1);
          if (stated.length > 0) statements.push({ attribute, value: stated.join(' '), from: ref.first, to: k });
          // "had hair as black as a crow's wing", "had eyes grey as slate": the colour after the noun, compared.
          let j = tokens[k + 1]?.lower === 'as' ? k + 2 : k + 1;
          const compared: string[] = [];
          while (inSentence(j) && colours.has(tokens[j].lower)) compared.push(tokens[j++].lower);
          if (stated.length === 0 && compared.length > 0 && tokens[j]?.lower === 'as') statements.push({ attribute, value: compared.join(' '), from: ref.first, to: j - 1 });
          const of = stated.length === 0 ? colourAfterNoun(p, attribute, ref.first, k) : undefined;
          if (of) statements.push(of);
          start = k + 1;
          continue;
        }
        if (tokens[k].pos === 'VERB' || (tokens[k].pos === 'PUNCT' && tokens[k].text !== '-' && tokens[k].text !== ',')) break;
      }
    }
  }
  // "the red-haired Abbess", "Golden-haired Tobin", "Ada's copper-haired brother" (a kin reference: before its noun).
  if (!ref.pronoun) {
    let k = (ref.kin ? ref.last : ref.first) - 1;
    while (k >= 0 && tokens[k].pos === 'ADJ' && !attributeCompounds[tokens[k].lower.split('-').at(-1)!]) k--;
    const compound = tokens[k];
    const parts = compound?.lower.split('-') ?? [];
    const attribute = compound && (attributeCompounds[parts.at(-1)!] ?? undefined);
    if (attribute && compound.sentence === sentence && asserted(k)) {
      const stated = parts.length > 1 ? parts.slice(0, -1).filter((w) => colours.has(w)) : tokens[k - 1]?.text === '-' ? coloursIn(tokens, Math.max(0, k - 3), k - 2) : [];
      if (stated.length > 0) statements.push({ attribute, value: stated.join(' '), from: Math.max(0, k - 2), to: ref.last });
    }
  }
  const m = matchAround(tokens, ref.first, ref.last, colourRules, colourClasses);
  // `whole`: the reference is the one the attribute is of, named, not someone's possessor ("of Eleanor's child").
  if (m && (!m.meta?.subject || ref.subject) && !(m.meta?.whole && (ref.pronoun !== undefined || /^['’]s?$/.test(tokens[ref.last + 1]?.lower ?? '')))) {
    const noun = tokens[m.taken.noun[0]].lower;
    const attribute = attributeNouns[noun] ?? attributeCompounds[noun];
    const said = tokens.slice(m.from, m.to + 1).every((t, j) => syntax.unasserted[m.from + j] === undefined && !t.negated);
    if (m.meta?.list) statements.push(...withList(p, m.taken.with[0] + 1, m.to, Math.min(m.from, ref.first)).filter((st) => !m.meta?.own || tokens[st.to + 1]?.lower !== 'of'));
    else if (said) statements.push({ attribute, value: m.taken.colour.map((k) => tokens[k].lower).join(' '), from: Math.min(m.from, ref.first), to: Math.max(m.to, ref.last) });
  }
  return statements;
}

/** "…eyes, like the winter sea, were a cold blue": the colour the attribute noun at `head` is linked to. */
function predicateColour(p: Passage, attribute: ColourAttribute, from: number, head: number): Statement[] {
  const { tokens } = p.reading;
  const sentence = tokens[head].sentence;
  const inSentence = (k: number) => k < tokens.length && tokens[k].sentence === sentence;
  let k = head + 1;
  if (tokens[k]?.text === ',') {
    // A parenthesis between the noun and its verb: ", like his father's before him,".
    let close = k + 1;
    while (inSentence(close) && tokens[close].text !== ',' && close < k + 14) close++;
    if (tokens[close]?.text !== ',') return [];
    k = close + 1;
  }
  let verb: Token | undefined;
  while (inSentence(k) && (tokens[k].pos === 'ADV' || tokens[k].pos === 'AUX' || tokens[k].pos === 'PART')) {
    if (tokens[k].pos === 'AUX') verb = tokens[k];
    if (tokens[k].negated || tokens[k].lower === 'not' || tokens[k].lower === 'never') return [];
    k++;
  }
  if (inSentence(k) && tokens[k].pos === 'VERB' && !colours.has(tokens[k].lower)) verb = tokens[k++];
  if (!verb || !verbIn(linking, verb) || verbIn(changing, verb) || verb.negated) return [];
  // "were a cold blue", "was of a dull brown"
  while (inSentence(k) && ['as', 'so', 'quite', 'very', 'a', 'an', 'the', 'still', 'now', 'of'].includes(tokens[k].lower)) k++;
  const start = k;
  // Adjectives, coordinated or not: "a clear and startling blue".
  while (inSentence(k) && (['ADJ', 'ADV', 'NOUN'].includes(tokens[k].pos) || tokens[k].text === '-' || colours.has(tokens[k].lower) || (['and', ','].includes(tokens[k].lower) && tokens[k + 1]?.pos === 'ADJ'))) {
    // A noun ends the phrase unless it qualifies a colour after it ("a muddy brown").
    if (tokens[k].pos === 'NOUN' && !colours.has(tokens[k].lower) && !colours.has(tokens[k + 1]?.lower ?? '')) break;
    k++;
  }
  const stated = coloursIn(tokens, start, k - 1);
  if (stated.length === 0 || (['with', 'from'].includes(tokens[k]?.lower ?? '') && !withFeeling(tokens, k))) return [];
  if (p.syntax.unasserted[start] !== undefined) return [];
  return [{ attribute, value: stated.join(' '), from, to: k - 1 }];
}

/**
 * "flamed blue with devilish passion": a feeling after "with" is what the eyes show, not what colours them, as dust or
 * tears do ("grey with dust", "red with weeping"), so the colour stands.
 */
function withFeeling(tokens: Token[], k: number): boolean {
  if (tokens[k].lower !== 'with') return false;
  for (let j = k + 1; j <= k + 3 && tokens[j]; j++) {
    if (feelings.has(tokens[j].lemma) || feelings.has(tokens[j].lower)) return true;
    if (!['DET', 'ADJ', 'NOUN', 'PRON'].includes(tokens[j].pos)) return false;
  }
  return false;
}

/** The phrase of `phrases` at token k, if any (the longest first). */
function phraseAt(tokens: Token[], k: number, phrases: [string[], AgeRange][]): { range: AgeRange; next: number } | undefined {
  for (const [words, range] of phrases) if (words.every((w, j) => tokens[k + j]?.lower === w)) return { range, next: k + words.length };
  return undefined;
}

/** A range before an age at token k ("not yet", "about", "little more than"): which, and where its number starts. */
function ageRangeAt(tokens: Token[], k: number): { range: AgeRange; number: number } | undefined {
  const found = phraseAt(tokens, k, ageRangesBefore);
  return found && isNumber(tokens[found.next]) ? { range: found.range, number: found.next } : undefined;
}

/** A number told as an age from token k, with what widens it before or after ("some fifteen years or so"). */
function statedAge(tokens: Token[], k: number): { value: number; last: number; range?: AgeRange } | undefined {
  const before = ageRangeAt(tokens, k);
  const n = numberAt(tokens, before?.number ?? k);
  if (!n) return undefined;
  let last = ageTail(tokens, n.last);
  let range = before?.range;
  // "fifteen or so", "some five-and-twenty years old or thereabouts"
  const after = phraseAt(tokens, n.last + 1, ageRangesAfter) ?? (last > n.last ? phraseAt(tokens, last + 1, ageRangesAfter) : undefined);
  if (after) {
    range = range ?? after.range;
    last = Math.max(last, after.next - 1);
  }
  return { value: n.value, last, ...(range && { range }) };
}

const ordinals: Record<string, string> = { first: 'one', second: 'two', third: 'three', fifth: 'five', eighth: 'eight', ninth: 'nine', twelfth: 'twelve' };
const lifeYearOwners = ['her', 'his', 'my', 'their', 'your'];
/**
 * "in her nineteenth year", "in his five-and-twentieth year", "in this six-and-thirtieth year of his life": the count of
 * the year of life, at token k ("in"), and the possessive that says whose it is.
 */
function yearOfLifeAt(tokens: Token[], k: number): { value: number; last: number; owner?: string } | undefined {
  const det = tokens[k + 1]?.lower ?? '';
  if (tokens[k]?.lower !== 'in' || !(lifeYearOwners.includes(det) || lifeYearDeterminers.has(det))) return undefined;
  const words: string[] = [];
  let j = k + 2;
  while (tokens[j] && j < k + 8 && tokens[j].lower !== 'year') {
    if (tokens[j].text !== '-') words.push(tokens[j].lower);
    j++;
  }
  if (tokens[j]?.lower !== 'year' || words.length === 0) return undefined;
  const last = words.at(-1)!;
  const cardinal = ordinals[last] ?? (last.endsWith('ieth') ? `${last.slice(0, -4)}y` : last.endsWith('th') ? last.slice(0, -2) : undefined);
  if (!cardinal) return undefined;
  // "five-and-twentieth": the units before the tens, the old way.
  const parts = [...words.slice(0, -1), cardinal];
  const units = parts.length === 3 && parts[1] === 'and' ? [parts[2], parts[0]] : parts;
  const value = numberValue(units.flatMap((p) => p.split('-')));
  if (value === undefined || value === 0) return undefined;
  // "of his life", "of her age": whose year it is, after a determiner that does not say it ("this", "the")
  const tail = tokens[j + 1]?.lower === 'of' && lifeYearOwners.includes(tokens[j + 2]?.lower ?? '') && lifeYearNouns.has(tokens[j + 3]?.lower ?? '');
  if (tail) return { value, last: j + 3, owner: tokens[j + 2].lower };
  // "this" opens a year of life only with that tail ("in this third year" of a war is none)
  if (det === 'this') return undefined;
  return { value, last: j, ...(lifeYearOwners.includes(det) && { owner: det }) };
}

function ageStatements(p: Passage, ref: Ref): Statement[] {
  const { tokens } = p.reading;
  const { syntax } = p;
  const statements: Statement[] = [];
  const push = (value: number, to: number, bygone = false, range?: StatedRange) =>
    statements.push({ attribute: 'age', value: String(value), from: ref.first, to, bygone, ...(range && { range }) });
  if (!ref.pronoun && tokens[ref.last + 1]?.text === ',') {
    // "Tam Lusk, 42," / "Maud, aged 45," / "Renfield, ætat 39." / "Anselm, forty-eight and still straight-backed" /
    // "Crask, not yet fifty," / "Jem, about seventeen,"
    let k = ref.last + 2;
    if (ageLabels.has(tokens[k]?.lower ?? '')) k++;
    const n = statedAge(tokens, k);
    if (n && endsAge(tokens, n.last + 1) && syntax.unasserted[k] === undefined) push(n.value, n.last, false, n.range);
    // "Edda Lusk, a widow of forty,", "Jem, a lad of fifteen or so,"
    const of = personOfAge(tokens, ref.last + 2);
    if (of !== undefined) {
      const m = statedAge(tokens, of);
      if (m && endsAge(tokens, m.last + 1) && syntax.unasserted[of] === undefined) push(m.value, m.last, false, m.range);
    }
  }
  // "Godfrey Cass in this six-and-thirtieth year of his life", "Nell, in her nineteenth year,": a year of life right
  // after the name, whose possessive is of the name's gender and of no one else of it named in the sentence before.
  if (!ref.pronoun && !ref.kin) {
    const k = ref.last + 1 + Number(tokens[ref.last + 1]?.text === ',');
    const year = yearOfLifeAt(tokens, k);
    const gender = year?.owner === 'her' ? 'she' : year?.owner === 'his' ? 'he' : undefined;
    const sentence = p.reading.sentences[tokens[ref.first].sentence];
    const others = p.refs.some((r) => r.entity.id !== ref.entity.id && r.first >= sentence.first && r.first < k && r.entity.type === 'character' && fits(gender ?? 'they', p.pronounsOf(r.entity)));
    if (year && gender && p.pronounsOf(ref.entity) === gender && !others && syntax.unasserted[k] === undefined && endsAge(tokens, year.last + 1)) push(year.value, year.last, false, 'year');
  }
  // "exclaimed Meg, who felt grown up already, having just reached twenty", "Mr. Chitling was older in years than the
  // Dodger: having perhaps numbered eight-and-thirty winters": a perfect participle set off after the subject's clause
  // (lexicon `agePerfectParticiples`), when no other character is a subject between them; at least that age now.
  if (ref.subject && !ref.kin) {
    const sentence = p.reading.sentences[tokens[ref.first].sentence];
    const k = tokens.findIndex((t, i) => i > ref.last && i <= sentence.last && t.lower === 'having' && agePerfectOpeners.has(tokens[i - 1].text));
    const between = (r: Ref) => r.first > ref.last && r.first < k && r.subject && r.entity.type === 'character' && r.entity.id !== ref.entity.id;
    if (k > 0 && !p.refs.some(between)) {
      let j = k + 1;
      while (tokens[j]?.pos === 'ADV' && !ageRangeAt(tokens, j)) j++;
      const verb = tokens[j]?.lower ?? '';
      const reaching = agePerfectParticiples.reaching.has(verb);
      const n = reaching || agePerfectParticiples.counting.has(verb) ? statedAge(tokens, j + 1) : undefined;
      const counted = n !== undefined && n.last > (numberAt(tokens, ageRangeAt(tokens, j + 1)?.number ?? j + 1)?.last ?? n.last);
      const said = tokens.slice(k, (n?.last ?? k) + 1).every((t, i) => syntax.unasserted[k + i] === undefined && !t.negated);
      if (n && (reaching || counted) && said && endsAge(tokens, n.last + 1)) push(n.value, n.last, false, n.range ?? 'atLeast');
    }
  }
  // "X was thirty-five that winter", "X, who is twenty-five,", "X turned twenty", "X was about seventeen", "Here am
  // I, who shall be twenty in September"
  if (ref.subject || !ref.pronoun || (ref.pronoun === 'nominative' && tokens[ref.last + 1]?.text === ',' && tokens[ref.last + 2]?.lower === 'who')) {
    for (const predicate of predicatesOf(syntax, ref.last)) {
      if (!predicate.relative && !ref.subject) continue;
      const verb = tokens[predicate.verb];
      // "had turned twenty-four" still gives the age now; "had been thirty" does not. "had seen sixty summers" counts
      // the years lived, as "turned" does.
      const turned = verbIn(ageReaching, verb);
      const seen = verb.lemma === 'see' && numberAt(tokens, predicate.verb + 1) !== undefined;
      if (!(predicate.copula || turned || seen)) continue;
      const mood = moodOf(syntax, predicate);
      const unasserted = mood.modal || syntax.unasserted[predicate.verb] !== undefined;
      let k = predicate.verb + 1;
      // "was not yet fifty", "was not above twenty": the negations that still tell an age.
      const negatedRange = predicate.copula && mood.negated && tokens[k]?.lower === 'not' && ageRangeAt(tokens, k) !== undefined;
      // "who shall be twenty in September": the age to come, told of the one who will reach it.
      const future = predicate.copula && !mood.negated && predicate.auxes.some((a) => ['will', 'shall', "'ll", '’ll'].includes(tokens[a].lower)) && syntax.unasserted[predicate.verb] === undefined;
      const asserted = asserts(syntax, predicate) || ((turned || seen) && mood.pluperfect && !mood.negated && !unasserted) || (negatedRange && !unasserted) || future;
      if (!asserted) continue;
      while (tokens[k]?.pos === 'ADV' && !ageRangeAt(tokens, k) && !yearOfLifeAt(tokens, k)) k++;
      const year = predicate.copula ? yearOfLifeAt(tokens, k) : undefined;
      if (year) {
        if (!future && endsAge(tokens, year.last + 1)) push(year.value, year.last, temporal.has(tokens[clauseStart(syntax, predicate.verb)].lower), 'year');
        continue;
      }
      // "was a woman of five-and-forty", "was a lad of fifteen or so"
      if (predicate.copula && !ageRangeAt(tokens, k) && personOfAge(tokens, k) !== undefined) k = personOfAge(tokens, k)!;
      const n = statedAge(tokens, k);
      if (!n || (n.range && !predicate.copula)) continue;
      const tail = n.last;
      if (seen && ageTail(tokens, numberAt(tokens, k)?.last ?? tail) === (numberAt(tokens, k)?.last ?? tail)) continue; // "had seen three ships": years only, counted as winters or summers
      // "turns thirty-five next month": the age to come, not the age now.
      if (turned && !verb.lower.endsWith('ed') && comingTime(tokens, tail + 1)) continue;
      if (future) {
        if (comingTime(tokens, tail + 1) && !n.range) push(n.value, tail, false, 'coming');
        continue;
      }
      const then = temporal.has(tokens[clauseStart(syntax, predicate.verb)].lower);
      if (endsAge(tokens, tail + 1)) push(n.value, tail, then, n.range);
      else if (pastAge.has(tokens[tail + 1]?.lower ?? '')) push(n.value, tail, true, n.range);
    }
    // "At sixty, X still worked the farm": the age of a time the clause is set in.
    const start = clauseStart(syntax, ref.first);
    const at = tokens[start]?.lower === 'at' ? numberAt(tokens, start + 1) : undefined;
    if (ref.subject && at && [ref.first, ref.first - 1].includes(at.last + 1 + Number(tokens[at.last + 1]?.text === ','))) push(at.value, at.last, true);
  }
  // "he presented himself—a tall, stout man of eighty": an apposition closing the subject's clause (ageRules).
  if (ref.subject && !ref.kin) {
    const m = matchAround(tokens, ref.first, ref.last, ageRules, colourClasses);
    const of = m ? personOfAge(tokens, m.to + 1) : undefined;
    const n = of !== undefined ? statedAge(tokens, of) : undefined;
    if (m && n && endsAge(tokens, n.last + 1) && tokens.slice(ref.first, n.last + 1).every((t, j) => syntax.unasserted[ref.first + j] === undefined && !t.negated)) push(n.value, n.last, false, n.range);
  }
  // "the thirty-year-old Abbess"
  if (!ref.pronoun && tokens[ref.first - 1]?.lower === 'old' && tokens[ref.first - 2]?.text === '-') {
    let k = ref.first - 3;
    while (k >= 0 && tokens[k].text !== '-' && k > ref.first - 6) k--;
    if (tokens[k]?.text === '-' && /^years?$/.test(tokens[k + 1]?.lower ?? '')) {
      let start = k - 1;
      while (start > 0 && (tokens[start - 1].pos === 'NUM' || tokens[start - 1].text === '-')) start--;
      const n = numberAt(tokens, start);
      if (n && n.last === k - 1 && p.syntax.unasserted[start] === undefined) push(n.value, ref.last);
    }
  }
  return statements;
}

/**
 * The speaker of each quotation: the one its speech tag names, else, for a quotation that goes on after a tagged one,
 * that one's speaker ('“I am tired,” said Mr. Hale. “I'm forty-five…”').
 */
function speakers(p: Passage): { q: Quotation; speaker: SliceEntity | undefined }[] {
  const { tokens, text } = p.reading;
  const found: { q: Quotation; speaker: SliceEntity | undefined }[] = [];
  for (const q of quotations(text, tokens)) {
    const speaker = speakerNear(p, q) ?? continuedSpeaker(p, q.first, (end) => found.findLast((f) => f.q.first <= end)?.speaker);
    found.push({ q, speaker });
  }
  return found;
}
const quoteOpeners = new Set(['“', '"', '‘']);

/**
 * Ages and colours told in dialogue of someone the quotation makes sure of: '"I'm fifteen," said Jem' (its speaker),
 * "my black hair" (its speaker), "in your fair hair, Margaret" (the one a vocative of its sentence or its tag names),
 * "About Mary… She's three-and-twenty" (the one character of that gender the speaker's quotations of the paragraph
 * named before, not the speaker). Not in a sentence that asks, denies, supposes or wishes, nor an age told of another
 * time ("when I was ten").
 */
function spokenStatements(p: Passage): { entity: string; statement: Statement }[] {
  const { tokens, text } = p.reading;
  const found: { entity: string; statement: Statement }[] = [];
  const startingAt = new Map(p.refs.filter((r) => r.entity.type === 'character' && !r.kin).map((r) => [r.first, r]));
  // Inside a quotation the words are the speaker's, so what the dialogue mark leaves unasserted is read as said.
  const spoken: Passage = { ...p, syntax: { ...p.syntax, unasserted: p.syntax.unasserted.map((u) => (u === 'dialogue' ? undefined : u)), predicates: new Map() } };
  const doubtful = (i: number) => {
    const s = p.reading.sentences[tokens[i].sentence];
    const said = tokens.slice(s.first, s.last + 1).filter((t) => t.quoted);
    return said.some((t) => t.text === '?' || t.negated || t.lower === 'not' || t.lower === 'never' || hypothetical.has(t.lower) || t.lemma === 'wish' || ((t.pos === 'VERB' || t.pos === 'AUX') && verbIn(thinking, t)));
  };
  for (const { q, speaker } of speakers(p)) {
    for (let i = q.first; i <= q.last; i++) {
      const t = tokens[i];
      if (t.pos !== 'PRON') continue;
      // "I'm fifteen", "I was thirteen last March"
      if (t.text === 'I') {
        const be = tokens[i + 1];
        if (!speaker || !['am', "'m", '’m', 'was'].includes(be?.lower ?? '') || be.negated || tokens[i + 2]?.lower === 'not') continue;
        if (tokens.slice(Math.max(q.first, i - 4), i).some((w) => temporal.has(w.lower) || hypothetical.has(w.lower) || w.lemma === 'wish')) continue;
        let k = i + 2;
        while (tokens[k]?.pos === 'ADV' && !ageRangeAt(tokens, k)) k++;
        const n = statedAge(tokens, k);
        if (n && endsAge(tokens, n.last + 1) && n.last <= q.last) found.push({ entity: speaker.id, statement: { attribute: 'age', value: String(n.value), from: i, to: n.last, ...(n.range && { range: n.range }) } });
        continue;
      }
      if (doubtful(i)) continue;
      const whose = t.lower === 'my' ? speaker : t.lower === 'your' ? (vocativeOf(p, i, startingAt) ?? namedAddressee(p, i, startingAt)) : thirdPerson(p, i, speaker);
      if (!whose || !['my', 'your', 'her', 'his', 'she', 'he'].includes(t.lower)) continue;
      if (['she', 'he'].includes(t.lower)) {
        if (tokens.slice(Math.max(q.first, i - 4), i).some((w) => temporal.has(w.lower))) continue;
        const ref: Ref = { entity: whose, first: i, last: i, pronoun: 'nominative', subject: true };
        for (const statement of ageStatements(spoken, ref)) found.push({ entity: whose.id, statement });
        if (!hedged(i)) for (const statement of colourStatements(spoken, ref)) if (saidNow(statement, q)) found.push({ entity: whose.id, statement });
        continue;
      }
      // "her" before a noun phrase, not the object of its verb
      if (t.lower === 'her' && !['NOUN', 'ADJ', 'ADV', 'NUM'].includes(tokens[i + 1]?.pos ?? '') && !colours.has(tokens[i + 1]?.lower ?? '')) continue;
      const ref: Ref = { entity: whose, first: i, last: i, pronoun: 'possessive', subject: false };
      for (const statement of colourStatements(spoken, ref)) if (statement.to <= q.last) found.push({ entity: whose.id, statement });
    }
    // A character the quotation names, said to be of an age or a colour: '"The child … Oliver Twist, is eleven year
    // old today," said the beadle'. Only in a quotation whose speaker a tag names, of someone else (the speaker's own
    // is their "I", above).
    if (!speaker) continue;
    for (const ref of p.refs) {
      if (ref.pronoun || ref.kin || ref.entity.type !== 'character' || ref.entity.id === speaker.id || ref.first < q.first || ref.last > q.last || hedged(ref.first)) continue;
      for (const statement of [...ageStatements(spoken, ref), ...colourStatements(spoken, ref), ...setOffAge(ref)]) if (saidNow(statement, q)) found.push({ entity: ref.entity.id, statement });
    }
  }
  return found;

  /** "…Oliver Twist, is eleven year old": a name closing its subject, set off from its verb by a comma. */
  function setOffAge(ref: Ref): Statement[] {
    const be = tokens[ref.last + 2];
    if (tokens[ref.last + 1]?.text !== ',' || be?.lemma !== 'be' || be.negated) return [];
    const n = statedAge(tokens, ref.last + 3);
    return n && endsAge(tokens, n.last + 1) ? [{ attribute: 'age', value: String(n.value), from: ref.first, to: n.last, ...(n.range && { range: n.range }) }] : [];
  }
  /** Whether the sentence of token i hedges what its quoted words say (lexicon `quotedClaims.hedges`), or asks or denies it. */
  function hedged(i: number): boolean {
    const s = p.reading.sentences[tokens[i].sentence];
    return doubtful(i) || tokens.slice(s.first, s.last + 1).some((t) => t.quoted && (quotedClaims.hedges.has(t.lower) || quotedClaims.hedges.has(t.lemma)));
  }
  /** A statement inside the quotation, of the speaker's now: a present "is" or "has" between its subject and its end. */
  function saidNow(st: Statement, q: Quotation): boolean {
    return st.to <= q.last && !st.bygone && tokens.slice(st.from + 1, st.to + 1).some((t) => (t.pos === 'VERB' || t.pos === 'AUX') && quotedClaims.now.has(t.lower));
  }

  /** A name set off by commas in the sentence of token i, in its quotation: "They look glorious, Margaret, in your fair hair." */
  function vocativeOf(p: Passage, i: number, startingAt: Map<number, Ref>): SliceEntity | undefined {
    const s = p.reading.sentences[tokens[i].sentence];
    // set off by a comma, or opening the sentence or its quotation, and closed by a comma or the sentence's end
    const set = [...startingAt.values()].filter(
      (r) => r.first >= s.first && r.last <= s.last && !r.pronoun && tokens[r.first].quoted && [',', '!', '.', '?'].includes(tokens[r.last + 1]?.text ?? '') && (r.first === s.first || tokens[r.first - 1]?.text === ',' || !tokens[r.first - 1]?.quoted || quoteOpeners.has(tokens[r.first - 1]?.text ?? '')),
    );
    const ids = new Set(set.map((r) => r.entity.id));
    return ids.size === 1 ? set[0].entity : undefined;
  }
  function namedAddressee(p: Passage, i: number, startingAt: Map<number, Ref>): SliceEntity | undefined {
    return addresseeOf(p, i, startingAt)?.entity;
  }
  /** "she", "her", "he", "his": the one character of that gender named in the paragraph's quotations before token i. */
  function thirdPerson(p: Passage, i: number, speaker: SliceEntity | undefined): SliceEntity | undefined {
    const kind = tokens[i].lower === 'she' || tokens[i].lower === 'her' ? 'she' : tokens[i].lower === 'he' || tokens[i].lower === 'his' ? 'he' : undefined;
    if (!kind) return undefined;
    const named = p.refs.filter(
      (r) => !r.pronoun && !r.kin && r.first < i && tokens[r.first].quoted && r.entity.type === 'character' && r.entity.id !== speaker?.id && !text.slice(tokens[r.last].end, tokens[i].start).includes('\n'),
    );
    const fitting = new Set(named.filter((r) => p.pronounsOf(r.entity) === kind).map((r) => r.entity));
    // another character who may be of that gender, named there, leaves it in doubt
    if (fitting.size !== 1 || named.some((r) => !fitting.has(r.entity) && fits(kind, p.pronounsOf(r.entity)))) return undefined;
    return [...fitting][0];
  }
}

function titleStatements(p: Passage, ref: Ref): Statement[] {
  const { tokens } = p.reading;
  const { syntax } = p;
  if (ref.pronoun) return [];
  const statements: Statement[] = [];
  const titleAt = (from: number, maxWords: number, capitalised: boolean) => {
    for (let n = maxWords; n >= 1; n--) {
      const span = tokens.slice(from, from + n);
      if (span.length < n || span.some((t) => t.pos === 'PUNCT' && t.text !== '.')) continue;
      if (capitalised && !span.every((t) => /^\p{Lu}/u.test(t.text))) continue;
      const title = normaliseTitle(span.filter((t) => t.text !== '.').map((t) => t.text));
      if (title) return { title, last: from + n - 1 };
    }
    return undefined;
  };
  // Before the name: "Prioress Hilde", "Lt. Sato", "Lieutenant Commander Abara" (a capitalised word or an
  // abbreviation's full stop right before it).
  const titled = ref.first > 0 && (/^\p{Lu}/u.test(tokens[ref.first - 1].text) || tokens[ref.first - 1].text === '.');
  for (let n = titled ? longestTitle + 1 : 0; n >= 1; n--) {
    const start = ref.first - n;
    if (start < 0 || tokens[start].sentence !== tokens[ref.first].sentence) continue;
    const found = titleAt(start, n, true);
    if (found && found.last === ref.first - 1 && syntax.unasserted[start] === undefined) {
      // "Mother Bhaer" when the canon's Bhaer is a man: the title names another of the family, not a title of his.
      const gender = genderOfWord(found.title.split(' ')[0]);
      const held = p.pronounsOf(ref.entity);
      if (gender && (held === 'he' || held === 'she') && held !== gender) break;
      // "Father Bhaer" for a man the graph marries or makes a parent: the family's form of address, not a priest's.
      if (kinWord(found.title.split(' ')[0])?.[0] === 'parent' && heldKinship(p.slice.relationships).some((h) => h.who === ref.entity.id && (h.kin.role === 'spouse' || h.kin.role === 'parent'))) break;
      statements.push({ attribute: 'title', value: found.title, from: start, to: ref.last });
      break;
    }
  }
  // After the name: "X, Abbot of Saint Ives,", "X, the station's doctor,", "X the Prior".
  let k = ref.last + 1;
  const appositive = tokens[k]?.text === ',';
  if (appositive || tokens[k]?.lower === 'the') {
    k += appositive ? 1 : 0;
    if (['the', 'a', 'an'].includes(tokens[k]?.lower ?? '')) k++;
    const possessed = appositive && (tokens[k]?.pos === 'PROPN' || tokens[k]?.pos === 'NOUN') && /^['’]s$/.test(tokens[k + 1]?.lower ?? '');
    if (possessed) k += 2;
    while (tokens[k]?.pos === 'ADJ' && !normaliseTitle([tokens[k].text])) k++;
    const found = titleAt(k, longestTitle, false);
    // "X, Corin's father,": what X is to someone (kinship), where "Father" before a name is a title.
    const kin = possessed && found?.last === k && kinWord(tokens[k].text) !== undefined;
    if (found && !kin && syntax.unasserted[k] === undefined) {
      let end = found.last + 1;
      if (tokens[end]?.lower === 'of') {
        end++;
        while (tokens[end] && tokens[end].sentence === tokens[k].sentence && tokens[end].pos !== 'PUNCT') end++;
      }
      // "Captain Smollett, the squire, the doctor, and I": an item of a list, not an apposition.
      const listed = appositive && tokens[end]?.text === ',' && ['the', 'and', 'a', 'an'].includes(tokens[end + 1]?.lower ?? '');
      const closes = !listed && (!tokens[end] || tokens[end].pos === 'PUNCT' || tokens[end].sentence !== tokens[k].sentence);
      if (closes && (appositive || tokens[ref.last + 1].lower === 'the')) statements.push({ attribute: 'title', value: found.title, from: ref.first, to: found.last });
    }
  }
  // As a predicate: "X was captain of the guard".
  if (ref.subject) {
    for (const predicate of predicatesOf(syntax, ref.last)) {
      if (!predicate.copula || !asserts(syntax, predicate)) continue;
      let j = predicate.verb + 1;
      if (['the', 'a', 'an'].includes(tokens[j]?.lower ?? '')) j++;
      const found = titleAt(j, longestTitle, false);
      if (!found) continue;
      const after = tokens[found.last + 1];
      if (after && (/^['’]s$/.test(after.lower) || after.pos === 'NOUN')) continue;
      // "was brother to Eleanor", "was sister of the Abbess": kinship, not a religious title.
      if (found.last === j && kinWord(tokens[j].text) !== undefined && ['to', 'of'].includes(after?.lower ?? '')) continue;
      statements.push({ attribute: 'title', value: found.title, from: ref.first, to: found.last });
    }
  }
  return statements;
}

function contradicts(attribute: Attribute, canon: string[], stated: string, bygone = false, range?: StatedRange): boolean {
  if (attribute === 'eyes' || attribute === 'hair' || attribute === 'eyebrows') {
    const words = stated.split(' ');
    const specific = words.filter((w) => !shades.has(w));
    if (specific.length === 0) return false;
    const canonWords = canon.flatMap((c) => c.split(/[\s-]+/)).filter((w) => colours.has(w));
    const lone = canonWords.length === 1 ? loneShades[attribute][canonWords[0]] : undefined;
    // a statement with a shade of its own ("pale blue", "dark blue") is read as before: shades contradict little
    const held = lone && !words.some((w) => shades.has(w)) ? new Set(lone) : colourFamiliesOf(canonWords);
    if (held.size === 0) return false;
    if (attribute === 'eyes' && specific.every((w) => soreEyeColours.has(w)) && !held.has('red')) return false;
    const said = colourFamiliesOf(specific);
    return ![...said].some((f) => held.has(f));
  }
  if (attribute === 'age') {
    const held = Number(canon[0]);
    if (!Number.isFinite(held)) return false;
    const [lo, hi] = ageSpan(Number(stated), range);
    // An age of an earlier time only says the canon's is not younger than it was then.
    return bygone ? held < lo : held < lo || held > hi;
  }
  return !titlesAgree(stated, canon);
}

export function attributes(p: Passage): ConflictDraft[] {
  const hits: ConflictDraft[] = [];
  const said = spokenStatements(p);
  for (const character of p.slice.entities.filter((e) => e.type === 'character')) {
    const canon = canonAttributes(character);
    if (canon.size === 0 && !p.trace) continue;
    const reported = new Set<Attribute>();
    // One description ("with blue eyes and red hair") is one conflict with the canon, however many features it gets wrong.
    const described = new Set<number>();
    const statements = [
      ...refsOf(p, character).flatMap((ref) => [...colourStatements(p, ref), ...ageStatements(p, ref), ...titleStatements(p, ref)]),
      ...said.filter((x) => x.entity === character.id).map((x) => x.statement),
    ];
    for (const st of statements) {
      const held = canon.get(st.attribute);
      const sentence = p.reading.tokens[st.from].sentence;
      if (!held || reported.has(st.attribute) || described.has(sentence) || !contradicts(st.attribute, held.values, st.value, st.bygone, st.range)) {
        if (p.trace) traceClaim(p, 'attribute_contradiction', character.id, st.from, !held ? 'canon lacks' : reported.has(st.attribute) || described.has(sentence) ? 'one conflict per description' : 'agrees');
        continue;
      }
      traceClaim(p, 'attribute_contradiction', character.id, st.from, 'hit');
      reported.add(st.attribute);
      described.add(sentence);
      hits.push({
        severity: 'P2',
        kind: 'attribute_contradiction',
        episode: p.episode,
        title: `${character.name}'s ${labels[st.attribute]} contradicts the canon`,
        rationale: `The canon gives ${character.name}'s ${labels[st.attribute]} as "${held.values.join('", "')}"${p.episode ? ` as of ${p.episode}` : ''}; the passage says "${st.range ? rangeWords[st.range] : ''}${st.value}": ${quoteAt(p, st.from, st.to)}.`,
        refs: [...new Set([character.id, held.ref])],
        at: spanAt(p, st.from, st.to),
      });
    }
  }
  return hits;
}
