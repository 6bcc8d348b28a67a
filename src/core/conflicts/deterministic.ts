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
import type { Passage } from './checks/passage.ts';
import type { ConflictDraft } from './kinds.ts';
import { read, type Reading } from './reader/nlp.ts';
import { canonPronouns, type Pronouns } from './reader/pronouns.ts';
import { heldKinship } from './reader/kin.ts';
import { findReferences } from './reader/references.ts';
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

/** `parsed`: the passage's parse when the caller kept it (parse(text)); read here otherwise. */
export function findDeterministicConflicts(text: string, slice: CanonSlice, episode: string | null, parsed: Parsed = parse(text)): ConflictDraft[] {
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
  const refs = findReferences(syntax, slice.entities, pronounsOf, heldKinship(slice.relationships));
  const passage: Passage = { reading, syntax, refs, slice, episode, pronounsOf };
  return [...deadCharacters(passage), ...attributes(passage), ...locations(passage), ...kinship(passage), ...knowledgeViolations(passage), ...promisesPaidEarly(passage)];
}
