// Finds every occurrence of entity names and aliases in chapter text in one pass over its words: terms are kept in a
// tree keyed word by word (wordTrie.ts), so the cost grows with the text, not with the number of entities.
import { WordTrie } from './wordTrie.ts';

export type Term = { entityId: string; text: string };
export type FoundMention = { entityId: string; line: number; column: number; snippet: string };

const wordPattern = /[\p{L}\p{N}]+/gu;
const lineBreak = /\r\n|\r|\n/;
const snippetRadius = 80;

type IndexedTerm = { entityId: string; words: string[] };

function words(text: string): string[] {
  return text.match(wordPattern) ?? [];
}

const capitalise = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

export class MentionFinder {
  private readonly byFirstWord = new Map<string, IndexedTerm[]>();
  private readonly terms = new WordTrie<IndexedTerm>();

  constructor(terms: Term[]) {
    const seen = new Set<string>();
    for (const term of terms) {
      const termWords = words(term.text);
      if (termWords.length === 0) continue;
      // Names are matched as written, and with a capital first letter for the start of a sentence ("the Captain").
      for (const variant of new Set([termWords, [capitalise(termWords[0]), ...termWords.slice(1)]])) {
        const key = `${term.entityId}\u0000${variant.join(' ')}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const list = this.byFirstWord.get(variant[0]) ?? [];
        list.push({ entityId: term.entityId, words: variant });
        this.byFirstWord.set(variant[0], list);
      }
    }
    for (const list of this.byFirstWord.values()) {
      list.sort((a, b) => b.words.length - a.words.length);
      for (const term of list) this.terms.add(term.words, term);
    }
  }

  /** The words of each form of each name, as matched: a line holds a name only if it holds all of that form's words. */
  forms(): string[][] {
    return [...this.byFirstWord.values()].flatMap((list) => list.map((term) => term.words));
  }

  find(text: string): FoundMention[] {
    const lines = linesOf(text);
    return this.findOnLines(lines, lines.map((_, i) => i + 1));
  }

  /** What find(text) finds on the lines `lineNumbers` (1-based, ascending) of the text, split into `lines` by linesOf. */
  findOnLines(lines: string[], lineNumbers: Iterable<number>): FoundMention[] {
    const found: FoundMention[] = [];
    for (const lineNumber of lineNumbers) {
      const line = lines[lineNumber - 1];
      if (line === undefined) continue;
      const tokens = [...line.matchAll(wordPattern)];
      const wordAt = (k: number) => tokens[k]?.[0];
      for (let i = 0; i < tokens.length; i++) {
        // The longest form starting here, for each entity it names (one form's words are one entity's once).
        const longest = this.terms.longestAt(wordAt, i);
        if (!longest) continue;
        const column = tokens[i].index! + 1;
        for (const term of longest.values) found.push({ entityId: term.entityId, line: lineNumber, column, snippet: snippetAround(line, tokens[i].index!) });
        if (longest.words > 1) i += longest.words - 1;
      }
    }
    return found;
  }
}

/** A text's lines, as the finder reads them. */
export function linesOf(text: string): string[] {
  return text.split(lineBreak);
}

/** Each word of the text, as the finder reads words, with the lines it stands on (1-based, ascending, each once). */
export function wordLines(text: string): Map<string, number[]> {
  const index = new Map<string, number[]>();
  const lines = linesOf(text);
  for (let i = 0; i < lines.length; i++) {
    for (const [word] of lines[i].matchAll(wordPattern)) {
      const on = index.get(word);
      if (!on) index.set(word, [i + 1]);
      else if (on[on.length - 1] !== i + 1) on.push(i + 1);
    }
  }
  return index;
}

function snippetAround(line: string, at: number): string {
  const start = Math.max(0, at - snippetRadius);
  const end = Math.min(line.length, at + snippetRadius);
  let snippet = line.slice(start, end).trim();
  if (start > 0) snippet = `…${snippet.replace(/^\S*\s/, '')}`;
  if (end < line.length) snippet = `${snippet.replace(/\s\S*$/, '')}…`;
  return snippet;
}
