// A character the canon has dead (as of the passage's chapter) who acts, speaks or is said to be alive: the subject of
// any verb the narration asserts (named, by an alias, or by a resolved pronoun; in a relative clause; as the speaker of
// a speech tag; "sees Halloran standing"), or of "is alive", "still lives", "survived". Left alone: dialogue,
// conditions, what a character thinks, dreams, remembers or reports, negations, modals ("would have liked"), the
// passive ("was buried"), the pluperfect and "used to" (backstory), past tense inside present-tense narration, and
// verbs that are no act of the living ("died", "lay", "had"). A participle after the clause (", polishing glasses")
// is its subject's act too.
import type { SliceEntity } from '../canonSlice.ts';
import type { ConflictDraft } from '../kinds.ts';
import { aliveAdjectives, aliveVerbs, deathWords, depicting, placing, reporting, stative, thinking } from '../reader/lexicon.ts';
import { verbIn } from '../reader/nlp.ts';
import type { Ref } from '../reader/references.ts';
import { asserts, clauseStart, deniedBefore, participleAfter, predicatesOf, speechTagBefore } from '../reader/syntax.ts';
import { quoteAt, refsOf, type Passage } from './passage.ts';

const temporal = new Set(['while', 'when', 'whenever', 'before', 'after', 'until', 'till', 'since', 'once', 'as']);

export function isDead(entity: SliceEntity, p: Passage): boolean {
  const { state } = entity;
  const status = state.status ?? state.state;
  const dead = (typeof status === 'string' && status.toLowerCase().split(/\s+/).some((w) => deathWords.has(w))) || state.alive === false || state.dead === true;
  if (!dead) return false;
  // A passage set in a chapter before the one the character dies in has them alive.
  const diedIn = state.died_in;
  const position = p.slice.position;
  return !(position !== undefined && typeof diedIn === 'string' && (p.slice.chapterOrdinals[diedIn] ?? -Infinity) > position);
}

/** ", polishing glasses" after the clause of the verb at `verb`: a participle whose subject is that clause's subject. */
function participleAdjunct(p: Passage, verb: number): number | undefined {
  const { tokens } = p.reading;
  for (let k = verb + 1; k < tokens.length - 1 && p.syntax.clause[k] === p.syntax.clause[verb]; k++) {
    if (tokens[k].text !== ',') continue;
    const next = tokens[k + 1];
    const ing = next.lower.endsWith('ing') && (next.pos === 'VERB' || next.pos === 'NOUN');
    return ing && p.syntax.unasserted[k + 1] === undefined && !verbIn(stative, next) && !deathWords.has(next.lower) ? k + 1 : undefined;
  }
  return undefined;
}

type Trigger = { from: number; to: number; alive: boolean };

function trigger(p: Passage, ref: Ref): Trigger | undefined {
  const { syntax } = p;
  const { tokens } = p.reading;
  if (syntax.unasserted[ref.first] !== undefined) return undefined;
  const tag = speechTagBefore(syntax, ref.first);
  if (tag !== undefined && syntax.unasserted[tag] === undefined) return { from: tag, to: ref.last, alive: false };
  for (const predicate of predicatesOf(syntax, ref.last)) {
    if (!predicate.relative && !ref.subject) continue;
    const verb = tokens[predicate.verb];
    if (predicate.copula) {
      // "was behind the bar, polishing glasses": being somewhere and doing something there; "was gone, leaving…" is not.
      const adjunct = !predicate.relative && placing.has(tokens[predicate.verb + 1]?.lower ?? '') ? participleAdjunct(p, predicate.verb) : undefined;
      if (adjunct !== undefined && asserts(syntax, predicate)) return { from: ref.first, to: adjunct, alive: false };
      let at = predicate.verb + 1;
      while (at < tokens.length && tokens[at].pos === 'ADV' && at < predicate.verb + 3) at++;
      if (!tokens[at] || !aliveAdjectives.has(tokens[at].lower)) continue;
      // "While Osric was alive, …", "While Ambrose lived, …" set a time, they do not say he is.
      const opener = tokens[clauseStart(syntax, predicate.verb)];
      if (temporal.has(opener.lower)) continue;
      if (asserts(syntax, predicate)) return { from: ref.first, to: at, alive: true };
      continue;
    }
    if (verbIn(aliveVerbs, verb)) {
      if (!temporal.has(tokens[clauseStart(syntax, predicate.verb)].lower) && asserts(syntax, predicate)) return { from: ref.first, to: predicate.verb, alive: true };
      continue;
    }
    if (verbIn(stative, verb) || deathWords.has(verb.lower)) continue;
    if (asserts(syntax, predicate)) return { from: ref.first, to: predicate.verb, alive: false };
  }
  const participle = participleAfter(syntax, ref.first, ref.last);
  if (participle) {
    const governor = tokens[participle.governor];
    const seen = !verbIn(thinking, governor) && !verbIn(reporting, governor) && !verbIn(depicting, governor);
    if (seen && syntax.unasserted[participle.verb] === undefined && !governor.negated && !deniedBefore(syntax, participle.governor)) {
      return { from: ref.first, to: participle.verb, alive: false };
    }
  }
  return undefined;
}

export function deadCharacters(p: Passage): ConflictDraft[] {
  const hits: ConflictDraft[] = [];
  for (const character of p.slice.entities.filter((e) => e.type === 'character' && isDead(e, p))) {
    for (const ref of refsOf(p, character)) {
      const found = trigger(p, ref);
      if (!found) continue;
      const deathFact = character.facts.find((f) => /\b(died|dead|killed|drowned|murdered|death|slain|perished|executed)\b/i.test(f.text));
      const status = character.state.status ?? character.state.state;
      hits.push({
        severity: 'P1',
        kind: 'dead_character_active',
        episode: p.episode,
        title: `${character.name} acts after their death`,
        rationale: `The canon has ${character.name} ${typeof status === 'string' ? status : 'dead'}${deathFact ? ` ("${deathFact.text}")` : ''}${p.episode ? ` as of ${p.episode}` : ''}, yet the passage ${found.alive ? 'says they are alive' : 'has them act or speak'}: ${quoteAt(p, Math.min(found.from, found.to), Math.max(found.from, found.to))}.`,
        refs: [character.id, ...(deathFact ? [deathFact.id] : [])],
      });
      break;
    }
  }
  return hits;
}
