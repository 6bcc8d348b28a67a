// What every check reads: the passage as the reader parsed it, the references to the canon's entities in it, the
// canon slice, and helpers to quote the words a hit stands on.
import type { CanonSlice, SliceEntity } from '../canonSlice.ts';
import type { TextSpan } from '../kinds.ts';
import type { Reading } from '../reader/nlp.ts';
import type { Pronouns } from '../reader/pronouns.ts';
import type { Ref } from '../reader/references.ts';
import type { Syntax } from '../reader/syntax.ts';

export type Passage = {
  reading: Reading;
  syntax: Syntax;
  refs: Ref[];
  slice: CanonSlice;
  episode: string | null;
  pronounsOf: (entity: SliceEntity) => Pronouns | undefined;
};

/** The passage's words from token `from` to token `to`, as written. */
export function words(p: Passage, from: number, to: number): string {
  const { tokens, text } = p.reading;
  return text.slice(tokens[Math.max(0, from)].start, tokens[Math.min(tokens.length - 1, to)].end);
}

/** The characters of tokens `from` to `to` in the passage. */
export function spanAt(p: Passage, from: number, to: number): TextSpan {
  const { tokens } = p.reading;
  return { start: tokens[Math.max(0, from)].start, end: tokens[Math.min(tokens.length - 1, to)].end };
}

/** The sentence token i stands in, shortened around it when long. */
export function sentenceOf(p: Passage, i: number): string {
  const s = p.reading.sentences[p.reading.tokens[i].sentence];
  const text = words(p, s.first, s.last).replace(/\s+/g, ' ');
  return text.length > 240 ? `${text.slice(0, 237)}...` : text;
}

/** A quotation of the triggering words and, when they are not the whole sentence, the sentence around them. */
export function quoteAt(p: Passage, from: number, to: number): string {
  const trigger = words(p, from, to).replace(/\s+/g, ' ');
  const sentence = sentenceOf(p, from);
  return trigger === sentence ? `"${trigger}"` : `"${trigger}" (in "${sentence}")`;
}

export const refsOf = (p: Passage, entity: SliceEntity) => p.refs.filter((r) => r.entity.id === entity.id);
