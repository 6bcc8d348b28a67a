// What every check reads: the passage as the reader parsed it, the references to the canon's entities in it, the
// canon slice, and helpers to quote the words a hit stands on.
import type { CanonSlice, SliceEntity } from '../canonSlice.ts';
import type { ConflictKind, TextSpan } from '../kinds.ts';
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
  /** filled only when the caller asks for it (the eval's `--why`): what each check read, for telling why a pair was missed */
  trace?: Trace;
};

/**
 * What a check read of one entity before deciding, in sentence `sentence`: `outcome` is "hit", "agrees" (compared with
 * the canon, no contradiction), "canon lacks" (the canon holds nothing to compare with as of the passage), or the name
 * of the guard that set the claim aside.
 */
export type TraceClaim = { kind: ConflictKind; entity: string; sentence: number; outcome: string };
/** The reading behind a check's answer (findDeterministicConflicts' `trace`): off by default and not built when off. */
export type Trace = {
  claims: TraceClaim[];
  /** every reference to an entity: its sentence and the frame (dialogue, thought…) that keeps it from being asserted */
  refs: { entity: string; sentence: number; frame?: string }[];
  /** the sentences of personal pronouns ("he", "her", "I", "my") that no reference resolves */
  openPronouns: number[];
  /** each sentence's characters in the passage (start inclusive, end exclusive) */
  sentences: { start: number; end: number }[];
};

/** Notes a claim in the trace, when one is kept. */
export function traceClaim(p: Passage, kind: ConflictKind, entity: string, token: number, outcome: string): void {
  p.trace?.claims.push({ kind, entity, sentence: p.reading.tokens[token]?.sentence ?? -1, outcome });
}

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
