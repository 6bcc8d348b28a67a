// Checks that need no model, run first on every check; their hits stand whatever the model answers. The passage is
// read by an English parser (reader/: sentences, tokens, parts of speech, lemmas, negation; names and resolved
// pronouns; a subject–verb reading; what the narration asserts), then judged against the canon slice as of the
// passage's chapter: a dead character acting, speaking or said to be alive (checks/dead.ts); an eye or hair colour,
// age or title contradicting the canon (checks/attributes.ts); one character in two places at once
// (checks/locations.ts); a kinship word contradicting the relationship graph (checks/kinship.ts); a character saying,
// in dialogue attributed to them, the words of a fact they do not know yet (checks/knowledge.ts); a promise paid off
// before it is set up (checks/promises.ts). Every hit cites the ids it stands on and quotes the words that triggered it.
import type { CanonSlice, SliceEntity } from './canonSlice.ts';
import { attributes } from './checks/attributes.ts';
import { deadCharacters } from './checks/dead.ts';
import { kinship } from './checks/kinship.ts';
import { knowledgeViolations } from './checks/knowledge.ts';
import { promisesPaidEarly } from './checks/promises.ts';
import { locations } from './checks/locations.ts';
import type { Passage, Trace } from './checks/passage.ts';
import type { ConflictDraft } from './kinds.ts';
import { chapterAntecedent } from './reader/lexicon.ts';
import { read, type Reading, type Token } from './reader/nlp.ts';
import { canonPronouns, type Pronouns } from './reader/pronouns.ts';
import { heldKinship } from './reader/kin.ts';
import { chapterAntecedents, findReferences, isPersonalPronoun, type Ref } from './reader/references.ts';
import { analyse, type Syntax } from './reader/syntax.ts';

/**
 * What the reader makes of a passage before the canon is consulted (the English model's reading and the clauses and
 * unasserted tokens found in it): it depends on the text alone, so a chapter check keeps it per stretch of text and a
 * check after a canon change only does the matching.
 */
export type Parsed = Readonly<Pick<Syntax, 'reading' | 'clause' | 'unasserted'>>;

export function parse(text: string): Parsed {
  const { reading, clause, unasserted } = analyse(read(text));
  return { reading, clause, unasserted };
}

/**
 * A syntax of its own over a parsed passage: the canon's names retag the tokens they stand on (references.ts) and the
 * predicates are memoised over those tokens, so neither may leak into the next check of the same parse.
 */
function fresh({ reading, clause, unasserted }: Parsed): Syntax {
  const own: Reading = { ...reading, tokens: [...reading.tokens] };
  return { reading: own, clause: [...clause], unasserted: [...unasserted], predicates: new Map() };
}

/**
 * `parsed`: the passage's parse when the caller kept it (parse(text)); read here otherwise. `before`: the reading of
 * the words before the passage in its chapter (chapterBefore.ts), whose characters a pronoun the passage leaves with no
 * antecedent may refer to; what the passage reads without them stays as it is. `trace`: filled with what the reader
 * and the checks read (checks/passage.ts `Trace`), for the eval's account of its misses; the hits are the same.
 */
export function findDeterministicConflicts(text: string, slice: CanonSlice, episode: string | null, parsed: Parsed = parse(text), before?: Reading, trace?: Trace): ConflictDraft[] {
  const syntax = fresh(parsed);
  const { reading } = syntax;
  const outgoing = new Map<string, string[]>();
  for (const r of slice.relationships) outgoing.set(r.from, [...(outgoing.get(r.from) ?? []), r.kind]);
  // The slice carries the pronouns it learned from the chapters; a slice built without them falls back on the state,
  // names, relationship kinds and the facts' descriptions.
  const known = new Map<string, Pronouns | undefined>();
  const pronounsOf = (e: SliceEntity): Pronouns | undefined => {
    if (!known.has(e.id)) known.set(e.id, e.pronouns ?? canonPronouns(e, outgoing.get(e.id) ?? [], e.facts.map((f) => f.text)));
    return known.get(e.id);
  };
  const held = heldKinship(slice.relationships);
  const refs = withChapterAntecedents(syntax, findReferences(syntax, slice.entities, pronounsOf, held), () => {
    const antecedents = before ? chapterAntecedents(before, slice.entities, pronounsOf) : new Map();
    return antecedents.size > 0 ? findReferences(syntax, slice.entities, pronounsOf, held, antecedents) : undefined;
  });
  const passage: Passage = { reading, syntax, refs, slice, episode, pronounsOf, ...(trace && { trace }) };
  if (trace) traceReading(passage, trace);
  return [...deadCharacters(passage), ...attributes(passage), ...locations(passage), ...kinship(passage), ...knowledgeViolations(passage), ...promisesPaidEarly(passage)];
}

/**
 * A pronoun the passage may leave with no antecedent, which the chapter before it may resolve (lexicon
 * `chapterAntecedent.open`, outside quotations). The names the canon retags are never pronouns, so a passage with none
 * of these as parsed has none once read.
 */
export const mayBeOpen = (t: Token): boolean => t.pos === 'PRON' && !t.quoted && chapterAntecedent.open.has(t.lower);

/**
 * The passage's references, with those a reading that knows the chapter's antecedents adds: a pronoun it resolves
 * that the passage alone left unresolved, and the relative its possessive names ("her mother"). A reference the
 * passage alone makes is never replaced, so every hit it gives stands.
 */
function withChapterAntecedents(syntax: Syntax, refs: Ref[], withBefore: () => Ref[] | undefined): Ref[] {
  const { tokens } = syntax.reading;
  const open = (k: number) => mayBeOpen(tokens[k]);
  const taken = new Set<number>();
  for (const r of refs) for (let k = r.first; k <= r.last; k++) taken.add(k);
  if (!tokens.some((_, k) => open(k) && !taken.has(k))) return refs;
  const added = (withBefore() ?? []).filter((r) => !Array.from({ length: r.last - r.first + 1 }, (_, k) => r.first + k).some((k) => taken.has(k)));
  return added.length === 0 ? refs : [...refs, ...added].sort((a, b) => a.first - b.first);
}

/** The trace's account of the reading: the passage's sentences, its references and the personal pronouns none resolves. */
function traceReading(p: Passage, trace: Trace): void {
  const { tokens, sentences } = p.reading;
  trace.sentences.push(...sentences.map((s) => ({ start: tokens[s.first].start, end: tokens[s.last].end })));
  const taken = new Set<number>();
  for (const r of p.refs) {
    for (let k = r.first; k <= r.last; k++) taken.add(k);
    const frame = p.syntax.unasserted[r.first];
    trace.refs.push({ entity: r.entity.id, sentence: tokens[r.first].sentence, ...(frame !== undefined && { frame }) });
  }
  tokens.forEach((t, k) => {
    if (!taken.has(k) && t.pos === 'PRON' && isPersonalPronoun(t.lower)) trace.openPronouns.push(t.sentence);
  });
}
