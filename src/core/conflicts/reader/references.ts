// Who the passage speaks of, token by token: the names and aliases of the canon's entities (as written, capitalised at
// a sentence start, or without their article: "Abbess" for "the Abbess"), and third-person pronouns resolved to a
// character. Resolution, documented in the README: a pronoun refers to an earlier character of the passage (same
// sentence or the two before) whose pronouns fit (see pronouns.ts); a subject pronoun or a possessive prefers the
// subject of its own clause, then the character the previous sentence's subject saw or found ("Pim finds Volkov… He
// is…"), then the most recent subject of a main clause (then of any clause) in its sentence or the one before, then the
// nearest character named; an object pronoun the nearest that is not its clause's subject; a reflexive the subject of
// its clause. A pronoun the narration asserts never goes back to a character only quoted, dreamt or remembered, nor to
// the owner of a body, grave or picture. Dialogue pronouns are not resolved. A kin word after a possessor ("June's
// husband", "her mother") refers to the one relative of that role the relationship graph gives the possessor, when it
// gives exactly one and no name follows to say who is meant ("her husband Phil"). In a story told in the first person,
// "I", "me" and "my" in the narration refer to the character whose state says `narrator: true`; a third-person
// pronoun never does.
import type { SliceEntity } from '../canonSlice.ts';
import { kinAfter, type Held } from './kin.ts';
import { WordTrie } from '../../ingest/wordTrie.ts';
import { firstIndex } from '../../sorted.ts';
import { antecedentDoubts, calledByKin, chapterAntecedent, deathVerbs, documents, genderOfWord, kinNames, kinWord, letterVoice, mindNouns, normaliseTitle, noticing, people, personNouns, possessives, pronounCarry, standIns, titleSpellings } from './lexicon.ts';
import { verbIn, type Reading, type Token } from './nlp.ts';
import { describedAnimal, fits, type Pronouns } from './pronouns.ts';
import { analyse, atSubjectPosition, inSubordinate, listedAfter, predicatesOf, speechTagBefore, type Syntax } from './syntax.ts';

export type Ref = {
  entity: SliceEntity;
  first: number;
  last: number;
  /** how a pronoun stands: "he", "his", "him", "himself" */
  pronoun?: 'nominative' | 'possessive' | 'object' | 'reflexive';
  /** an alias matched without its article */
  bare?: boolean;
  /** the subject of a verb (named or pronoun) */
  subject: boolean;
  /** a subject of a main clause, not of a subordinate or relative one */
  main?: boolean;
  /** a relative named by a kin word after its possessor ("June's husband"), from the possessor to the kin word */
  kin?: boolean;
  /** "I", "me", "my" in the narration of a story its narrator tells in the first person */
  narrator?: boolean;
  /** a pronoun carried back past its window to the paragraph's topic (lexicon `pronounCarry`) */
  carried?: boolean;
};

const wordPattern = /[\p{L}\p{N}]+/gu;
const articles = new Set(['the', 'a', 'an']);
const personal: Record<string, [Pronouns, NonNullable<Ref['pronoun']>]> = {
  he: ['he', 'nominative'], him: ['he', 'object'], his: ['he', 'possessive'], himself: ['he', 'reflexive'],
  she: ['she', 'nominative'], her: ['she', 'object'], hers: ['she', 'possessive'], herself: ['she', 'reflexive'],
  they: ['they', 'nominative'], them: ['they', 'object'], their: ['they', 'possessive'], theirs: ['they', 'possessive'],
  themself: ['they', 'reflexive'], themselves: ['they', 'reflexive'],
};
const firstPerson: Record<string, NonNullable<Ref['pronoun']>> = { i: 'nominative', me: 'object', my: 'possessive', mine: 'possessive', myself: 'reflexive' };
// "My mother came in": at a sentence's start too.
const firstPersonWord = new RegExp(`\\b(I|${Object.keys(firstPerson).filter((w) => w !== 'i').map((w) => `[${w[0].toUpperCase()}${w[0]}]${w.slice(1)}`).join('|')})\\b`);
// "Mother came in": a kin word used as a name is the narrator's relative (namesKin).
const kinAsName = new RegExp(`\\b(${kinNames.map((w) => w[0].toUpperCase() + w.slice(1)).join('|')})\\b`);
/** A personal pronoun of a he, a she or the first person ("he", "her", "I", "my"). */
export const isPersonalPronoun = (word: string) => (personal[word] !== undefined && personal[word][0] !== 'they') || firstPerson[word] !== undefined;
/** Whether a passage may speak in the first person, or of the narrator's kin by name, so that its narrator is worth looking up (canonSlice.ts). */
export const saysI = (text: string) => firstPersonWord.test(text) || kinAsName.test(text);

type Term = { entity: SliceEntity; words: string[]; bare: boolean };

/** Names and aliases of the entities, matched on whole words of the passage, longest first. */
export function findNames(reading: Reading, entities: SliceEntity[], shared?: Shared[]): Ref[] {
  // In a tree keyed word by word (the cost of a match is the words it walks, not the number of names), each form once
  // per entity: as written first, the same words without their article after.
  const terms = new WordTrie<Term>();
  const added = new Map<SliceEntity, Set<string>>();
  const bareTerms: Term[] = [];
  const add = (entity: SliceEntity, words: string[], bare: boolean) => {
    const forms = added.get(entity) ?? new Set<string>();
    if (forms.has(words.join(' '))) return;
    added.set(entity, forms.add(words.join(' ')));
    if (bare) bareTerms.push({ entity, words, bare });
    else terms.add(words, { entity, words, bare });
  };
  for (const entity of entities) {
    for (const name of [entity.name, ...entity.aliases].flatMap((n) => [n, ...titleSpellings(n)])) {
      const words = name.match(wordPattern) ?? [];
      const [first, second] = words;
      if (first === undefined) continue;
      add(entity, words, false);
      add(entity, [first.charAt(0).toUpperCase() + first.slice(1), ...words.slice(1)], false);
      // A full name in capitals, as headings print it ("JONATHAN HARKER’S JOURNAL"); one word alone could be a shout.
      if (words.length > 1) add(entity, words.map((w) => w.toUpperCase()), false);
      if (articles.has(first.toLowerCase()) && second !== undefined && /^\p{Lu}/u.test(second)) add(entity, words.slice(1), true);
    }
  }
  for (const term of bareTerms) terms.add(term.words, term);

  const { tokens, text } = reading;
  const words = [...text.matchAll(wordPattern)].map((m) => ({ text: m[0], start: m.index, end: m.index + m[0].length }));
  const wordAt = (k: number) => words[k]?.text;
  const tokenAt = (offset: number) => Math.max(0, firstIndex(tokens.length, (k) => tokens[k].start <= offset) - 1);
  const refs: Ref[] = [];
  for (let i = 0; i < words.length; i++) {
    const longest = terms.longestAt(wordAt, i);
    if (!longest) continue;
    let matched = [...longest.values];
    matched = matched.filter((t, k) => matched.findIndex((u) => u.entity === t.entity) === k);
    if (matched.length === 0) continue;
    const n = matched[0].words.length;
    // "The Jonah Morrow cleared the harbour": a person's full name after an article names a ship, an inn or another
    // thing called after them, not the person.
    const article = i > 0 && articles.has(words[i - 1].text.toLowerCase()) && /^\s+$/.test(text.slice(words[i - 1].end, words[i].start));
    if (article && matched.every((t) => isFullName(t))) {
      i += matched[0].words.length - 1;
      continue;
    }
    // One name shared by two entities says nothing certain about either.
    if (matched.length === 1) {
      const ref: Ref = { entity: matched[0].entity, first: tokenAt(words[i].start), last: tokenAt(words[i + n - 1].end - 1), bare: matched[0].bare, subject: false };
      if (!ref.bare || standsAlone(reading, ref, refs)) refs.push(ref);
    } else shared?.push({ entities: matched.map((t) => t.entity), first: tokenAt(words[i].start), last: tokenAt(words[i + n - 1].end - 1) });
    i += n - 1;
  }
  return refs;
}

/** A name the canon gives two entities or more, where it stands: a reference to none of them. */
export type Shared = { entities: SliceEntity[]; first: number; last: number };

/** A character's own name of two words or more, not a title or an epithet ("the Grey Magister", "Mother Ysra"). */
function isFullName(term: Term): boolean {
  const { entity, words, bare } = term;
  if (bare || entity.type !== 'character' || words.length < 2) return false;
  const name = entity.name.match(wordPattern) ?? [];
  return words.join(' ') === name.join(' ') && words.every((w) => /^\p{Lu}/u.test(w)) && normaliseTitle([words[0]]) === undefined;
}

/** An alias without its article is a name only where a title would not stand: not before "of" or a name, nor after "Name,". */
function standsAlone(reading: Reading, ref: Ref, earlier: Ref[]): boolean {
  const { tokens } = reading;
  const next = tokens[ref.last + 1];
  if (next && (next.lower === 'of' || (next.pos === 'PROPN' && /^\p{Lu}/u.test(next.text)))) return false;
  const before = tokens[ref.first - 1];
  if (before?.text === ',' && earlier.some((r) => r.last === ref.first - 2)) return false;
  return true;
}

/** Named references, resolved pronouns and kin references, in the order of the passage, each marked when it is a verb's subject. */
/**
 * `before`: for a "he" or "she", the character named just before the passage in its chapter (chapterAntecedents), taken
 * by such a pronoun that has no character of its gender named before it in the passage (`fromChapter`).
 */
export function findReferences(syntax: Syntax, entities: SliceEntity[], pronounsOf: (e: SliceEntity) => Pronouns | undefined, kinship: Held[] = [], before?: Map<Pronouns, Antecedent>): Ref[] {
  const { reading } = syntax;
  const { tokens } = reading;
  const shared: Shared[] = [];
  const named = findNames(reading, entities, shared);
  // A name of the canon is a name where the tagger read a verb or an auxiliary ("Will carried the rope"), unless a
  // subject follows it as in a question ("Will you come?").
  for (const r of named) {
    const t = tokens[r.first];
    const question = tokens[r.last + 1]?.pos === 'PRON' && ['i', 'you', 'he', 'she', 'we', 'they', 'it'].includes(tokens[r.last + 1].lower);
    if ((t.pos === 'AUX' || t.pos === 'VERB') && /^\p{Lu}/u.test(t.text) && !question) tokens[r.first] = { ...t, pos: 'PROPN', lemma: t.lower };
  }
  const startsAt = new Map(named.map((r) => [r.first, r]));
  const namedAt = new Map(named.map((r) => [r.first, r.last]));
  const refs: Ref[] = [];
  /** the last object pronoun of each kind, and whom it refers to (undefined: someone the passage does not name) */
  const objects = new Map<Pronouns, { at: number; entity: SliceEntity | undefined }>();
  // The one character whose state says it narrates (at the passage's chapter); dialogue's "I" is its speaker.
  const narrators = entities.filter((e) => e.type === 'character' && e.state.narrator === true);
  const storyNarrator = narrators.length === 1 ? narrators[0] : undefined;
  // In a novel told in documents, each heading ("Mina Murray's Journal.", "Letter, Lucy Westenra to Mina Murray")
  // makes its writer the "I" of what follows it, up to the next heading.
  const headings = documentHeadings(reading, named);
  let narrator = storyNarrator;
  // A letter read out inside the story is its writer's, not the story narrator's; a heading's writer stays (voice26).
  const letters = letterSpans(reading);
  let headed = false;
  /** where the narration's "I" had no narrator to refer to, and where a "he" or "she" found nobody */
  const unknownI: number[] = [];
  const unresolved: number[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (headings.has(i)) [narrator, headed] = [headings.get(i), true];
    const ref = startsAt.get(i);
    if (ref) {
      ref.subject = isSubject(syntax, ref);
      ref.main = ref.subject && !inSubordinate(syntax, ref.first);
      refs.push(ref);
      i = ref.last;
      i = addKin(ref) ?? i;
      continue;
    }
    const t = tokens[i];
    const voice = headed || !letterAt(letters, t.start) ? narrator : undefined;
    // "Mother came in": in a story its narrator tells, a kin word used as a name is the narrator's relative.
    if (voice && namesKin(tokens, i)) {
      const kin = kinReference(syntax, { entity: voice, first: i, last: i, subject: false, narrator: true }, namedAt, entities, kinship, pronounsOf, i);
      if (kin) {
        kin.subject = isSubject(syntax, kin);
        kin.main = kin.subject && !inSubordinate(syntax, i);
        refs.push(kin);
        continue;
      }
    }
    const own = firstPerson[t.lower];
    if (!voice && t.text === 'I' && t.pos === 'PRON' && !t.quoted) unknownI.push(i);
    if (voice && own && t.pos === 'PRON' && !t.quoted && (t.lower !== 'i' || t.text === 'I')) {
      const mine: Ref = { entity: voice, first: i, last: i, pronoun: own, subject: false, narrator: true };
      mine.subject = own === 'nominative' && isSubject(syntax, mine);
      mine.main = mine.subject && !inSubordinate(syntax, i);
      refs.push(mine);
      i = addKin(mine) ?? i;
      continue;
    }
    const entry = personal[t.lower];
    if (!entry || t.pos !== 'PRON' || t.quoted) continue;
    let [kind, role] = entry;
    if (t.lower === 'her') role = ['NOUN', 'ADJ', 'NUM', 'PROPN'].includes(tokens[i + 1]?.pos ?? '') || tokens[i + 1]?.pos === 'ADV' ? 'possessive' : 'object';
    // "Miss Havisham beckoned her…, and tried it against her brown hair": after an object "her" that is not the
    // subject, a "her" or "she" of that sentence may be either woman, unless it resolves to the object's own referent.
    const chosen = goesOnUnnamed(i, kind, role) ? undefined : resolve(syntax, refs, i, kind, role, pronounsOf);
    // A doubtful antecedent leaves the pronoun to someone the reader cannot name, carried to no one.
    const doubtful = chosen !== undefined && doubtfulAntecedent(syntax, refs, chosen, i, kind, role, pronounsOf, shared);
    const resolvedTo = doubtful ? undefined : chosen?.entity;
    const object = objects.get(kind);
    const ambiguous = doubtful || (object !== undefined && tokens[object.at].sentence === t.sentence && (role === 'possessive' || role === 'nominative') && object.entity !== resolvedTo);
    if (role === 'object') objects.set(kind, { at: i, entity: resolvedTo });
    const carried = resolvedTo === undefined && !ambiguous ? carry(syntax, refs, i, kind, role, pronounsOf, { unknownI, unresolved }) : undefined;
    const earlier = resolvedTo === undefined && carried === undefined && !ambiguous ? fromChapter(i, kind, role) : undefined;
    const entity = ambiguous ? undefined : (resolvedTo ?? carried ?? earlier);
    if (!entity) {
      if (kind !== 'they') unresolved.push(i);
      continue;
    }
    const resolved: Ref = { entity, first: i, last: i, pronoun: role, subject: false, ...(carried || earlier ? { carried: true } : {}) };
    resolved.subject = role === 'nominative' && isSubject(syntax, resolved);
    resolved.main = resolved.subject && !inSubordinate(syntax, i);
    refs.push(resolved);
    i = addKin(resolved) ?? i;
  }
  return refs;

  /**
   * "She was a very pretty girl, … of a sort which Emma admired. She was short, plump…": a subject or possessive whose
   * previous sentence's subject of its gender was a pronoun left unresolved, with no character of that gender a subject
   * since, goes on about that unnamed someone (lexicon `pronounCarry.keepsUnnamed`).
   */
  function goesOnUnnamed(at: number, kind: Pronouns, role: NonNullable<Ref['pronoun']>): boolean {
    if (!pronounCarry.keepsUnnamed || kind === 'they' || !pronounCarry.roles.has(role)) return false;
    const sentence = tokens[at].sentence;
    const before = unresolved.filter((k) => personal[tokens[k].lower]?.[1] === 'nominative' && personal[tokens[k].lower]?.[0] === kind && tokens[k].sentence === sentence - 1).at(-1);
    return before !== undefined && !refs.some((r) => r.first > before && r.subject && r.entity.type === 'character' && fits(kind, pronounsOf(r.entity)));
  }

  /**
   * The character named before the passage, for a subject or possessive of its gender with no character that fits it
   * named before it in the passage, within the passage's first paragraph and as many sentences from that mention as
   * the reader itself reaches (its window across a paragraph break, `pronounCarry.sentences` within a paragraph), and
   * with no break of `pronounCarry` before it in the passage (a quotation, a pronoun of its gender left unresolved, an
   * unknown "I", a newcomer).
   */
  function fromChapter(at: number, kind: Pronouns, role: NonNullable<Ref['pronoun']>): SliceEntity | undefined {
    const antecedent = before?.get(kind);
    if (!antecedent || !pronounCarry.roles.has(role)) return undefined;
    const { breaks } = pronounCarry;
    if (antecedent.back + tokens[at].sentence > antecedent.reach) return undefined;
    if (breaks.has('paragraph') && reading.text.slice(0, tokens[at].start).includes('\n')) return undefined;
    if (refs.some((r) => r.entity.type === 'character' && !r.narrator && fits(kind, pronounsOf(r.entity)))) return undefined;
    if (breaks.has('quotation') && tokens.slice(0, at).some((t) => t.quoted)) return undefined;
    if (breaks.has('unknownI') && unknownI.length > 0) return undefined;
    if (breaks.has('unresolved') && unresolved.some((k) => personal[tokens[k].lower]?.[0] === kind)) return undefined;
    if (breaks.has('newcomer') && tokens.slice(0, at).some((t, k) => pronounCarry.newcomers.has(t.lower) && mayBe(tokens, k + 1, kind))) return undefined;
    return antecedent.entity;
  }

  /** The kin reference a possessor starts, added after it: answers the token it ends at. */
  function addKin(possessor: Ref): number | undefined {
    const ref = kinReference(syntax, possessor, namedAt, entities, kinship, pronounsOf);
    if (!ref) return undefined;
    ref.subject = isSubject(syntax, ref);
    ref.main = ref.subject && !inSubordinate(syntax, ref.first);
    refs.push(ref);
    return ref.last;
  }
}

/** A letter's stretch of a passage, in characters (end exclusive). */
export type LetterSpan = { start: number; end: number };

/**
 * The letters a story reads out (lexicon `letterVoice`): from a paragraph opening on a salutation to its closing line,
 * the last paragraph before one of dialogue, or the passage's end; after a break for dialogue, a paragraph that follows
 * one ending on a colon goes on with the letter.
 */
export function letterSpans(reading: Reading): LetterSpan[] {
  const { text } = reading;
  const spans: LetterSpan[] = [];
  const dialogue = /["“”‘]/;
  let open: LetterSpan | undefined;
  let letters = false;
  let previous = '';
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    const line = text.slice(start, end).trim();
    if (line) {
      const words = line.match(/[\p{L}][\p{L}.'’]*/gu) ?? [];
      if (open && dialogue.test(line)) open = undefined;
      else if (!open && !dialogue.test(line) && (salutation(line) || (letters && (previous.endsWith(':') || postscript.test(line))))) {
        open = { start, end };
        spans.push(open);
        letters = true;
      }
      if (open) open.end = end;
      if (open && ((letterVoice.closing.has(words[0]?.toLowerCase() ?? '') && /,$/.test(line) && words.length <= 6) || signed.test(line))) open = undefined;
      previous = line;
    }
    start = end + 1;
  }
  return spans;
}

/**
 * "Dear Livesey--", "My dear Sir,", "Madam,": a salutation opening its line (lexicon `letterVoice`); not "Dear me, …";
 * a "Sir," or "Madam," alone on its line ("Sir Walter Elliot, of…" is a title, "Gentlemen, which means…" an aside).
 */
function salutation(line: string): boolean {
  const head = /^(?:my\s+(?:own\s+)?)?([\p{L}]+)((?:\s+[\p{L}][\p{L}.'’]*){0,8}?)\s*(?:,|--|—)/iu.exec(line);
  if (!head || !letterVoice.opening.has(head[1].toLowerCase())) return false;
  const after = head[2].trim().split(/\s+/).filter(Boolean);
  if (after.length > letterVoice.words) return false;
  if (letterVoice.endearing.has(head[1].toLowerCase())) return after.length > 0 && !letterVoice.exclaiming.has(after[0].toLowerCase());
  return line.slice(head[0].length).trim() === '';
}

/** A postscript reopens the letter: "Postscript--I did not tell you…", "P.S.", "P.P.S.--". */
const postscript = /^(?:postscript|(?:p\.\s?)+s\.)/i;
/** A paragraph ending on its writer's signature after a full stop: ". John Trelawney", ". J. T." (not ". Mr. Smith."). */
const signed = /[.!?]\s+(?:\p{Lu}\.\s?){1,3}$|[.!?]\s+\p{Lu}[\p{Ll}’'-]+(?:\s+\p{Lu}[\p{Ll}’'-]+){0,2}$/u;

const letterAt = (spans: LetterSpan[], offset: number) => spans.some((s) => s.start <= offset && offset < s.end);

/**
 * The headings of the documents a passage holds, by the token after each: a short line of its own naming a character's
 * document ("Mina Murray's Journal.", "Dr. Seward's Diary", "Letter, Lucy Westenra to Mina Murray"), with its writer.
 */
function documentHeadings(reading: Reading, named: Ref[]): Map<number, SliceEntity> {
  const { tokens, text } = reading;
  const found = new Map<number, SliceEntity>();
  for (const r of named) {
    if (r.entity.type !== 'character') continue;
    // Cheap tests first: a possessive after the name, or a document's noun before it.
    if (!/^['’]s$/.test(tokens[r.last + 1]?.lower ?? '') && !tokens.slice(Math.max(0, r.first - 3), r.first).some((t) => documents.has(t.lower))) continue;
    const lineStart = text.lastIndexOf('\n', tokens[r.first].start) + 1;
    const lineEnd = text.indexOf('\n', tokens[r.last].end);
    const line = text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd);
    if ((line.match(/[\p{L}\p{N}]+/gu) ?? []).length > 14) continue;
    let k = r.last + 1;
    let writes = /^['’]s$/.test(tokens[k]?.lower ?? '');
    if (writes) {
      k++;
      while (k < r.last + 4 && tokens[k] && (tokens[k].pos === 'ADJ' || tokens[k].pos === 'PUNCT') && !documents.has(tokens[k].lower)) k++;
      writes = documents.has(tokens[k]?.lower ?? '');
    } else {
      // "Letter, Lucy Westenra to Mina Murray", "Letter from Lucy Westenra to…"
      let j = r.first - 1;
      while (j >= 0 && (tokens[j].pos === 'PUNCT' || tokens[j].lower === 'from') && tokens[j].start >= lineStart) j--;
      writes = j >= 0 && tokens[j].start >= lineStart && documents.has(tokens[j].lower) && tokens[r.last + 1]?.lower === 'to';
    }
    if (!writes) continue;
    let after = r.last + 1;
    while (after < tokens.length && tokens[after].start < lineStart + line.length) after++;
    found.set(after, r.entity);
  }
  return found;
}

/**
 * A capitalised kin word standing as a name in the narration ("Mother came in", "I told Father"): no article or
 * possessor before it, no name after it ("Father Brown", "Uncle Tom" are titles of a name), no hyphen.
 */
function namesKin(tokens: Token[], i: number): boolean {
  const t = tokens[i];
  const kin = kinWord(t.lower);
  if (!kin || !calledByKin.has(kin[0]) || t.quoted || !/^\p{Lu}\p{Ll}/u.test(t.text) || (t.pos !== 'PROPN' && t.pos !== 'NOUN')) return false;
  const before = tokens[i - 1];
  const next = tokens[i + 1];
  if (before && (before.pos === 'DET' || before.pos === 'ADJ' || possessives.has(before.lower) || /^['’]s$/.test(before.lower) || before.text === '-')) return false;
  return !next || !(next.pos === 'PROPN' || /^\p{Lu}/u.test(next.text) || next.text === '-' || /^['’]s$/.test(next.lower));
}

/** "June's husband", "her mother": the possessor's one relative of the kin word's role (and gender) in the graph. */
function kinReference(
  syntax: Syntax,
  possessor: Ref,
  namedAt: Map<number, number>,
  entities: SliceEntity[],
  kinship: Held[],
  pronounsOf: (e: SliceEntity) => Pronouns | undefined,
  /** a kin word standing alone as a name ("Mother came in"), at this token */
  bare?: number,
): Ref | undefined {
  const { tokens } = syntax.reading;
  const start = bare ?? (possessor.pronoun === 'possessive' ? possessor.last + 1 : !possessor.pronoun && /^['’]s$/.test(tokens[possessor.last + 1]?.lower ?? '') ? possessor.last + 2 : -1);
  // "my poor mother", "his copper-haired brother": adjectives and hyphenated compounds before the kin word; "her
  // stepmother", "his brother-in-law" are roles of their own.
  const { at: kinAt, found } = kinAfter(tokens, start);
  if (!found) return undefined;
  // "my new father", "her future husband": not the one the graph gives that role.
  if (tokens.slice(start, kinAt).some((t) => antecedentDoubts.otherKin.has(t.lower))) return undefined;
  const { role, gender } = found.kin;
  const at = found.last;
  const next = tokens[at + 1];
  // "her husband Phil", "June's husband, Phil," and "Clem's father, the Reverend," say who is meant.
  const apposed = next?.text === ',' ? at + 2 : at + 1;
  // "her uncle, Tom, and the twins": a list names the uncle and Tom both.
  let apposedLast = namedAt.get(apposed) ?? apposed;
  while (!namedAt.has(apposed) && tokens[apposedLast + 1]?.pos === 'PROPN') apposedLast++;
  const listed = next?.text === ',' && listedAfter(tokens, apposedLast);
  if (!listed && (namedAt.has(apposed) || tokens[apposed]?.pos === 'PROPN' || (tokens[apposed]?.pos === 'DET' && tokens[apposed + 1]?.pos === 'PROPN'))) return undefined;
  const ids = new Set(
    kinship
      .filter((h) => h.of === possessor.entity.id && h.kin.role === role && (!gender || !h.kin.gender || h.kin.gender === gender))
      .map((h) => h.who),
  );
  // "Sam's father" among his two parents: the one whose pronouns fit the word. A relative the slice lacks may fit.
  const possible = [...ids].map((id) => entities.find((e) => e.id === id)).filter((e) => {
    const pronouns = e && pronounsOf(e);
    return !gender || pronouns === undefined || pronouns === gender;
  });
  const [relative] = possible;
  return possible.length === 1 && relative?.type === 'character' ? { entity: relative, first: bare ?? possessor.first, last: at, subject: false, kin: true } : undefined;
}

function isSubject(syntax: Syntax, ref: Ref): boolean {
  if (ref.pronoun && ref.pronoun !== 'nominative') return false;
  if (speechTagBefore(syntax, ref.first) !== undefined) return true;
  return atSubjectPosition(syntax, ref.first) && predicatesOf(syntax, ref.last).some((p) => !p.relative);
}

/** The character a subject sees, spots or finds: the first one named after its verb of noticing, in that clause. */
function noticed(syntax: Syntax, candidates: Ref[], subject: Ref): Ref | undefined {
  const { tokens } = syntax.reading;
  const verb = predicatesOf(syntax, subject.last).find((p) => !p.relative)?.verb;
  if (verb === undefined || !verbIn(noticing, tokens[verb])) return undefined;
  return candidates.find((r) => r.first > verb && syntax.clause[r.first] === syntax.clause[verb] && !r.pronoun && !/^['’]s$/.test(tokens[r.last + 1]?.lower ?? ''));
}

/**
 * The refs a pronoun may go back to: characters whose pronouns fit it. A pronoun the narration asserts does not go back
 * to someone only dreamt, remembered or quoted, nor to the owner of a body, a grave or a picture ("Danny's body… He was
 * wearing one shoe": the body is what wears it).
 */
function fitting(syntax: Syntax, refs: Ref[], at: number, kind: Pronouns, role: NonNullable<Ref['pronoun']>, pronounsOf: (e: SliceEntity) => Pronouns | undefined): Ref[] {
  const { tokens } = syntax.reading;
  const sentence = tokens[at].sentence;
  const asserted = syntax.unasserted[at] === undefined;
  // "sad thoughts about my father", "the memory of poor Will": the one only thought of or mourned.
  const thoughtOf = (r: Ref) => {
    let k = r.first - 1;
    while (k > r.first - 4 && tokens[k] && (tokens[k].pos === 'DET' || tokens[k].pos === 'ADJ' || possessives.has(tokens[k].lower))) k--;
    return ['of', 'about', 'for'].includes(tokens[k]?.lower ?? '') && tokens[k - 1]?.pos === 'NOUN' && mindNouns.has(tokens[k - 1].lemma);
  };
  // "Danny's body", "the body of Will"
  const standingIn = (r: Ref) =>
    (/^['’]s$/.test(tokens[r.last + 1]?.lower ?? '') && standIns.has(tokens[r.last + 2]?.lemma ?? '')) ||
    (tokens[r.first - 1]?.lower === 'of' && standIns.has(tokens[r.first - 2]?.lemma ?? '')) ||
    // "a glance upon the dead O'Brien. All the time he kept smiling": the one who smiles is not the corpse.
    antecedentDoubts.deceased.has(tokens[r.first - 1]?.lower ?? '') ||
    thoughtOf(r);
  // "my father died that evening. … He got downstairs next morning": one whose death an earlier sentence tells is not
  // who a subject goes on acting.
  const dies = (r: Ref) => {
    if (tokens[r.first].sentence >= sentence) return false;
    let k = r.last + 1;
    while (tokens[k] && (tokens[k].pos === 'ADV' || (tokens[k].pos === 'AUX' && tokens[k].lemma === 'have'))) k++;
    return tokens[k]?.pos === 'VERB' && deathVerbs.has(tokens[k].lemma) && !tokens[k].negated;
  };
  const died = role === 'nominative' ? new Set(refs.filter(dies).map((r) => r.entity.id)) : new Set<string>();
  return refs.filter(
    (r) => r.entity.type === 'character' && !r.narrator && fits(kind, pronounsOf(r.entity)) && !(asserted && syntax.unasserted[r.first] !== undefined) && !standingIn(r) && !died.has(r.entity.id),
  );
}

/**
 * A "he" or "she" (subject or possessive) that its window leaves unresolved, carried back to the paragraph's topic: the
 * one character of its gender the paragraph names within `pronounCarry.sentences` sentences, a subject there at least
 * once, unless a break of `pronounCarry.breaks` stands between that topic's last mention and the pronoun.
 */
function carry(
  syntax: Syntax,
  refs: Ref[],
  at: number,
  kind: Pronouns,
  role: NonNullable<Ref['pronoun']>,
  pronounsOf: (e: SliceEntity) => Pronouns | undefined,
  seen: { unknownI: number[]; unresolved: number[] },
): SliceEntity | undefined {
  if (kind === 'they' || !pronounCarry.roles.has(role)) return undefined;
  const { tokens, text } = syntax.reading;
  const sentence = tokens[at].sentence;
  const { breaks } = pronounCarry;
  let from = refs.length;
  while (
    from > 0 &&
    sentence - tokens[refs[from - 1].first].sentence <= pronounCarry.sentences &&
    !(breaks.has('paragraph') && text.slice(tokens[refs[from - 1].last].end, tokens[at].start).includes('\n'))
  )
    from--;
  const span = refs.slice(from);
  const candidates = fitting(syntax, span, at, kind, role, pronounsOf);
  const topics = new Set(candidates.map((r) => r.entity));
  // Two of its gender in play: only the sense decides.
  if (topics.size !== 1 || (breaks.has('rival') && span.some((r) => r.entity.type === 'character' && !r.narrator && !topics.has(r.entity) && fits(kind, pronounsOf(r.entity))))) return undefined;
  const [topic] = topics;
  if (!candidates.some((r) => r.subject)) return undefined;
  const last = candidates.at(-1)!.last;
  const between = (k: number) => k > last && k < at;
  if (breaks.has('quotation') && tokens.slice(last + 1, at).some((t) => t.quoted)) return undefined;
  if (breaks.has('unknownI') && seen.unknownI.some(between)) return undefined;
  if (breaks.has('unresolved') && seen.unresolved.some((k) => between(k) && personal[tokens[k].lower]?.[0] === kind)) return undefined;
  if (breaks.has('newcomer') && tokens.slice(last + 1, at).some((t, k) => pronounCarry.newcomers.has(t.lower) && mayBe(tokens, last + 2 + k, kind))) return undefined;
  return topic;
}

/**
 * Someone unnamed brought in at token k who may take a pronoun of this kind: "a husband", "a stranger", "my uncle"; not
 * a description of someone named ("Joe was a kind man", "Joe, a smith,", "as a boy") nor a quotation's.
 */
function newcomerAt(tokens: Token[], k: number, kind: Pronouns): boolean {
  const t = tokens[k];
  if (!pronounCarry.newcomers.has(t.lower) || t.quoted || !mayBe(tokens, k + 1, kind)) return false;
  const before = tokens[k - 1];
  return !(before && (antecedentDoubts.describing.has(before.lower) || before.text === ','));
}

/** Whether the noun at k, after its adjectives, names a person who may take the pronoun: "a tall man", "a stranger", "my uncle" (not "woman" for "he"). */
function mayBe(tokens: Token[], k: number, kind: Pronouns): boolean {
  while (k < tokens.length && (tokens[k].pos === 'ADJ' || tokens[k].text === ',')) k++;
  const t = tokens[k];
  if (!t || !(people.has(t.lemma) || personNouns.has(t.lemma) || kinWord(t.lower))) return false;
  const gender = kinWord(t.lower)?.[1] ?? genderOfWord(t.lemma);
  return gender === undefined || gender === kind;
}

function resolve(
  syntax: Syntax,
  refs: Ref[],
  at: number,
  kind: Pronouns,
  role: NonNullable<Ref['pronoun']>,
  pronounsOf: (e: SliceEntity) => Pronouns | undefined,
): Ref | undefined {
  const { tokens } = syntax.reading;
  const sentence = tokens[at].sentence;
  const candidates = fitting(syntax, windowOf(syntax, refs, at), at, kind, role, pronounsOf);
  if (candidates.length === 0) return undefined;
  const sameClause = candidates.filter((r) => syntax.clause[r.first] === syntax.clause[at]);
  const clauseSubject = sameClause.filter((r) => r.subject).at(-1);
  if (role === 'reflexive') return clauseSubject ?? candidates.at(-1);
  // An object pronoun is not its own clause's subject ("Miss Havisham beckoned her": that would be "herself").
  if (role === 'object') return candidates.filter((r) => r.entity !== clauseSubject?.entity).at(-1);
  if (clauseSubject) return clauseSubject;
  const recent = candidates.filter((r) => r.subject && sentence - tokens[r.first].sentence <= 1);
  const recentSubject = recent.filter((r) => r.main).at(-1) ?? recent.at(-1);
  // "Pim finds Volkov in the reactor room. He is rewiring…": what a sentence's subject sees or finds is what the next
  // sentence goes on about.
  const seen = recentSubject && tokens[recentSubject.first].sentence === sentence - 1 ? noticed(syntax, candidates, recentSubject) : undefined;
  return seen ?? recentSubject ?? candidates.at(-1);
}

/** The refs of a pronoun's sentence and the two before it: read back from the last, as the refs are in the passage's order. */
function windowOf(syntax: Syntax, refs: Ref[], at: number): Ref[] {
  const { tokens } = syntax.reading;
  const sentence = tokens[at].sentence;
  let from = refs.length;
  while (from > 0 && sentence - tokens[refs[from - 1].first].sentence <= 2) from--;
  return refs.slice(from);
}

/**
 * Whether the antecedent the resolver chose is no one the passage is about (lexicon `antecedentDoubts`): a name denied
 * ("It was not Wildfire") or compared with ("than Godfrey"); or an animal
 * the canon describes as one, while a person the pronoun may fit is in its window.
 */
function doubtfulAntecedent(
  syntax: Syntax,
  refs: Ref[],
  chosen: Ref,
  at: number,
  kind: Pronouns,
  role: NonNullable<Ref['pronoun']>,
  pronounsOf: (e: SliceEntity) => Pronouns | undefined,
  shared: Shared[],
): boolean {
  const { tokens } = syntax.reading;
  if (!chosen.pronoun && !chosen.kin && !chosen.narrator) {
    const before = tokens[chosen.first - 1];
    if (before && antecedentDoubts.denying.has(before.lower)) return true;
    if (before && antecedentDoubts.comparing.has(before.lower) && before.pos !== 'VERB' && before.pos !== 'AUX') return true;
  }
  if (antecedentDoubts.speechTagPossessive && role === 'possessive' && speechTagBefore(syntax, at) !== undefined) {
    if (new Set(fitting(syntax, windowOf(syntax, refs, at), at, kind, role, pronounsOf).map((r) => r.entity)).size > 1) return true;
  }
  // Someone between the antecedent and the pronoun who may take it as well, unless the antecedent is its own clause's subject.
  const ownSubject = chosen.subject && syntax.clause[chosen.first] === syntax.clause[at];
  if (!ownSubject && role !== 'reflexive') {
    const unnamed = (k: number) => !refs.some((r) => r.first <= k && k <= r.last);
    if (antecedentDoubts.sharedName && shared.some((s) => s.first > chosen.last && s.first < at && s.entities.some((e) => e.type === 'character' && fits(kind, pronounsOf(e))))) return true;
    if (antecedentDoubts.newcomer) for (let k = chosen.last + 1; k < at; k++) if (newcomerAt(tokens, k, kind) && unnamed(k)) return true;
  }
  if (!isAnimal(chosen.entity)) return false;
  return fitting(syntax, windowOf(syntax, refs, at), at, kind, role, pronounsOf).some((r) => r.entity !== chosen.entity && !isAnimal(r.entity));
}

const animals = new WeakMap<SliceEntity, boolean>();
/** A character the canon describes as an animal (pronouns.ts `describedAnimal`). */
function isAnimal(entity: SliceEntity): boolean {
  let known = animals.get(entity);
  if (known === undefined) {
    known = describedAnimal(entity, entity.facts.map((f) => f.text));
    animals.set(entity, known);
  }
  return known;
}

/** A character named before the passage: how many sentences back, and how far into the passage a pronoun may take it. */
export type Antecedent = { entity: SliceEntity; back: number; reach: number };

/**
 * For "he" and "she", the character a pronoun the passage leaves with no antecedent may take from the words before it
 * in its chapter (`before`, read by chapterBefore.ts): the one character they name whose pronouns are these, when
 * they name nobody else those may fit (a rival) and no break of `pronounCarry` follows its last mention there (a
 * quotation, a newcomer who may be of that gender, an unknown "I"); else, with a rival there, the subject of the main
 * clause of the sentence just before the passage, for the passage's first sentence (`chapterAntecedent.recentSubject`).
 */
export function chapterAntecedents(before: Reading, entities: SliceEntity[], pronounsOf: (e: SliceEntity) => Pronouns | undefined): Map<Pronouns, Antecedent> {
  const { tokens } = before;
  const named = findNames(before, entities).filter((r) => r.entity.type === 'character' && r.entity.state.narrator !== true);
  const found = new Map<Pronouns, Antecedent>();
  const { breaks } = pronounCarry;
  const narrated = entities.some((e) => e.type === 'character' && e.state.narrator === true);
  /** what follows token `last` in the words before the passage that may take a pronoun of this kind from it */
  const broken = (last: number, kind: Pronouns) => {
    const after = tokens.slice(last + 1);
    if (breaks.has('quotation') && after.some((t) => t.quoted)) return true;
    if (breaks.has('unknownI') && !narrated && after.some((t) => t.text === 'I' && t.pos === 'PRON')) return true;
    return breaks.has('newcomer') && after.some((t, k) => pronounCarry.newcomers.has(t.lower) && mayBe(tokens, last + 2 + k, kind));
  };
  let syntax: Syntax | undefined;
  let read: Ref[] | undefined;
  for (const kind of ['he', 'she'] as const) {
    // The last one named whose pronouns are known to be these; another there whom they may fit is a rival.
    const lastNamed = named.filter((r) => pronounsOf(r.entity) === kind).at(-1);
    const rival = lastNamed && breaks.has('rival') && named.some((r) => r.entity !== lastNamed.entity && fits(kind, pronounsOf(r.entity)));
    if (lastNamed && !rival && !broken(lastNamed.last, kind)) {
      const { last } = lastNamed;
      const back = tokens[tokens.length - 1].sentence - tokens[last].sentence + 1;
      // A newline after it: the passage is in another paragraph, where the reader's own window reaches, not its carry.
      found.set(kind, { entity: lastNamed.entity, back, reach: before.text.slice(tokens[last].end).includes('\n') ? chapterAntecedent.acrossParagraph : pronounCarry.sentences });
      continue;
    }
    // Else, as the reader goes on from the sentence just before the passage: the subject of its main clause, named or
    // a pronoun the words before resolve, when nobody else its pronouns may fit is referred to after it there.
    if (!chapterAntecedent.recentSubject) continue;
    syntax ??= analyse({ ...before, tokens: [...tokens] });
    read ??= findReferences(syntax, entities, pronounsOf);
    const { clause } = syntax;
    const lastSentence = tokens[tokens.length - 1].sentence;
    const fitting = (r: Ref) => r.entity.type === 'character' && !r.narrator && r.entity.state.narrator !== true && fits(kind, pronounsOf(r.entity));
    const subject = read.filter((r) => fitting(r) && r.main && !r.carried && tokens[r.first].sentence === lastSentence).at(-1);
    if (!subject || pronounsOf(subject.entity) !== kind || subject.kin) continue;
    // Another it may fit after it, or beside it in its clause ("Frederick and Harcourt stood talking"): either may take it.
    if (read.some((r) => (r.first > subject.last || clause[r.first] === clause[subject.first]) && fitting(r) && r.entity !== subject.entity) || broken(subject.last, kind)) continue;
    found.set(kind, { entity: subject.entity, back: 1, reach: 1 });
  }
  return found;
}
