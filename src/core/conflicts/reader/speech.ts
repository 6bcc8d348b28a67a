// Who says a quotation, for every check that reads dialogue: the speaker a speech tag names (two rules, beside each
// other: a tag right at the quote, for claims the speaker makes of themself; a tag anywhere in the narration next to
// the quotation, for what they say they know), and the one rule for a quotation that goes on after its tag.
import type { SliceEntity } from '../canonSlice.ts';
import { reporting, speechTags } from './lexicon.ts';
import type { Reading, Token } from './nlp.ts';
import type { Ref } from './references.ts';

/** What the speech rules read of a passage (checks/passage.ts `Passage`). */
type Speech = { reading: Reading; refs: Ref[] };

const quoteMarks = /^["“”‘’«»']$/;
const sentenceEnd = new Set(['.', '!', '?']);
/** How far a speech tag may stand from its quotation, in tokens. */
const tagReach = 8;

export type Quotation = { first: number; last: number };

/** Whether a paragraph break stands between tokens a and b. */
const paragraphBetween = (text: string, tokens: Token[], a: number, b: number) => text.slice(tokens[a].end, tokens[b].start).includes('\n');

/** The runs of quoted words, quotation marks left out; a paragraph break ends one. */
export function quotations(text: string, tokens: Token[]): Quotation[] {
  const found: Quotation[] = [];
  let open: Quotation | undefined;
  for (let i = 0; i < tokens.length; i++) {
    if (quoteMarks.test(tokens[i].text)) continue;
    if (!tokens[i].quoted) open = undefined;
    else if (open && !paragraphBetween(text, tokens, open.last, i)) open.last = i;
    else found.push((open = { first: i, last: i }));
  }
  return found;
}

/**
 * The character a speech tag next to the quotation names: after it first, else before it. The tag is the narration
 * between the quotation and the end of its sentence (or its start), within `tagReach` tokens and the paragraph: any
 * verb of saying (lexicon `reporting`) and any character there ('"…," Ada said quietly to the boy.').
 */
export function speakerNear(p: Speech, q: Quotation): SliceEntity | undefined {
  const { tokens, text } = p.reading;
  const within = (from: number, to: number) => {
    if (!tokens.slice(from, to + 1).some((t) => reporting.has(t.lemma) && !t.quoted)) return undefined;
    const ref = p.refs.find((r) => r.first >= from && r.last <= to && r.entity.type === 'character' && !tokens[r.first].quoted);
    return ref?.entity;
  };
  // After: from the closing mark to the end of the sentence, the next quotation or paragraph, at most tagReach tokens.
  let end = q.last;
  for (let i = q.last + 1; i < tokens.length && i <= q.last + tagReach; i++) {
    if (paragraphBetween(text, tokens, i - 1, i) || (tokens[i].quoted && !quoteMarks.test(tokens[i].text) && i > q.last + 1)) break;
    end = i;
    if (!tokens[i].quoted && sentenceEnd.has(tokens[i].text)) break;
  }
  const after = end > q.last ? within(q.last + 1, end) : undefined;
  if (after) return after;
  let start = q.first;
  for (let i = q.first - 1; i >= 0 && i >= q.first - tagReach; i--) {
    if (paragraphBetween(text, tokens, i, i + 1) || (!tokens[i].quoted && sentenceEnd.has(tokens[i].text)) || (tokens[i].quoted && !quoteMarks.test(tokens[i].text))) break;
    start = i;
  }
  return start < q.first ? within(start, q.first - 1) : undefined;
}

/**
 * The character a quote is tagged with: '"…," returned Meg', '"…," Meg said', or 'Meg said, "…"': a verb of a speech
 * tag (lexicon `speechTags`) right at the quote and the name right beside it. `i` is a token in the quote.
 */
export function speakerOf(p: Speech, i: number, startingAt: Map<number, Ref>): Ref | undefined {
  const { tokens } = p.reading;
  const isTag = (k: number) => tokens[k] !== undefined && !tokens[k].quoted && (tokens[k].pos === 'VERB' || tokens[k].pos === 'AUX') && speechTags.has(tokens[k].lemma);
  let after = i;
  while (tokens[after]?.quoted) after++;
  while (tokens[after] && tokens[after].pos === 'PUNCT' && !['.', '!', '?'].includes(tokens[after].text)) after++;
  if (isTag(after) && startingAt.has(after + 1)) return startingAt.get(after + 1);
  const named = startingAt.get(after);
  if (named && isTag(named.last + 1)) return named;
  let before = i;
  while (tokens[before]?.quoted) before--;
  while (tokens[before] && tokens[before].pos === 'PUNCT' && !['.', '!', '?'].includes(tokens[before].text)) before--;
  if (!isTag(before)) return undefined;
  return [...startingAt.values()].find((r) => r.last === before - 1);
}

/**
 * The speaker of a quote that goes on after its tag in the same paragraph: '“…,” said Mr. Fairlie. “My daughter…”',
 * '“I am tired,” said Mr. Hale. “I'm forty-five…”': the previous quote's (`speakerAt` its last token, by the caller's
 * rule for tags), when the narration between the two holds at most the tag's sentence. `narrow` (the speaker's entity):
 * also short, at most 12 tokens, naming no other character ('“…!” cried Biddy, in a burst of happiness, “and I am…”'),
 * for kin a speaker claims, which a long tag made false ("“Well, Pip,” said Joe, taking up the poker, and settling
 * himself … “I'll tell you. My father, Pip, he were given to drink"). `i` is a token in the later quote.
 */
export function continuedSpeaker<S>(p: Speech, i: number, speakerAt: (end: number) => S | undefined, narrow?: (speaker: S) => SliceEntity): S | undefined {
  const { tokens, text } = p.reading;
  let first = i;
  while (tokens[first - 1]?.quoted && !paragraphBetween(text, tokens, first - 1, first)) first--;
  let end = first - 1;
  while (tokens[end] && !tokens[end].quoted) end--;
  if (!tokens[end]?.quoted || paragraphBetween(text, tokens, end, first)) return undefined;
  if (tokens.slice(end + 1, first).filter((t) => sentenceEnd.has(t.text)).length > 1) return undefined;
  const speaker = speakerAt(end);
  if (speaker === undefined || !narrow) return speaker;
  const others = p.refs.some((r) => r.first > end && r.last < first && r.entity.type === 'character' && r.entity.id !== narrow(speaker).id);
  return first - end > 13 || others ? undefined : speaker;
}
