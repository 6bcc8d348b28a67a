// A shallow subject–verb reading over the tagged tokens: where clauses begin, whether a noun phrase stands as a subject
// and which verbs it governs (across appositives, relative clauses, adverbs, auxiliaries and coordinated subjects),
// the mood of a verb (negated, modal, passive, pluperfect, habitual, its tense), and which tokens are not asserted by
// the narration (dialogue, conditions, the complement of "dreamt that…", "told them how…", scenes framed as a dream).
import {
  aliveAdjectives,
  bygoneTimes,
  depicting,
  depictions,
  frames,
  hypothetical,
  interruptions,
  modals,
  negativeSubjects,
  nowPeriods,
  nowWords,
  pastSpans,
  possessives,
  recentTimes,
  reporting,
  sceneMaking,
  sceneNouns,
  thinking,
  youth,
} from './lexicon.ts';
import { finiteTense, verbIn, verbLike, type Reading, type Token } from './nlp.ts';
import { matchAt, type Classes, type Rule } from './patterns.ts';

// Words that always open a clause, and words that open one only where the tagger reads them as conjunctions
// ("before he came", not "before dawn").
const subordinators = new Set(['when', 'while', 'if', 'because', 'although', 'though', 'whereas', 'unless', 'whenever', 'where', 'wherever', 'whether', 'lest']);
const conjunctionsOrPrepositions = new Set(['as', 'after', 'before', 'until', 'till', 'since', 'once']);
/** Verbs whose object may take a bare infinitive that it does: "watched Ferris mend the sail". */
const perceiving = new Set(['see', 'watch', 'hear', 'feel', 'notice', 'observe', 'spot', 'let', 'make', 'help', 'catch', 'find']);
const relatives = new Set(['who', 'whom', 'whose', 'which']);
const coordinators = new Set(['and', 'but', 'or', 'so', 'yet', 'nor']);
const nominatives = new Set(['i', 'he', 'she', 'they', 'we', 'you', 'it']);
const breaks = new Set([';', ':', '—', '–', '(', ')', '--']);
/** Verbs of playing back or reading a record: what the next sentence tells is the record's content. */
const timeUnits = new Set(['second', 'minute', 'hour', 'day', 'night', 'week', 'month', 'year', 'decade', 'century', 'age', 'summer', 'winter', 'spring', 'autumn', 'season', 'moon', 'while', 'time']);
const viewing = new Set(['watch', 'view', 'replay', 'rewatch', 'read', 'reread', 'study', 'play', 'rewind', 'scroll']);
const quoteMarks = new Set(['"', '“', '”', '‘', '’', '«', '»']);
const isWord = (t: Token | undefined) => t !== undefined && t.pos !== 'PUNCT';
const isVerb = (t: Token | undefined) => t?.pos === 'VERB';
/** A participle opening a phrase: "having…", "turning…", "startled…". */
const participial = (t: Token | undefined) => t !== undefined && (t.lower === 'having' || t.lower === 'being' || ((t.pos === 'VERB' || t.pos === 'AUX') && /(ing|ed)$/.test(t.lower)));

const backstoryClasses: Classes = {
  span: (t) => pastSpans.has(t.lower),
  youth: (t) => youth.has(t.lower),
  bygone: (t) => bygoneTimes.has(t.lower),
  subject: (t) => (t.pos === 'PRON' && nominatives.has(t.lower)) || t.pos === 'PROPN',
  possessive: (t) => possessives.has(t.lower),
  was: (t) => t.lower === 'was' || t.lower === 'were',
  living: (t) => aliveAdjectives.has(t.lower) || youth.has(t.lower),
};
/**
 * Openers that set a sentence before the story's now, and with it the rest of its paragraph told in the past: a
 * character's backstory told in the preterite without a pluperfect to mark it.
 */
const backstoryOpeners: Rule[] = [
  // "Years ago", "Twenty years before", "Long ago"
  { id: 'span-ago', after: [{ pos: ['NUM', 'ADJ', 'DET'], op: '*' }, { is: 'span' }, { words: ['ago', 'before', 'earlier'] }] },
  // "In those days", "In the old days"
  { id: 'those-days', after: [{ words: ['in'] }, { words: ['those', 'the', 'former', 'earlier', 'old', 'olden', 'early', 'other'], op: '+' }, { words: ['days', 'times', 'years'] }] },
  // "In my youth", "In her girlhood", "In his day"
  { id: 'youth', after: [{ words: ['in'] }, { is: 'possessive' }, { pos: ['ADJ'], op: '*' }, { is: 'bygone' }] },
  // "When I was a girl", "While Will was still a boy"
  { id: 'when-young', after: [{ words: ['when', 'while'] }, { is: 'subject', op: '+' }, { is: 'was' }, { words: ['a', 'an', 'still', 'only', 'just', 'very', 'quite'], op: '*' }, { is: 'youth' }] },
  // "As a girl", "As a young man"
  { id: 'as-young', after: [{ words: ['as'] }, { words: ['a', 'an'] }, { pos: ['ADJ'], op: '*' }, { is: 'youth' }] },
  // "Before I was born"
  { id: 'before-born', after: [{ words: ['before'] }, { is: 'subject', op: '+' }, { is: 'was' }, { words: ['born'] }] },
  // "Once upon a time", "Once, …"
  { id: 'once', after: [{ words: ['once'] }, { words: [',', 'upon'] }] },
];
/**
 * A clause anywhere in a sentence that sets the sentence in someone's lifetime: "Emmeline made poetry about the dead
 * when she was alive", "my mother ran the chandlery when I was a girl". It holds its sentence, not its paragraph.
 */
const lifetimeClauses: Rule[] = [
  { id: 'when-alive', after: [{ words: ['when', 'while'] }, { is: 'subject', op: '+' }, { is: 'was' }, { words: ['a', 'an', 'still', 'yet', 'only', 'just', 'very', 'quite'], op: '*' }, { is: 'living' }] },
];

export type Syntax = {
  reading: Reading;
  /** clause number of each token (clauses are numbered through the passage) */
  clause: number[];
  /** why a token is not asserted by the narration, or undefined */
  unasserted: (string | undefined)[];
  /** predicatesOf by the subject's last token: every check asks it of the same subjects */
  predicates: Map<number, Predicate[]>;
};

export function analyse(reading: Reading): Syntax {
  const { tokens } = reading;
  const clause: number[] = new Array(tokens.length).fill(0);
  let n = 0;
  // whether the current clause opened with a subordinator ("While Jonah was aboard, …")
  let subordinate = false;
  // whether the current clause is a relative one set off by a comma ("Mrs. Pike, whom nobody had seen idle, …"), and
  // whether it has its finite verb yet: the comma that closes it gives the clause back to the main verb ("bustled").
  let relativeClause = false;
  let relativeVerb = false;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const previous = tokens[i - 1];
    const next = tokens[i + 1];
    const opensSubordinate = subordinators.has(t.lower) || (t.pos === 'SCONJ' && conjunctionsOrPrepositions.has(t.lower)) || (t.pos === 'SCONJ' && t.lower !== 'that');
    const before = n;
    if (i > 0 && t.sentence !== previous.sentence) n++;
    else if (breaks.has(t.text) || (quoteMarks.has(t.text) && previous && t.quoted !== previous.quoted)) n++;
    else if (opensSubordinate) n++;
    else if (relatives.has(t.lower) && previous?.text === ',') n++;
    else if (coordinators.has(t.lower) && (previous?.text === ',' || (next && nominatives.has(next.lower) && next.pos === 'PRON'))) n++;
    // "While Jonah was aboard, Clara was in the chapel": after the comma a subject and its verb begin the main clause.
    else if (subordinate && previous?.text === ',' && beginsClause(tokens, i)) n++;
    else if (relativeClause && relativeVerb && previous?.text === ',' && (t.pos === 'VERB' || t.pos === 'AUX' || (t.pos === 'ADV' && next?.pos === 'VERB'))) n++;
    if (n !== before) {
      subordinate = opensSubordinate;
      relativeClause = relatives.has(t.lower) && previous?.text === ',';
      relativeVerb = false;
    } else if (relativeClause && (t.pos === 'AUX' || (t.pos === 'VERB' && finiteTense(tokens, i) !== undefined))) relativeVerb = true;
    clause[i] = n;
  }
  const syntax: Syntax = { reading, clause, unasserted: new Array(tokens.length).fill(undefined), predicates: new Map() };
  markUnasserted(syntax);
  return syntax;
}

/** A subject (a name, a nominative pronoun or a short noun phrase) and then straight away its finite verb. */
function beginsClause(tokens: Token[], i: number): boolean {
  let k = i;
  if (tokens[k]?.pos === 'PRON' && nominatives.has(tokens[k].lower)) k++;
  else {
    while (k < i + 5 && tokens[k] && (['DET', 'ADJ', 'PROPN', 'NOUN'].includes(tokens[k].pos) || /^['’]s$/.test(tokens[k].lower))) k++;
    if (k === i) return false;
  }
  while (tokens[k]?.pos === 'ADV') k++;
  const verb = tokens[k];
  return verb !== undefined && verb.sentence === tokens[i].sentence && (verb.pos === 'AUX' || (verb.pos === 'VERB' && !verb.lower.endsWith('ing')));
}

/** Whether token i stands in a subordinate or relative clause ("where Osric had fallen", "who handed her…"). */
export function inSubordinate(syntax: Syntax, i: number): boolean {
  const opener = syntax.reading.tokens[clauseStart(syntax, i)];
  return subordinators.has(opener.lower) || relatives.has(opener.lower) || opener.pos === 'SCONJ';
}

/** The first token of the clause token i belongs to. */
export function clauseStart(syntax: Syntax, i: number): number {
  let k = i;
  while (k > 0 && syntax.clause[k - 1] === syntax.clause[i]) k--;
  return k;
}

export function clauseEnd(syntax: Syntax, i: number): number {
  let k = i;
  while (k + 1 < syntax.clause.length && syntax.clause[k + 1] === syntax.clause[i]) k++;
  return k;
}

function markUnasserted(syntax: Syntax): void {
  const { reading } = syntax;
  const { tokens, sentences } = reading;
  const mark = (from: number, to: number, why: string) => {
    for (let k = from; k <= to; k++) syntax.unasserted[k] ??= why;
  };
  for (let i = 0; i < tokens.length; i++) if (tokens[i].quoted) syntax.unasserted[i] = 'dialogue';
  markBackstory(syntax, mark);
  for (const s of sentences) {
    // A scene framed as a dream, a memory, a story or a picture: "In her dream…", "In the painting…".
    const opener = firstWord(tokens, s.first, s.last);
    if (opener !== undefined && tokens[opener].pos === 'ADP') {
      for (let k = opener + 1; k <= Math.min(s.last, opener + 3); k++) {
        if (frames.has(tokens[k].lemma) && (tokens[k].pos === 'NOUN' || tokens[k].pos === 'PROPN')) mark(s.first, s.last, `framed as ${tokens[k].lemma}`);
        if (tokens[k].pos === 'NOUN' || tokens[k].pos === 'PROPN') break;
      }
    }
    // "Quint watched the video again. Danny laughed at the camera…": what follows a recording or a letter being
    // watched or read is its content, to the end of the paragraph's next sentence.
    const next = syntax.reading.sentences[tokens[s.last].sentence + 1];
    if (next && !syntax.reading.text.slice(tokens[s.last].end, tokens[next.first].start).includes('\n')) {
      for (let k = s.first; k <= s.last; k++) {
        if (tokens[k].pos !== 'VERB' || !viewing.has(tokens[k].lemma) || tokens[k].quoted) continue;
        let j = k + 1;
        while (j <= s.last && ['DET', 'ADJ', 'PRON'].includes(tokens[j].pos)) j++;
        if (j <= s.last && frames.has(tokens[j].lemma) && tokens[j].pos === 'NOUN') mark(next.first, next.last, `framed as ${tokens[j].lemma}`);
      }
    }
    // "Leah saw Danny in her dreams.": a frame closing the sentence frames it too.
    for (let k = s.first; k + 1 <= s.last; k++) {
      if (tokens[k].lower !== 'in' || tokens[k].quoted) continue;
      const noun = ['DET', 'PRON'].includes(tokens[k + 1].pos) ? k + 2 : k + 1;
      const after = tokens[noun + 1];
      if (noun <= s.last && frames.has(tokens[noun].lemma) && tokens[noun].pos === 'NOUN' && (!after || after.pos === 'PUNCT')) mark(s.first, s.last, `framed as ${tokens[noun].lemma}`);
    }
    // "The painting over the stairs shows Will at the helm; he is laughing": what a picture or a statue shows, to the
    // end of the sentence.
    for (let k = s.first + 1; k <= s.last; k++) {
      const t = tokens[k];
      // The tagger may read "shows" as a noun; after its subject, an object following, it is the verb. (The verb class
      // is asked before verbLike, which looks the word up in the model's lexicon: a tenth of the parse when asked of
      // every word.)
      if (t.quoted || !verbIn(depicting, t) || (t.pos !== 'VERB' && !verbLike(tokens, k, reading.known))) continue;
      for (let j = k - 1; j >= clauseStart(syntax, k); j--) {
        if (tokens[j].pos === 'VERB' || tokens[j].pos === 'AUX') break;
        if (tokens[j].pos === 'NOUN' && depictions.has(tokens[j].lemma)) {
          mark(k + 1, s.last, `shown by a ${tokens[j].lemma}`);
          break;
        }
      }
    }
    // "The same vision came to me every night: Will on the wall…": after a scene noun and a colon, its content.
    for (let k = s.first + 1; k < s.last; k++) {
      if (tokens[k].text !== ':' || tokens[k].quoted) continue;
      const noun = tokens.slice(clauseStart(syntax, k - 1), k).find((t) => t.pos === 'NOUN' && sceneNouns.has(t.lemma));
      if (noun) mark(k + 1, s.last, `framed as ${noun.lemma}`);
    }
    // "Two weeks ago Walt sat in my car…": a time counted back from the scene's now sets its clause then, when the dead
    // may still have lived ("…, and tonight Nico hands me a drink" is the scene again).
    for (let k = s.first + 1; k <= s.last; k++) {
      if (tokens[k].lower === 'ago' && !tokens[k].quoted && timeUnits.has(tokens[k - 1].lemma)) mark(clauseStart(syntax, k), clauseEnd(syntax, k), 'told of an earlier time');
    }
    // "Cador used to whistle while he worked, Edda said.": a report tag closing an unquoted sentence makes all before
    // it the speaker's account.
    const tag = trailingReport(tokens, s.first, s.last);
    if (tag !== undefined) mark(s.first, tag - 1, 'reported (closing tag)');
    for (let i = s.first; i <= s.last; i++) {
      const t = tokens[i];
      if (t.quoted) continue;
      // Conditions and comparisons with what is not so: to the end of the clause ("If Osric were alive,").
      if (hypothetical.has(t.lower) || (t.lower === 'as' && ['if', 'though'].includes(tokens[i + 1]?.lower ?? ''))) {
        mark(i, clauseEndFrom(syntax, i + (t.lower === 'as' ? 2 : 1)), `conditional (${t.lower})`);
      }
      if (t.pos !== 'VERB' && !(t.pos === 'AUX' && t.lemma !== 'be' && t.lemma !== 'have' && t.lemma !== 'do')) continue;
      // What follows a verb of thinking, dreaming or remembering is the thought: to the end of the sentence, or of the
      // clause a new subject opens after "and"/"but".
      // A dream or a picture in the mind reaches past a semicolon or a new clause, to the end of the sentence.
      if (verbIn(thinking, t) && !t.negated) mark(i + 1, interrupted(tokens, i, verbIn(sceneMaking, t) ? s.last : complementEnd(syntax, i, s.last)), `after "${t.text}"`);
      // A verb of saying opens a claim only with "that", "how", "whether"… or a clause right after it ("said Cador
      // was alive"); a speech tag ("said Osric, and…") opens nothing.
      if (verbIn(reporting, t)) {
        const opens = reportOpens(tokens, i, s.last);
        if (opens !== undefined) mark(opens, complementEnd(syntax, i, s.last), `reported by "${t.text}"`);
      }
    }
  }
}

/** Whether a sentence comes back to the story's now: "now", "tonight", "this morning", or a verb of the present tense. */
function returnsToNow(syntax: Syntax, first: number, last: number): boolean {
  const { tokens } = syntax.reading;
  for (let k = first; k <= last; k++) {
    const t = tokens[k];
    if (t.quoted) continue;
    if (nowWords.has(t.lower) || (t.lower === 'this' && nowPeriods.has(tokens[k + 1]?.lower ?? ''))) return true;
    if (finiteTense(tokens, k) === 'present') return true;
  }
  return false;
}

/**
 * Backstory told in the preterite: a sentence a backstory opener begins ("When I was a girl, my mother ran the
 * chandlery") is told of that time, and so is each sentence after it in its paragraph until one comes back to the
 * story's now. Tense and time words are read across the paragraph, not the sentence.
 */
function markBackstory(syntax: Syntax, mark: (from: number, to: number, why: string) => void): void {
  const { tokens, sentences, text } = syntax.reading;
  let backstory = false;
  for (const [n, s] of sentences.entries()) {
    if (n > 0 && text.slice(tokens[sentences[n - 1].last].end, tokens[s.first].start).includes('\n')) backstory = false;
    let first = firstWord(tokens, s.first, s.last);
    if (first === undefined) continue;
    if (tokens[first].pos === 'CCONJ') first++;
    if (first <= s.last && matchAt(tokens, first, backstoryOpeners, backstoryClasses)) {
      backstory = true;
      // Up to a clause that comes back to the now: "Two weeks ago Walt sat in my car, and tonight Nico hands me a drink."
      for (let k = s.first; k <= s.last; k = clauseEnd(syntax, k) + 1) {
        if (returnsToNow(syntax, k, clauseEnd(syntax, k))) break;
        mark(k, clauseEnd(syntax, k), 'told of an earlier time');
      }
      continue;
    }
    if (!backstory) {
      for (let k = first; k <= s.last; k++) {
        if (!['when', 'while'].includes(tokens[k].lower) || !matchAt(tokens, k, lifetimeClauses, backstoryClasses)) continue;
        for (let c = s.first; c <= s.last; c = clauseEnd(syntax, c) + 1) if (!returnsToNow(syntax, c, clauseEnd(syntax, c))) mark(c, clauseEnd(syntax, c), 'told of a lifetime before the now');
        break;
      }
      continue;
    }
    if (returnsToNow(syntax, s.first, s.last)) backstory = false;
    else mark(s.first, s.last, 'told of an earlier time (its paragraph)');
  }
}

/**
 * The comma opening a report tag that follows an unquoted claim: ", Edda said." / ", said Edda." / ", they claimed." at
 * the end of a sentence, or ", Addie told herself, though…" inside it.
 */
function trailingReport(tokens: Token[], first: number, last: number): number | undefined {
  let end = last;
  while (end > first && tokens[end].pos === 'PUNCT') end--;
  for (let comma = first + 1; comma < end; comma++) {
    if (tokens[comma].text !== ',') continue;
    let close = comma + 1;
    while (close <= end && tokens[close].text !== ',') close++;
    const tail = tokens.slice(comma + 1, close);
    if (tail.length === 0 || tail.length > 4) continue;
    if (tokens[comma - 1]?.quoted || quoteMarks.has(tokens[comma - 1]?.text ?? '') || quoteMarks.has(tokens[comma + 1]?.text ?? '')) return undefined;
    // a present participle is no tag ("…, dreaming pleasant dreams" goes on with the sentence's own subject)
    const verb = tail.find((t) => t.pos === 'VERB');
    if (verb?.lower.endsWith('ing')) continue;
    const subject = tail.some((t) => t.pos === 'PROPN' || t.pos === 'PRON' || t.pos === 'NOUN');
    if (verb && subject && (verbIn(reporting, verb) || verbIn(thinking, verb)) && tail.every((t) => ['VERB', 'PROPN', 'PRON', 'NOUN', 'DET', 'ADV', 'ADJ'].includes(t.pos))) {
      // "As Bell took his departure, Margaret said, with a blush, “Can I…”": a tag that leads into a quotation is
      // what the narration says next, not a report of what came before it.
      return tokens.slice(close, last + 1).some((t) => t.quoted) ? undefined : comma;
    }
  }
  return undefined;
}

/** Where a thought from the verb at i to `end` is broken into by the narration's own event (lexicon `interruptions`). */
function interrupted(tokens: Token[], i: number, end: number): number {
  for (let k = i + 1; k < end; k++) {
    if (tokens[k].text !== ',' || tokens[k].quoted) continue;
    const words = tokens.slice(k + 1, Math.min(end, k + 8) + 1).filter((t) => t.text !== ',').map((t) => t.lower);
    if (interruptions.some((phrase) => phrase.every((w, j) => words[j] === w))) return k - 1;
  }
  return end;
}

function firstWord(tokens: Token[], from: number, to: number): number | undefined {
  for (let k = from; k <= to; k++) if (isWord(tokens[k]) && !tokens[k].quoted) return k;
  return undefined;
}

function clauseEndFrom(syntax: Syntax, i: number): number {
  const { tokens } = syntax.reading;
  const sentence = tokens[Math.min(i, tokens.length - 1)].sentence;
  let k = i;
  while (k + 1 < tokens.length && tokens[k + 1].sentence === sentence && tokens[k + 1].text !== ',' && !breaks.has(tokens[k + 1].text)) k++;
  return k;
}

/** Where the complement of the verb at i ends: the sentence's end, or before ", and <new subject>" / ";". */
function complementEnd(syntax: Syntax, i: number, last: number): number {
  const { tokens } = syntax.reading;
  for (let k = i + 1; k <= last; k++) {
    if (breaks.has(tokens[k].text)) return k - 1;
    const next = tokens[k + 1];
    if (tokens[k].text === ',' && next && coordinators.has(next.lower) && next.lower !== 'or') {
      const after = tokens[k + 2];
      if (after && ((after.pos === 'PRON' && nominatives.has(after.lower)) || after.pos === 'PROPN' || after.pos === 'DET')) return k - 1;
    }
  }
  return last;
}

/** The first token of the claim a verb of saying opens, or undefined when it is a speech tag or takes no clause. */
function reportOpens(tokens: Token[], i: number, last: number): number | undefined {
  for (let k = i + 1; k <= Math.min(last, i + 6); k++) {
    const t = tokens[k];
    if (t.quoted || t.text === '.' || t.text === ';') return undefined;
    if (['that', 'how', 'whether', 'if', 'why', 'where', 'when', 'what', 'who'].includes(t.lower) && t.pos !== 'DET') return k;
    // A clause right after the verb: a subject noun phrase ("Clem", "she", "Clem's eyes", "the boy") and its verb.
    if (t.pos === 'VERB' || t.pos === 'AUX') {
      const phrase = tokens.slice(i + 1, k);
      const head = tokens[k - 1];
      const nounPhrase = phrase.every((w) => ['DET', 'ADJ', 'NOUN', 'PROPN', 'PRON', 'NUM'].includes(w.pos) || /^['’]s$/.test(w.lower));
      return k > i + 1 && nounPhrase && ['PROPN', 'PRON', 'NOUN'].includes(head.pos) ? i + 1 : undefined;
    }
    if (t.text === ',') return undefined;
  }
  return undefined;
}

/**
 * Whether a noun phrase starting at `first` stands where a subject stands: nothing but a fronted phrase ("At
 * vespers", "That night", "In Greyford,") between the start of its clause and it, and no verb or preposition
 * governing it. Articles and adjectives of its own phrase ("The red-haired Abbess") are skipped.
 */
export function atSubjectPosition(syntax: Syntax, first: number): boolean {
  const { tokens } = syntax.reading;
  let k = first - 1;
  while (k >= 0 && tokens[k].sentence === tokens[first].sentence && (tokens[k].pos === 'DET' || tokens[k].pos === 'ADJ' || tokens[k].text === '-' || tokens[k].pos === 'NUM')) {
    if (tokens[k].pos === 'DET') {
      k--;
      break;
    }
    k--;
  }
  const start = clauseStart(syntax, first);
  if (k < start) return true;
  const before = tokens[k];
  // "As Mr. Bell took his departure, …": "as" opening a clause subordinates it (not "such as X", "known as X").
  const opener = tokens[k - 1];
  if (before.lower === 'as' && (!opener || opener.sentence !== before.sentence || ['PUNCT', 'CCONJ'].includes(opener.pos))) return true;
  if (before.pos === 'ADP' || before.pos === 'VERB' || before.pos === 'AUX' || before.pos === 'PART') return false;
  for (let j = start; j <= k; j++) if (tokens[j].pos === 'VERB' || tokens[j].pos === 'AUX') return false;
  return true;
}

export type Predicate = {
  /** the main verb, or the copula ("was") when the predicate is an adjective, a number or a noun phrase */
  verb: number;
  auxes: number[];
  /** "was alive", "is twenty", "was captain": the token after the copula */
  copula: boolean;
  /** inside a relative clause on the subject ("Osric, who handed her…") */
  relative: boolean;
  habitual: boolean;
};

/**
 * The predicates a subject ending at token `last` governs: its relative clauses and its main verb. Skips an
 * appositive (", his habit still wet," / ", whistling,"), coordinated subjects ("and Osric", "and her sister Wenna"),
 * adverbs and auxiliaries. A word the model does not know, tagged as a noun right after a subject, is read as its
 * verb ("Cael knelt").
 */
export function predicatesOf(syntax: Syntax, last: number): Predicate[] {
  let found = syntax.predicates.get(last);
  if (!found) syntax.predicates.set(last, (found = findPredicates(syntax, last)));
  return found;
}

function findPredicates(syntax: Syntax, last: number): Predicate[] {
  const { tokens } = syntax.reading;
  const sentence = tokens[last].sentence;
  const found: Predicate[] = [];
  let k = last + 1;
  const inSentence = (j: number) => j < tokens.length && tokens[j].sentence === sentence;
  if (inSentence(k) && tokens[k].pos === 'PART' && /^['’]s$/.test(tokens[k].lower)) return found;
  for (let guard = 0; guard < 4 && inSentence(k); guard++) {
    const t = tokens[k];
    // "Nell's brother, Tom, and Jem carried…", "My mother, Jem and I walked…": a list of subjects, not an apposition;
    // so too a name in the middle of one ("where Lady Ann, Sir Giles, her daughter, and Mrs. Dale were sitting").
    const listed = t.text === ',' ? listEnd(tokens, k) : undefined;
    if (listed !== undefined && ['VERB', 'AUX', 'ADV'].includes(tokens[listed].pos)) {
      // "I had seen the captain, and Black Dog, and the blind man, Pew, and I thought": an item of a list a verb or a
      // preposition governs is its object, and the list's last item the subject of a clause of its own.
      if (governedItem(tokens, last)) return found;
      k = listed;
      continue;
    }
    if (t.text === ',' && k === last + 1 && closesApposition(syntax, last)) {
      k++;
      continue;
    }
    if (t.text === ',' || t.text === '—' || t.text === '–') {
      let close = closingComma(tokens, k, t.text);
      const opener = tokens[k + 1];
      if (opener && (relatives.has(opener.lower) || opener.lower === 'that')) {
        const relative = verbGroup(syntax, k + 2, close === undefined ? lastOfSentence(tokens, k) : close - 1);
        if (relative && opener.lower !== 'whose') found.push({ ...relative, relative: true });
        if (close === undefined) return found;
        k = close + 1;
        continue;
      }
      if (close === undefined) return found;
      let segment = tokens.slice(k + 1, close);
      // A bare verb form right after a preposition or an article is a noun the tagger misread ("in turn").
      const finite = (from: number, words: Token[]) =>
        words.some((s, j) => (s.pos === 'VERB' && !s.lower.endsWith('ing') && !s.lower.endsWith('ed') && !['ADP', 'DET'].includes(tokens[from + j - 1].pos)) || (s.pos === 'AUX' && finiteTense(tokens, from + j) !== undefined));
      if (finite(k + 1, segment) || segment.length > 14) return found;
      // "X, having wiped his spectacles, and having looked at each of them, rose": participle phrases in a row.
      for (let more = 0; more < 3 && tokens[close + 1]?.lower === 'and' && participial(tokens[close + 2]); more++) {
        const next = closingComma(tokens, close + 1, ',');
        if (next === undefined) return found;
        segment = tokens.slice(close + 2, next);
        if (finite(close + 2, segment) || segment.length > 14) return found;
        close = next;
      }
      const resumes = tokens[close + 1] && (['VERB', 'AUX', 'ADV'].includes(tokens[close + 1].pos) || verbLike(tokens, close + 1, syntax.reading.known));
      // "Silver, eating away, with the parrot upon his shoulder, had…": another phrase set off by commas follows.
      if (!resumes && tokens[close].text === ',' && (tokens[close + 1]?.pos === 'ADP' || participial(tokens[close + 1]))) {
        k = close;
        continue;
      }
      if (!resumes) return found;
      k = close + 1;
      continue;
    }
    if ((t.lower === 'and' || t.lower === 'or') && tokens[k + 1]) {
      // A coordinated subject: skip its noun phrase up to the shared verb.
      let j = k + 1;
      while (inSentence(j) && ['DET', 'PRON', 'ADJ', 'NOUN', 'PROPN', 'NUM'].includes(tokens[j].pos) && !(tokens[j].pos === 'PRON' && !nominatives.has(tokens[j].lower) && !possessives.has(tokens[j].lower))) j++;
      if (j === k + 1 || !inSentence(j) || !['VERB', 'AUX', 'ADV'].includes(tokens[j].pos)) return found;
      k = j;
      continue;
    }
    break;
  }
  const main = verbGroup(syntax, k, lastOfSentence(tokens, k));
  if (main) found.push({ ...main, relative: false });
  return found;
}

const listable = new Set(['DET', 'ADJ', 'NOUN', 'PROPN', 'NUM']);

/**
 * The token after a list that continues at the comma at k ("…, Tom, and the twins", "…, Jem and I"): noun phrases
 * parted by commas, the last after "and" or "or"; undefined when no such list follows.
 */
function listEnd(tokens: Token[], k: number): number | undefined {
  const sentence = tokens[k].sentence;
  let j = k;
  for (let items = 0; items < 8; items++) {
    if (tokens[j]?.text === ',') j++;
    const last = tokens[j]?.lower === 'and' || tokens[j]?.lower === 'or';
    if (last) j++;
    const start = j;
    while (tokens[j]?.sentence === sentence && (listable.has(tokens[j].pos) || /^['’]s$/.test(tokens[j].lower) || (tokens[j].pos === 'PRON' && (possessives.has(tokens[j].lower) || nominatives.has(tokens[j].lower))))) j++;
    if (j === start || tokens[j]?.sentence !== sentence) return undefined;
    if (last) return j;
    if (tokens[j].text !== ',' && tokens[j].lower !== 'and' && tokens[j].lower !== 'or') return undefined;
  }
  return undefined;
}

/**
 * Whether the noun phrase ending at `last` continues a list that a verb or a preposition before it governs: back over
 * items parted by commas to the verb or preposition, across an "and"/"or" or two items at least ("had seen the
 * captain, and Black Dog, and the blind man, Pew"; not "In the morning, Tom, …").
 */
function governedItem(tokens: Token[], last: number): boolean {
  const sentence = tokens[last].sentence;
  const inPhrase = (t: Token | undefined) => t !== undefined && t.sentence === sentence && (listable.has(t.pos) || /^['’]s$/.test(t.lower) || possessives.has(t.lower));
  let j = last;
  while (inPhrase(tokens[j])) j--;
  let items = 0;
  let joined = false;
  for (;;) {
    const separated = tokens[j]?.text === ',' || ['and', 'or'].includes(tokens[j]?.lower ?? '');
    if (!separated) break;
    while (tokens[j]?.text === ',' || ['and', 'or'].includes(tokens[j]?.lower ?? '')) {
      if (tokens[j].text !== ',') joined = true;
      j--;
    }
    const end = j;
    while (inPhrase(tokens[j])) j--;
    if (j === end) return false;
    items++;
  }
  const governor = tokens[j];
  return items > 0 && (joined || items >= 2) && governor?.sentence === sentence && (governor.pos === 'VERB' || governor.pos === 'ADP');
}

/**
 * Whether the name ending at token `last`, after a comma, is an item of a list ("her uncle, Tom, and the twins", "my
 * mother, Jem and I") rather than an apposition ("her uncle, Tom, came").
 */
export function listedAfter(tokens: Token[], last: number): boolean {
  const next = tokens[last + 1];
  if (!next) return false;
  if (next.lower === 'and' || next.lower === 'or') return true;
  return next.text === ',' && (tokens[last + 2]?.lower === 'and' || tokens[last + 2]?.lower === 'or');
}

/**
 * "Grace's husband, Bert, mended…": a name set off by commas right after a subject's noun phrase stands in apposition
 * to it, so the comma after the name closes the apposition and the verb that follows is the name's too.
 */
function closesApposition(syntax: Syntax, last: number): boolean {
  const { tokens } = syntax.reading;
  let j = last;
  while (j > 0 && tokens[j].pos === 'PROPN') j--;
  if (j === last || tokens[j].text !== ',' || !['NOUN', 'PROPN'].includes(tokens[j - 1]?.pos ?? '') || listedAfter(tokens, last)) return false;
  for (let k = clauseStart(syntax, j - 1); k < j; k++) if (tokens[k].pos === 'VERB' || tokens[k].pos === 'AUX' || tokens[k].text === ',') return false;
  return true;
}

function lastOfSentence(tokens: Token[], k: number): number {
  const sentence = tokens[Math.min(k, tokens.length - 1)].sentence;
  let j = Math.min(k, tokens.length - 1);
  while (j + 1 < tokens.length && tokens[j + 1].sentence === sentence) j++;
  return j;
}

function closingComma(tokens: Token[], k: number, mark: string): number | undefined {
  for (let j = k + 1; j < tokens.length && tokens[j].sentence === tokens[k].sentence && j < k + 18; j++) {
    if (tokens[j].text === mark || (mark === ',' && (tokens[j].text === '—' || tokens[j].text === '–'))) return j;
    if (tokens[j].quoted !== tokens[k].quoted) return undefined;
  }
  return undefined;
}

/** Auxiliaries, adverbs and negation from k, then the verb; a copula with its complement; "used to" + verb. */
function verbGroup(syntax: Syntax, k: number, end: number): Omit<Predicate, 'relative'> | undefined {
  const { tokens } = syntax.reading;
  const auxes: number[] = [];
  let habitual = false;
  let j = k;
  while (j <= end) {
    const t = tokens[j];
    if (t.pos === 'AUX') auxes.push(j);
    else if (t.lemma === 'use' && tokens[j + 1]?.lower === 'to') {
      habitual = true;
      j += 2;
      continue;
    } else if (!(t.pos === 'ADV' || (t.pos === 'PART' && (t.lower === 'not' || t.lower === "n't" || t.lower === 'to')))) break;
    j++;
  }
  if (j > end) return undefined;
  const t = tokens[j];
  const lastAux = auxes.at(-1);
  // "was captain", "was jet black": after "be", a bare verb form is a word the tagger misread, not a verb.
  const misread = t.pos === 'VERB' && lastAux !== undefined && tokens[lastAux].lemma === 'be' && t.lower === t.lemma && !t.lower.endsWith('ing');
  if (t.pos === 'VERB' && !misread) return { verb: j, auxes, copula: false, habitual };
  if (misread) return { verb: lastAux, auxes: auxes.slice(0, -1), copula: true, habitual };
  if (lastAux !== undefined && ['be', 'have'].includes(tokens[lastAux].lemma) && ['ADJ', 'NUM', 'DET', 'NOUN', 'ADP', 'PRON', 'PROPN', 'ADV'].includes(t.pos)) {
    return { verb: lastAux, auxes: auxes.slice(0, -1), copula: tokens[lastAux].lemma === 'be', habitual };
  }
  // After an appositive the tagger may still read the verb as a noun ("Osric, his habit still wet, knelt").
  if (auxes.length === 0 && verbLike(tokens, j, syntax.reading.known)) return { verb: j, auxes, copula: false, habitual };
  return undefined;
}

/** '"…," said Osric' / '"…," says Halloran': the verb of a speech tag before its subject. */
export function speechTagBefore(syntax: Syntax, first: number): number | undefined {
  const { tokens } = syntax.reading;
  const verb = first - 1;
  if (!isVerb(tokens[verb]) || tokens[verb].quoted) return undefined;
  const before = tokens[verb - 1];
  if (!before || !(quoteMarks.has(before.text) || (before.text === ',' && tokens[verb - 2] && quoteMarks.has(tokens[verb - 2].text)))) return undefined;
  return verb;
}

/**
 * "sees Halloran standing by the viewport", "watched Ferris mend the sail": a verb in -ing (the tagger may call it a
 * noun) or, after a verb of perceiving, a bare infinitive, right after an object; with the verb governing that object.
 */
export function participleAfter(syntax: Syntax, first: number, last: number): { verb: number; governor: number } | undefined {
  const { tokens } = syntax.reading;
  const next = tokens[last + 1];
  if (!next || next.sentence !== tokens[first].sentence) return undefined;
  const ing = next.lower.endsWith('ing') && (next.pos === 'VERB' || next.pos === 'NOUN');
  const bare = (next.pos === 'VERB' && next.lower === next.lemma) || verbLike(tokens, last + 1, syntax.reading.known);
  if (!ing && !bare) return undefined;
  for (let k = first - 1; k >= clauseStart(syntax, first); k--) {
    if (tokens[k].pos === 'VERB') return ing || verbIn(perceiving, tokens[k]) ? { verb: last + 1, governor: k } : undefined;
    if (!['DET', 'ADJ', 'ADV', 'PRON'].includes(tokens[k].pos)) return undefined;
  }
  return undefined;
}

export type Mood = {
  negated: boolean;
  modal: boolean;
  passive: boolean;
  /** "had planted": told from before the story's now */
  pluperfect: boolean;
  habitual: boolean;
  tense: 'past' | 'present' | undefined;
};

export function moodOf(syntax: Syntax, p: Pick<Predicate, 'verb' | 'auxes' | 'habitual'>): Mood {
  const { tokens } = syntax.reading;
  const verb = tokens[p.verb];
  const auxes = p.auxes.map((a) => tokens[a]);
  // After "have" any form is the participle, also where it looks like the bare verb ("had read", "had cut").
  const afterHave = auxes.at(-1)?.lemma === 'have' && tokens[p.verb - 1]?.lower !== 'to';
  const participle = verb.pos === 'VERB' && !verb.lower.endsWith('ing') && ((verb.lower !== verb.lemma && !verb.lower.endsWith('s')) || afterHave);
  // The tagger leaves "being" its own lemma: "being admired" is a passive too.
  const be = auxes.filter((a) => a.lemma === 'be' || a.lower === 'being');
  const negatedGroup = [...auxes, verb].some((t) => t.negated) || tokensBetween(tokens, p.auxes[0] ?? p.verb, p.verb).some((t) => ['not', "n't", 'never', 'no'].includes(t.lower)) || deniedBefore(syntax, p.auxes[0] ?? p.verb);
  return {
    negated: negatedGroup,
    modal: auxes.some((a) => modals.has(a.lower) || (a.lower === "'d" || a.lower === '’d')),
    passive: be.length > 0 && participle && !auxes.some((a) => a.lemma === 'have' && a === auxes.at(-1)),
    pluperfect: auxes.some((a) => a.lower === 'had' || a.lower === "'d" || a.lower === '’d') && (participle || verb.lemma === 'be' || p.auxes.length > 1),
    // "was usually at Hammersmith": a copula tells a habit too.
    habitual: p.habitual || ((verb.pos === 'VERB' || verb.lemma === 'be') && finiteTense(tokens, p.auxes[0] ?? p.verb) === 'past' && repeated(syntax, p.verb)),
    tense: finiteTense(tokens, p.auxes[0] ?? p.verb),
  };
}

const frequency = new Set(['always', 'often', 'usually', 'sometimes', 'seldom', 'rarely', 'habitually', 'regularly', 'daily', 'nightly', 'weekly']);
const periods = new Set(['day', 'night', 'morning', 'evening', 'afternoon', 'week', 'month', 'year', 'summer', 'winter', 'spring', 'autumn', 'sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'time']);

/**
 * Whether the clause of a past-tense verb tells a habit ("he wrote every week", "Ezra always rode too fast"): what
 * someone used to do, backstory rather than the scene ("every day of it" counts nothing).
 */
function repeated(syntax: Syntax, verb: number): boolean {
  const { tokens } = syntax.reading;
  for (let k = clauseStart(syntax, verb); k <= clauseEnd(syntax, verb); k++) {
    const t = tokens[k];
    if (frequency.has(t.lower) && !t.quoted) return true;
    if ((t.lower === 'every' || t.lower === 'each') && periods.has(tokens[k + 1]?.lemma ?? '') && tokens[k + 2]?.lower !== 'of') return true;
  }
  return false;
}

/**
 * "I was usually at Hammersmith, and when I was at Hammersmith I haunted Richmond": a "when" clause after a habit told
 * earlier in its sentence means "whenever", so it places nobody at one time.
 */
export function wheneverAfterHabit(syntax: Syntax, i: number): boolean {
  const { tokens } = syntax.reading;
  const start = clauseStart(syntax, i);
  let opener = start;
  while (tokens[opener] && ['CCONJ', 'PUNCT'].includes(tokens[opener].pos)) opener++;
  if (tokens[opener]?.lower !== 'when') return false;
  for (let k = start - 1; k >= 0 && tokens[k].sentence === tokens[i].sentence; k--) if (frequency.has(tokens[k].lower) && !tokens[k].quoted) return true;
  return false;
}

/** Whether a negative word ("Nobody", "never", "no one") stands before token i in its clause, denying its verb. */
export function deniedBefore(syntax: Syntax, i: number): boolean {
  const { tokens } = syntax.reading;
  for (let k = clauseStart(syntax, i); k < i; k++) {
    if (negativeSubjects.has(tokens[k].lower) || (tokens[k].lower === 'no' && tokens[k + 1]?.lower === 'one')) return true;
  }
  return false;
}

function tokensBetween(tokens: Token[], from: number, to: number): Token[] {
  return tokens.slice(from, to + 1);
}

/** Whether the predicate states something of the story's now: not negated, supposed, told of the past, nor passive. */
export function asserts(syntax: Syntax, p: Predicate, options: { passiveCounts?: boolean; recentPast?: boolean } = {}): boolean {
  const mood = moodOf(syntax, p);
  if (mood.negated || mood.modal || mood.pluperfect || mood.habitual) return false;
  if (mood.passive && !options.passiveCounts) return false;
  // Backstory: a past-tense clause inside present-tense narration ("the station she built"); with `recentPast`, not
  // when its sentence or the one before names a time of the story's own day ("Oh, the rest of last night! How I slept").
  if (syntax.reading.narration === 'present' && mood.tense === 'past' && !(options.recentPast && recentlyTold(syntax, p.verb))) return false;
  // The same inside one sentence of past narration: "the bars still lie where Flint buried them".
  if (mood.tense === 'past' && inSubordinate(syntax, p.verb) && governingTense(syntax, p.verb) === 'present') return false;
  // "his teeth had failed him since I saw him eat on the marshes": "since" under a perfect tells the time before it.
  if (sinceUnderPerfect(syntax, p.verb)) return false;
  return syntax.unasserted[p.verb] === undefined;
}

/** Whether the sentence of token i or the one before it names a time of the story's own day (lexicon `recentTimes`). */
function recentlyTold(syntax: Syntax, i: number): boolean {
  const { tokens, sentences } = syntax.reading;
  const n = tokens[i].sentence;
  const words = tokens.slice(sentences[Math.max(0, n - 1)].first, sentences[n].last + 1).filter((t) => !t.quoted).map((t) => t.lower);
  return recentTimes.some((phrase) => words.some((_, k) => phrase.every((w, j) => words[k + j] === w)));
}

/** Whether the clause of token i opens with "since" after a clause of its sentence in the perfect ("had failed"). */
function sinceUnderPerfect(syntax: Syntax, i: number): boolean {
  const { tokens } = syntax.reading;
  const start = clauseStart(syntax, i);
  if (tokens[start]?.lower !== 'since') return false;
  for (let k = start - 1; k >= 0 && tokens[k].sentence === tokens[i].sentence; k--) {
    if (tokens[k].pos === 'AUX' && tokens[k].lemma === 'have' && tokens[k + 1]?.pos === 'VERB') return true;
  }
  return false;
}

/** The tense of the nearest finite verb of the narration before the clause of token i, in its sentence. */
function governingTense(syntax: Syntax, i: number): 'past' | 'present' | undefined {
  const { tokens } = syntax.reading;
  for (let k = clauseStart(syntax, i) - 1; k >= 0 && tokens[k].sentence === tokens[i].sentence; k--) {
    if (tokens[k].quoted) continue;
    const tense = finiteTense(tokens, k);
    if (tense) return tense;
  }
  return undefined;
}
