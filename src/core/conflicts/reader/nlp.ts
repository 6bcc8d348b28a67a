// The passage as the English model reads it: sentences, tokens with their part of speech (Universal Dependencies
// tags), lemma, negation scope and character offsets, and which tokens are dialogue. wink-nlp with its English model
// runs offline inside Node (the model ships in its npm package); it is loaded once, on the first check.
import winkNLP from 'wink-nlp';
import model from 'wink-eng-lite-web-model';
import { kinWord, possessives } from './lexicon.ts';

export type Token = {
  text: string;
  lower: string;
  lemma: string;
  /** Universal Dependencies tag: NOUN, PROPN, VERB, AUX, ADJ, ADV, ADP, DET, PRON, NUM, CCONJ, SCONJ, PART, PUNCT… */
  pos: string;
  start: number;
  end: number;
  sentence: number;
  /** inside the scope of a negation ("did not answer", "Nobody moved") */
  negated: boolean;
  /** inside quotation marks: a character's words, not the narration */
  quoted: boolean;
};
export type Sentence = { first: number; last: number };
export type Reading = {
  text: string;
  tokens: Token[];
  sentences: Sentence[];
  /** the tense the narration is told in: a past-tense clause in a present-tense passage is backstory */
  narration: 'present' | 'past';
  /** whether the model knows the word (unknown words the tagger guesses at, such as "knelt", are often verbs) */
  known(word: string): boolean;
};

/** The model's lexicon as wink-nlp keeps it: words to their index; past `intrinsicSize`, the ones it learned reading. */
type Lexemes = { hash: Record<string, number>; list: string[]; intrinsicSize: number };
/** `forgotten`: the learned words before it are forgotten already. */
type Engine = { nlp: ReturnType<typeof winkNLP>; lexemes: Lexemes; forgotten: number };
let engine: Engine | undefined;
// wink-nlp adds every word a document brings that its lexicon lacks to that lexicon, and its tokenizer keeps whole
// any word it finds there: once one passage had "mother's," (kept whole before the comma), every later passage read
// "Lena's mother's brother" as "mother's brother", and a check's answer depended on what any project had checked
// before it. The learned words are forgotten after each reading (read()); the lexicon's storage of them still grows,
// so the engine is loaded afresh (about 0.1 s) past this many.
const learnedBound = 200_000;

function load(): Engine {
  if (engine && engine.lexemes.list.length - engine.lexemes.intrinsicSize < learnedBound) return engine;
  let lexemes: Lexemes | undefined;
  const core = (model as unknown as { core: () => { features: { lexeme: Lexemes } } }).core;
  // The core model is built by this call on loading: keeping its lexicon is the only way to reach what it learns.
  const nlp = winkNLP({ ...model, core: () => { const built = core(); lexemes = built.features.lexeme; return built; } }, ['sbd', 'pos', 'negation']);
  engine = { nlp, lexemes: lexemes!, forgotten: lexemes!.intrinsicSize };
  return engine;
}

/** Drops the words the engine learned reading a document, so that no reading depends on the ones before it. */
function forgetLearned(loaded: Engine): void {
  const { hash, list } = loaded.lexemes;
  for (let i = loaded.forgotten; i < list.length; i++) if (hash[list[i]] === i) delete hash[list[i]];
  loaded.forgotten = list.length;
}

const openQuotes = new Set(['“', '‘', '«']);
const closeQuotes = new Set(['”', '’', '»']);
const openerOf: Record<string, string> = { '”': '“', '’': '‘', '»': '«' };
const pastForms = new Set(['was', 'were', 'had', 'did']);
const presentForms = new Set(['is', 'are', 'am', 'has', 'have', 'does', 'do', "'s", '’s', "'re", '’re', "'m", '’m']);

export function read(text: string): Reading {
  const loaded = load();
  try {
    return readWith(loaded.nlp, text);
  } finally {
    forgetLearned(loaded);
  }
}

function readWith(nlp: Engine['nlp'], text: string): Reading {
  const its = nlp.its;
  const doc = nlp.readDoc(text);
  const all = doc.tokens();
  // One call per property over all tokens: far cheaper than asking token by token.
  const out = all.out as unknown as (f?: unknown) => unknown[];
  const values = out.call(all) as string[];
  const spaces = out.call(all, its.precedingSpaces) as string[];
  const tags = out.call(all, its.pos) as string[];
  const lemmas = out.call(all, its.lemma) as string[];
  const negations = out.call(all, its.negationFlag) as boolean[];

  // Tokens, skipping the whitespace tokens the tokenizer keeps for line breaks; the offsets are rebuilt from the
  // preceding spaces, so every token points at its characters in the passage.
  const tokens: Token[] = [];
  const indexOf: number[] = [];
  /** tokens that the model's one token became two of: the first */
  const split = new Set<number>();
  let offset = 0;
  for (let k = 0; k < values.length; k++) {
    offset += spaces[k].length;
    const value = values[k];
    const start = offset;
    offset += value.length;
    if (tags[k] === 'SPACE' || value.trim() === '') {
      indexOf.push(-1);
      continue;
    }
    indexOf.push(tokens.length);
    // The model keeps "I'm" whole (it splits "I've", "I'd", "I'll"): the pronoun and the verb, as for those.
    const am = /^I(['’]m)$/.exec(value);
    if (am) {
      split.add(tokens.length);
      tokens.push({ text: 'I', lower: 'i', lemma: 'i', pos: 'PRON', start, end: start + 1, sentence: 0, negated: false, quoted: false });
      tokens.push({ text: am[1], lower: am[1].toLowerCase(), lemma: 'be', pos: 'AUX', start: start + 1, end: offset, sentence: 0, negated: negations[k], quoted: false });
      continue;
    }
    // A possessive the tokenizer kept whole ("March's" before a comma or a full stop, and after that everywhere in
    // the passage) is the name or noun and its "'s", as the model splits it elsewhere: "Uncle March's big watch" is
    // his watch, not his act.
    const owner = /^(\p{L}(?:[\p{L}'’.-]*\p{L})?)(['’]s)$/u.exec(value);
    if (owner && (tags[k] === 'PROPN' || tags[k] === 'NOUN')) {
      split.add(tokens.length);
      const [word, mark] = [owner[1], owner[2]];
      const pos = /^\p{Lu}/u.test(word) ? 'PROPN' : 'NOUN';
      tokens.push({ text: word, lower: word.toLowerCase(), lemma: word.toLowerCase(), pos, start, end: start + word.length, sentence: 0, negated: negations[k], quoted: false });
      tokens.push({ text: mark, lower: mark.toLowerCase(), lemma: mark.toLowerCase(), pos: 'PART', start: start + word.length, end: offset, sentence: 0, negated: negations[k], quoted: false });
      continue;
    }
    // The model has no lemma for some words before punctuation ("cannot,", "cant,"): the word stands for itself.
    tokens.push({ text: value, lower: value.toLowerCase(), lemma: (lemmas[k] ?? value).toLowerCase(), pos: tags[k], start, end: offset, sentence: 0, negated: negations[k], quoted: false });
  }

  // Sentences as the model splits them, joined again where a quotation ends in "?" or "!" and the speech tag follows
  // in lower case ("Where is he?" asked Tam.).
  const spans = doc.sentences().out(its.span) as unknown as [number, number][];
  const sentences: Sentence[] = [];
  for (const [from, to] of spans) {
    const ids = [];
    for (let k = from; k <= to; k++) if (indexOf[k] >= 0) ids.push(...(split.has(indexOf[k]) ? [indexOf[k], indexOf[k] + 1] : [indexOf[k]]));
    if (ids.length === 0) continue;
    const first = tokens[ids[0]];
    const opener = ids.find((id) => tokens[id].pos !== 'PUNCT');
    const previous = sentences.at(-1);
    const lowerStart = opener !== undefined && /^\p{Ll}/u.test(tokens[opener].text) && tokens[opener].lower !== 'i';
    const afterSpeech = previous && /["”’]/.test(tokens[previous.last].text) && text.slice(tokens[previous.last].end, first.start).indexOf('\n') < 0;
    if (previous && lowerStart && afterSpeech) previous.last = ids.at(-1)!;
    else sentences.push({ first: ids[0], last: ids.at(-1)! });
  }
  sentences.forEach((s, n) => {
    for (let i = s.first; i <= s.last; i++) tokens[i].sentence = n;
  });

  curlSingleQuotes(text, tokens);
  // Dialogue: straight double quotes toggle, curly ones open and close; a new paragraph closes any open quotation.
  // Quotations nest: a ‘…’ inside “…” (a speaker quoting someone: "‘Dead men don't bite,’ says he") closes only
  // itself, and a ’ inside “…” with no ‘ open is an apostrophe ("’Tain’t", "on ’em"), which closes nothing.
  const open: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (i > 0 && text.slice(tokens[i - 1].end, t.start).includes('\n')) open.length = 0;
    if (t.text === '"') {
      if (open.includes('"')) while (open.pop() !== '"');
      else open.push('"');
      continue;
    }
    if (t.pos === 'PUNCT' && openQuotes.has(t.text)) open.push(t.text);
    else if (t.pos === 'PUNCT' && closeQuotes.has(t.text) && open.length > 0) {
      const opener = openerOf[t.text];
      if (open.includes(opener)) {
        while (open.pop() !== opener);
        t.quoted = open.length > 0;
        continue;
      }
      // An apostrophe inside a double quotation; a closing mark of another kind alone closes it as before.
      if (t.text !== '’' || !(open.includes('“') || open.includes('"'))) {
        open.length = 0;
        continue;
      }
    }
    t.quoted = open.length > 0;
  }

  // A capitalised word inside a sentence is a name even where the tagger read a verb or an auxiliary ("Addie said
  // Clem's eyes…", "Nell, Will, and Kit walked").
  for (let i = 1; i < tokens.length; i++) {
    const [t, before] = [tokens[i], tokens[i - 1]];
    const opens = before.sentence !== t.sentence || (before.pos === 'PUNCT' && !/^[,;]$/.test(before.text));
    if ((t.pos === 'VERB' || t.pos === 'AUX') && /^\p{Lu}\p{Ll}/u.test(t.text) && !opens) tokens[i] = { ...t, pos: 'PROPN', lemma: t.lower };
  }
  retagVerbs(tokens, (word) => !doc.isOOV(word));
  retagContractions(tokens);

  let past = 0;
  let present = 0;
  for (let i = 0; i < tokens.length; i++) {
    const tense = finiteTense(tokens, i);
    if (tense === 'past' && !tokens[i].quoted) past++;
    if (tense === 'present' && !tokens[i].quoted) present++;
  }
  // Mixed tenses in narration are read as present-tense narration with backstory in the past.
  return { text, tokens, sentences, narration: present >= past && present > 0 ? 'present' : 'past', known: (word) => !doc.isOOV(word) };
}

/**
 * Straight single quotes used as quotation marks ('Get off my land,' Frank shouted.) take their curly forms, so they
 * read as dialogue like ‘…’: one opens where a word follows it straight after a space or the start of a line, and is
 * closed by the next one in its paragraph that follows punctuation straight after a word (",' said", ".'", "?'").
 * Apostrophes ("runnin'", "the boys' dogs", "'em") are left alone: they open nothing, or nothing closes them.
 */
function curlSingleQuotes(text: string, tokens: Token[]): void {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const next = tokens[i + 1];
    if (t.text !== "'" || !next || next.start !== t.end || !/^[\p{L}\p{N}]/u.test(next.text)) continue;
    if (i > 0 && !/\s|^[(\[—–-]$/u.test(text.slice(tokens[i - 1].end, t.start) || tokens[i - 1].text)) continue;
    for (let j = i + 2; j < tokens.length; j++) {
      if (text.slice(tokens[j - 1].end, tokens[j].start).includes('\n')) break;
      const before = tokens[j - 1];
      if (tokens[j].text === "'" && before.end === tokens[j].start && /^[,.!?…;:—–-]$/.test(before.text)) {
        tokens[i] = { ...t, text: '‘' };
        tokens[j] = { ...tokens[j], text: '’' };
        i = j;
        break;
      }
    }
  }
}

const subjectPronouns = new Set(['he', 'she', 'it', 'they', 'i', 'we', 'you', 'who', 'which']);

/**
 * Whether a word the tagger calls a noun or an adjective is, where it stands right after a subject, its verb: a
 * present-tense "-s" form ("Volkov wipes", "Chief grunts"), a word the model does not know ("knelt", "forsook"), a noun
 * followed by what only follows a verb ("lit his pipe"), or a past participle so followed ("unlatched the gate").
 */
export function verbLike(tokens: Token[], j: number, known: (word: string) => boolean): boolean {
  const t = tokens[j];
  if (!t || !/^\p{Ll}+$/u.test(t.text) || (t.pos !== 'NOUN' && t.pos !== 'ADJ')) return false;
  const next = tokens[j + 1];
  // "Georgiana wife of the above", "Tom son of Josiah": a kin word before "of" is the name's apposition.
  if (kinWord(t.lower) && next?.lower === 'of') return false;
  const objectFollows = next !== undefined && (next.pos === 'DET' || next.pos === 'ADP' || possessives.has(next.lower));
  // "Ezra branded forty calves", "Hale baked bread": an -ed word between a subject and its object.
  if (t.pos === 'ADJ' && t.lower.endsWith('ed') && next !== undefined && ['NUM', 'NOUN', 'PRON'].includes(next.pos) && !possessives.has(next.lower)) return true;
  if (t.pos === 'NOUN' && t.lower.endsWith('s') && !t.lower.endsWith('ss') && t.lower.length > 3) return true;
  if (!known(t.lower)) return true;
  if (t.pos === 'NOUN' && objectFollows) return true;
  return t.pos === 'ADJ' && t.lower.endsWith('ed') && objectFollows;
}

/** The lemma of a verb form the model did not lemmatise as a verb. */
function verbLemma(word: string): string {
  if (/(ches|shes|sses|xes|zes|oes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.endsWith('s')) return word.slice(0, -1);
  return word;
}

/** Retags as verbs the words verbLike finds right after a subject (a name not used as a modifier, or a pronoun). */
function retagVerbs(tokens: Token[], known: (word: string) => boolean): void {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const name = t.pos === 'PROPN' && tokens[i - 1]?.pos !== 'DET' && tokens[i + 1]?.pos !== 'PROPN';
    const pronoun = t.pos === 'PRON' && subjectPronouns.has(t.lower);
    if (!name && !pronoun) continue;
    let j = i + 1;
    while (tokens[j]?.pos === 'ADV' && tokens[j].sentence === t.sentence) j++;
    if (tokens[j]?.sentence === t.sentence && verbLike(tokens, j, known)) {
      const w = tokens[j];
      tokens[j] = { ...w, pos: 'VERB', lemma: w.lower.endsWith('s') ? verbLemma(w.lower) : w.lower.endsWith('ed') ? w.lemma : w.lower };
    }
  }
}

/** Verbs whose past is their bare form. */
const invariantPasts = new Set(['let', 'put', 'set', 'cut', 'hit', 'shut', 'cast', 'cost', 'hurt', 'quit', 'spread', 'burst', 'thrust', 'bet', 'split', 'shed', 'slit', 'spit', 'upset', 'beset', 'broadcast', 'forecast']);

const participles = new Set(['been', 'gone', 'got', 'done', 'seen', 'made', 'left', 'taken']);

/**
 * "'s" after a name or a noun, which the tagger always reads as a possessive, retagged as the verb it contracts when
 * what follows is a predicate and not a thing possessed: "Pruitt's at the counter", "Walt's seventy-two", "Kessler's
 * out on the deck", "Nico's not here", "she's gone" ("is", or "has" before a participle). What a possessive takes, a
 * noun with its modifiers ("Walt's son", "Walt's very old truck", "Walt's two boats"), leaves it a possessive.
 */
function retagContractions(tokens: Token[]): void {
  for (let i = 1; i < tokens.length - 1; i++) {
    const t = tokens[i];
    if (!/^['’]s$/.test(t.lower) || t.pos !== 'PART' || !['PROPN', 'NOUN', 'PRON'].includes(tokens[i - 1].pos)) continue;
    let j = i + 1;
    while (tokens[j]?.pos === 'ADV' && tokens[j].sentence === t.sentence) j++;
    const next = tokens[j];
    if (!next || next.sentence !== t.sentence) continue;
    // After a number, its hyphenated parts ("seventy-two"): a noun then means a count of things.
    let after = j + 1;
    while (next.pos === 'NUM' && (tokens[after]?.text === '-' || tokens[after]?.pos === 'NUM')) after++;
    const then = tokens[after];
    const nounFollows = then !== undefined && then.sentence === t.sentence && ['NOUN', 'PROPN', 'ADJ'].includes(then.pos);
    let verb: 'be' | 'have' | undefined;
    // "Nico's gone." is where he is (or that he is dead), as "Nico is gone"; "she's gone home" is what she did.
    const goneOnly = next.lower === 'gone' && (!then || then.sentence !== t.sentence || then.pos === 'PUNCT' || then.pos === 'CCONJ');
    if (goneOnly) verb = 'be';
    else if (next.pos === 'VERB' && (next.lower.endsWith('ed') || next.lower.endsWith('en') || participles.has(next.lower))) verb = 'have';
    else if (next.pos === 'VERB' && next.lower.endsWith('ing')) verb = 'be';
    else if (next.lower === 'not' || next.lower === "n't" || (next.pos === 'ADP' && j === i + 1 && next.lower !== 'of')) verb = 'be';
    else if ((next.pos === 'NUM' || next.pos === 'ADJ') && !nounFollows) verb = 'be';
    else if (next.pos === 'ADV' || (next.pos === 'DET' && ['a', 'an', 'the'].includes(next.lower) && j === i + 1)) verb = 'be';
    if (verb) tokens[i] = { ...t, pos: 'AUX', lemma: verb };
  }
}

/** The tense of a finite verb: 'past' for "rode", "was", "had"; 'present' for "rides", "is", "has"; else undefined. */
export function finiteTense(tokens: Token[], i: number): 'past' | 'present' | undefined {
  const t = tokens[i];
  if (t.pos !== 'VERB' && t.pos !== 'AUX') return undefined;
  if (pastForms.has(t.lower)) return 'past';
  if (presentForms.has(t.lower)) return 'present';
  if (t.pos === 'AUX') return undefined;
  // A verb after an auxiliary or "to" is not finite ("did not answer", "would laugh", "to go").
  const before = tokens[i - 1];
  if (before && (before.pos === 'AUX' || before.lower === 'to' || before.lower === 'not' || before.lower === "n't")) return undefined;
  if (t.lower.endsWith('ing')) return undefined;
  if (t.lower === t.lemma || t.lower === `${t.lemma}s` || t.lower === `${t.lemma}es` || (t.lemma.endsWith('y') && t.lower === `${t.lemma.slice(0, -1)}ies`)) {
    // A present form counts only after its subject: an imperative ("Ignore…") or a noun the tagger took for a verb
    // ("the psalm") tells nothing of the narration's tense.
    let k = i - 1;
    while (k >= 0 && tokens[k].pos === 'ADV') k--;
    const subject = tokens[k];
    if (!subject || !['PRON', 'PROPN', 'NOUN'].includes(subject.pos) || tokens[k - 1]?.pos === 'ADP') return undefined;
    // After "he", "she", "it" or a name the present takes "-s": a bare "let", "put", "set" is their past.
    const singular = ['he', 'she', 'it'].includes(subject.lower) || subject.pos === 'PROPN';
    if (singular && t.lower === t.lemma) return invariantPasts.has(t.lower) ? 'past' : undefined;
    return 'present';
  }
  return 'past';
}

/**
 * Whether a verb belongs to a set of lemmas, by the model's lemma or by the stems its surface form allows: the model
 * lemmatises a few forms oddly ("staring" → "star"), and a class of verbs should not hang on that.
 */
export function verbIn(lemmas: Set<string>, t: Token): boolean {
  if (lemmas.has(t.lemma) || lemmas.has(t.lower)) return true;
  const w = t.lower;
  const stems: string[] = [];
  for (const suffix of ['ing', 'ed', 'es', 's']) {
    if (!w.endsWith(suffix) || w.length <= suffix.length + 2) continue;
    const stem = w.slice(0, -suffix.length);
    stems.push(stem, `${stem}e`);
    if (stem.length > 2 && stem.at(-1) === stem.at(-2)) stems.push(stem.slice(0, -1));
    if (stem.endsWith('i')) stems.push(`${stem.slice(0, -1)}y`);
  }
  return stems.some((s) => lemmas.has(s));
}
