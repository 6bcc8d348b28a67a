// Where a passage checked with its chapter stands in that chapter's stored text, and the words that precede it there:
// a passage whose person is named only in the sentences before it ("He was a burly man…") is read after them, for its
// references alone (deterministic.ts). The passage is found at its `line`, or by its opening words: runs of a few words
// that agree on one place of the chapter, so a writer's revised scene or an edited copy of the chapter's text is still
// found; a passage found nowhere, or in two places alike, is read alone. Bounds and tolerances: lexicon `surroundings`.
import { surroundings } from './lexicon.ts';

/**
 * A word's character: a letter or digit; beyond ASCII, anything but the punctuation and spaces of Latin-1 and of the
 * General Punctuation block (curly quotes, dashes, ellipses). A scan by character codes: the Unicode property regex
 * took milliseconds on a 5,000-word chapter.
 */
function inWord(code: number): boolean {
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
  return !(code <= 0xbf || code === 0xd7 || code === 0xf7 || (code >= 0x2000 && code <= 0x206f) || code === 0x3000);
}

/** The words of a text, lower-cased, and where each starts. */
function wordsOf(text: string): { words: string[]; starts: number[] } {
  const words: string[] = [];
  const starts: number[] = [];
  // Lower-cased once where that keeps every offset ("İ" does not).
  const lower = text.toLowerCase();
  const same = lower.length === text.length;
  let from = -1;
  for (let i = 0; i <= text.length; i++) {
    const word = i < text.length && inWord(text.charCodeAt(i));
    if (word && from < 0) from = i;
    else if (!word && from >= 0) {
      words.push(same ? lower.slice(from, i) : text.slice(from, i).toLowerCase());
      starts.push(from);
      from = -1;
    }
  }
  return { words, starts };
}

/**
 * The text to read before the passage (ending with the break that separates them: a blank line when the passage opens
 * a paragraph, a space when it goes on one), or '' when the passage is not found or nothing fit to read precedes it.
 */
export function surroundingsOf(chapter: string, passage: string, line?: number): string {
  const start = line === undefined ? found(chapter, passage) : lineStart(chapter, line);
  return start === undefined ? '' : preceding(chapter, start);
}

function lineStart(chapter: string, line: number): number | undefined {
  let at = 0;
  for (let n = 1; n < line; n++) {
    const next = chapter.indexOf('\n', at);
    if (next < 0) return undefined;
    at = next + 1;
  }
  return at;
}

/** The chapter offset where the passage's opening stands, when its runs of words agree on one place only. */
function found(chapter: string, passage: string): number | undefined {
  const { openingWords, run, agreeing, drift } = surroundings;
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
    const at = runs.get(words.slice(c, c + run).join(' '));
    for (const k of at ?? []) matches.push({ c, k });
  }
  // Places: matches whose implied starts lie within `drift` words of each other, each counted by its distinct runs.
  matches.sort((a, b) => a.c - a.k - (b.c - b.k));
  const places: { matches: typeof matches }[] = [];
  for (const m of matches) {
    const place = places.at(-1);
    if (place && m.c - m.k - (place.matches[0].c - place.matches[0].k) <= drift) place.matches.push(m);
    else places.push({ matches: [m] });
  }
  const agree = (p: { matches: typeof matches }) => new Set(p.matches.map((m) => m.k)).size;
  const need = Math.min(agreeing, opening.length - run + 1);
  const ranked = places.filter((p) => agree(p) >= need).sort((a, b) => agree(b) - agree(a));
  if (ranked.length === 0 || (ranked.length > 1 && agree(ranked[1]) === agree(ranked[0]))) return undefined;
  // The earliest opening word matched, taken back to where the passage's first word would stand.
  const first = ranked[0].matches.reduce((a, b) => (b.k < a.k ? b : a));
  // Back over the marks that open it: a quotation mark, the underscores of italics.
  let start = starts[Math.max(0, first.c - first.k)];
  while (start > 0 && /[^\p{L}\p{N}\s]/u.test(chapter[start - 1])) start--;
  return start;
}

const sentenceEnd = /[.!?]["'”’)\]_*]*$/;

/** The paragraphs before `start` (the part of its own first), within the bounds, stopped by a scene break. */
function preceding(chapter: string, start: number): string {
  const { paragraphs, words } = surroundings;
  // Paragraphs are separated by blank lines, or by line breaks in a text that has no blank line.
  const separator = /\n[^\S\n]*\n/.test(chapter) ? /\n[^\S\n]*\n\s*/ : /\n\s*/;
  const pieces = chapter.slice(0, start).split(separator);
  const opensParagraph = pieces.at(-1)!.trim() === '';
  if (opensParagraph) pieces.pop();
  const kept: string[] = [];
  let count = 0;
  for (let n = pieces.length - 1; n >= 0 && kept.length < paragraphs; n--) {
    const piece = pieces[n].trim();
    // "* * *", "II.": a scene break or a heading without words ends what the passage follows on from.
    if (!/\p{L}{2}/u.test(piece)) break;
    const sentences = piece.split(/(?<=[.!?]["'”’)\]_*]*)\s+/);
    // The passage starting inside a paragraph after a sentence cut short (an edit moved its start): that part is left out.
    if (n === pieces.length - 1 && !opensParagraph && !sentenceEnd.test(sentences.at(-1)!)) sentences.pop();
    const taken: string[] = [];
    while (sentences.length > 0 && count + wordsOf(sentences.at(-1)!).words.length <= words) {
      const sentence = sentences.pop()!;
      count += wordsOf(sentence).words.length;
      taken.unshift(sentence);
    }
    if (taken.length > 0) kept.unshift(taken.join(' '));
    // A sentence too long for the window ends it.
    if (sentences.length > 0) break;
  }
  if (kept.length === 0) return '';
  return `${kept.join('\n\n')}${opensParagraph ? '\n\n' : ' '}`;
}
