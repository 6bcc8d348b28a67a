// Finds every occurrence of entity names and aliases in chapter text in one pass over its words: terms are indexed by
// their first word, so the cost grows with the text, not with the number of entities.

export type Term = { entityId: string; text: string };
export type FoundMention = { entityId: string; line: number; column: number; snippet: string };

const wordPattern = /[\p{L}\p{N}]+/gu;
const snippetRadius = 80;

type IndexedTerm = { entityId: string; words: string[] };

function words(text: string): string[] {
  return text.match(wordPattern) ?? [];
}

const capitalise = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

export class MentionFinder {
  private readonly byFirstWord = new Map<string, IndexedTerm[]>();

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
    for (const list of this.byFirstWord.values()) list.sort((a, b) => b.words.length - a.words.length);
  }

  find(text: string): FoundMention[] {
    const found: FoundMention[] = [];
    const lines = text.split(/\r\n|\r|\n/);
    for (let lineIndex = 0; lineIndex < lines.length; lineIndex++) {
      const line = lines[lineIndex];
      const tokens = [...line.matchAll(wordPattern)];
      for (let i = 0; i < tokens.length; i++) {
        const candidates = this.byFirstWord.get(tokens[i][0]);
        if (!candidates) continue;
        let longest = 0;
        const matchedEntities = new Set<string>();
        for (const candidate of candidates) {
          const n = candidate.words.length;
          if (n < longest || i + n > tokens.length) continue;
          let same = true;
          for (let k = 1; k < n && same; k++) same = tokens[i + k][0] === candidate.words[k];
          if (!same || matchedEntities.has(candidate.entityId)) continue;
          longest = Math.max(longest, n);
          matchedEntities.add(candidate.entityId);
          const column = tokens[i].index! + 1;
          found.push({ entityId: candidate.entityId, line: lineIndex + 1, column, snippet: snippetAround(line, tokens[i].index!) });
        }
        if (longest > 1) i += longest - 1;
      }
    }
    return found;
  }
}

function snippetAround(line: string, at: number): string {
  const start = Math.max(0, at - snippetRadius);
  const end = Math.min(line.length, at + snippetRadius);
  let snippet = line.slice(start, end).trim();
  if (start > 0) snippet = `…${snippet.replace(/^\S*\s/, '')}`;
  if (end < line.length) snippet = `${snippet.replace(/\s\S*$/, '')}…`;
  return snippet;
}
