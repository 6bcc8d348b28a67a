// Where a passage checked with its chapter stands in that chapter's stored text, and the sentences just before it there
// as the chapter's kept parse reads them (chapterParses.ts, no parse of its own): a "she" the passage leaves with no
// antecedent may be the one they name ("Her eyes were blue" after the paragraph naming her; reader/references.ts). The
// passage is found verbatim (at its `line` when it stands twice), else by runs of its opening words that agree on one
// place (an edited copy); found nowhere, or in two places alike, it is read alone. Reach and tolerances: lexicon
// `chapterAntecedent`.
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { lineStarts, parseKept, stretchesOf } from './chapterParses.ts';
import { mayBeOpen, type Parsed } from './deterministic.ts';
import { chapterAntecedent } from './reader/lexicon.ts';
import type { Reading } from './reader/nlp.ts';

/**
 * The reading of the words before the passage in its chapter, within reach; undefined when no pronoun of the passage
 * may need it (read only then: the chapter's parse is the cost), when it is not found, or when nothing precedes it.
 */
export async function readBefore(prisma: PrismaClient, projectId: string, chapter: { id: string; text: string }, passage: Parsed, line?: number): Promise<Reading | undefined> {
  if (!passage.reading.tokens.some(mayBeOpen)) return undefined;
  const start = locate(chapter.text, passage.reading.text, line);
  if (start === undefined || !chapter.text.slice(0, start).trim()) return undefined;
  const stretch = (await stretchesOf(prisma, projectId, chapter)).filter((s) => s.from <= start).at(-1);
  if (!stretch) return undefined;
  return before(parseKept(stretch.stretch).reading, stretch.stretch, start - stretch.from);
}

/** The sentences before offset `at` of a parsed text, back over at most `paragraphs` paragraph breaks and `sentences` sentences. */
function before(reading: Reading, text: string, at: number): Reading | undefined {
  const { tokens } = reading;
  let end = tokens.findIndex((t) => t.start >= at);
  if (end < 0) end = tokens.length;
  if (end === 0) return undefined;
  // Paragraphs are separated by blank lines, or by line breaks in a text that has no blank line.
  const separator = /\n[^\S\n]*\n/.test(text) ? /\n[^\S\n]*\n/ : /\n/;
  const last = tokens[end - 1].sentence;
  let first = end;
  let breaks = 0;
  for (let k = end - 1; k >= 0; k--) {
    const gap = text.slice(tokens[k].end, k + 1 < tokens.length && k + 1 < end ? tokens[k + 1].start : at);
    if (separator.test(gap)) breaks++;
    if (breaks > chapterAntecedent.paragraphs || last - tokens[k].sentence >= chapterAntecedent.sentences) break;
    first = k;
  }
  if (first === end) return undefined;
  const from = tokens[first].start;
  const sentence = tokens[first].sentence;
  const sentences = [];
  for (let s = sentence; s <= last; s++) {
    const { first: a, last: b } = reading.sentences[s];
    sentences.push({ first: Math.max(a, first) - first, last: Math.min(b, end - 1) - first });
  }
  return {
    // Up to the passage's start: whether a line break separates them.
    text: text.slice(from, at),
    tokens: tokens.slice(first, end).map((t) => ({ ...t, start: t.start - from, end: t.end - from, sentence: t.sentence - sentence })),
    sentences,
    narration: reading.narration,
    known: reading.known,
  };
}

/** The chapter offset where the passage starts: verbatim, else where runs of its opening words agree. */
function locate(chapter: string, passage: string, line?: number): number | undefined {
  const text = passage.trim();
  if (!text) return undefined;
  const at: number[] = [];
  for (let k = chapter.indexOf(text); k >= 0; k = chapter.indexOf(text, k + 1)) at.push(k);
  if (at.length === 1) return at[0];
  if (at.length > 1) {
    if (line === undefined) return undefined;
    const starts = lineStarts(chapter);
    const onLine = at.filter((k) => k >= starts[line - 1] && (line >= starts.length || k < starts[line]));
    return onLine.length === 1 ? onLine[0] : undefined;
  }
  return found(chapter, text);
}

/**
 * A word's character: a letter or digit; beyond ASCII, anything but the punctuation and spaces of Latin-1 and of the
 * General Punctuation block (curly quotes, dashes, ellipses). A scan by character codes: a Unicode property regex took
 * milliseconds on a 5,000-word chapter.
 */
function inWord(code: number): boolean {
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
  return !(code <= 0xbf || code === 0xd7 || code === 0xf7 || (code >= 0x2000 && code <= 0x206f) || code === 0x3000);
}

/** The words of a text, lower-cased, and where each starts. */
function wordsOf(text: string): { words: string[]; starts: number[] } {
  const words: string[] = [];
  const starts: number[] = [];
  let from = -1;
  for (let i = 0; i <= text.length; i++) {
    const word = i < text.length && inWord(text.charCodeAt(i));
    if (word && from < 0) from = i;
    else if (!word && from >= 0) {
      words.push(text.slice(from, i).toLowerCase());
      starts.push(from);
      from = -1;
    }
  }
  return { words, starts };
}

/** Where the passage's opening stands, when its runs of words agree on one place of the chapter only. */
function found(chapter: string, passage: string): number | undefined {
  const { openingWords, run, agreeing, drift } = chapterAntecedent;
  const opening = wordsOf(passage).words.slice(0, openingWords);
  if (opening.length < run) return undefined;
  const runs = new Map<string, number[]>();
  for (let k = 0; k + run <= opening.length; k++) {
    const key = opening.slice(k, k + run).join(' ');
    runs.set(key, [...(runs.get(key) ?? []), k]);
  }
  const firsts = new Set(opening);
  const { words, starts } = wordsOf(chapter);
  // Each run of the chapter that is a run of the opening says where the passage would start: (chapter word, opening word).
  const matches: { c: number; k: number }[] = [];
  for (let c = 0; c + run <= words.length; c++) {
    if (!firsts.has(words[c])) continue;
    for (const k of runs.get(words.slice(c, c + run).join(' ')) ?? []) matches.push({ c, k });
  }
  // Places: matches whose implied starts lie within `drift` words of each other, each counted by its distinct runs.
  matches.sort((a, b) => a.c - a.k - (b.c - b.k));
  const places: (typeof matches)[] = [];
  for (const m of matches) {
    const place = places.at(-1);
    if (place && m.c - m.k - (place[0].c - place[0].k) <= drift) place.push(m);
    else places.push([m]);
  }
  const agree = (p: typeof matches) => new Set(p.map((m) => m.k)).size;
  const need = Math.min(agreeing, opening.length - run + 1);
  const ranked = places.filter((p) => agree(p) >= need).sort((a, b) => agree(b) - agree(a));
  if (ranked.length === 0 || (ranked.length > 1 && agree(ranked[1]) === agree(ranked[0]))) return undefined;
  // The earliest opening word matched, taken back to where the passage's first word would stand, and back over the
  // marks that open it (a quotation mark, the underscores of italics).
  const first = ranked[0].reduce((a, b) => (b.k < a.k ? b : a));
  let start = starts[Math.max(0, first.c - first.k)];
  while (start > 0 && /[^\p{L}\p{N}\s]/u.test(chapter[start - 1])) start--;
  return start;
}
