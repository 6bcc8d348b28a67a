// One character in two places at once. A placement is a canon location after a placing preposition, directly or
// through the phrase it heads ("at the gate of X", "on the steps of X", "in the control room of X", "within X's
// walls", "in X market"). It places the character it follows ("Anselm in Greyford"), else its clause's subject (a
// name or a resolved pronoun: "at Cecily's side in the Dower House", "from her desk in the Abbey" place the one who
// sits or writes), else the nearest character of its clause. Two placements of one character clash when they
// name different places, neither inside the other (relationships part_of, located_in, inside…), neither clause moves
// (a verb of motion, "to", "from", "into"…), and they are at one time: joined in one clause ("both in X and at Y"),
// or with "at the same moment", "meanwhile", "while", "also", "at once"… between them, or the same time of day told
// twice ("at noon … at noon"). Looking or pointing at a place ("looked across at X"), being born there, the
// pluperfect, and what is thought, dreamt, reported or disjoined ("in X or at Y") place nobody. A placement not on the
// move also clashes with where the canon holds the character as of the passage (state `location`), unless one place
// lies inside the other; so do, against the canon only, the places dialogue gives its speaker, the one spoken to or a
// third person (by name, or by a pronoun when the speaker's turn names one person it fits), a writer's place ("writes
// from X"), a pluperfect stay whose span runs up to the now, a journey's end told in a main clause ("reached X"), a
// speaker's "here" after their coming to X, and the one written to at X.
import type { ConflictDraft } from '../kinds.ts';
import { addressing, arrivalNouns, arrivals, collective, containedIn, deictic, elsewhen, missives, returning, contains, directional, formerly, future, hearsay, hypothetical, inside, kinWord, manners, modals, motion, namesOneMoment, pastSpans, pathMotion, people, placedPassives, placedStates, placeNamedThings, placeParts, pacing, placing, planning, pointing, relativeOpeners, portions, possessives, residences, roomEntries, rooms, simultaneity, spanClosers, spanOpeners, spokenOfPronouns, spokenSubjects, stays, stretches, thinking, timeNouns, timeShifts, unspecific, untilNow, writing } from '../reader/lexicon.ts';
import { finiteTense, verbIn, type Token } from '../reader/nlp.ts';
import { fits } from '../reader/pronouns.ts';
import { letterSpans, type Ref } from '../reader/references.ts';
import { continuedSpeaker, speakerOf } from '../reader/speech.ts';
import { asserts, atSubjectPosition, clauseEnd, clauseStart, inSubordinate, moodOf, predicatesOf, wheneverAfterHabit, type Predicate } from '../reader/syntax.ts';
import { addresseeOf } from './kinship.ts';
import { sentenceOf, spanAt, traceClaim, words, type Passage } from './passage.ts';

const dayShifts = new Set(['next', 'following', 'later', 'after', 'afterwards', 'tomorrow', 'yesterday', 'previous', 'before', 'earlier']);

/**
 * `direct`: the place is said of the character itself ("Cathy stayed at the Grange", "Lucie in Paris", "knew Lucie to
 * be in Paris"), not of a thing in the clause ("the shoemaker of the garret in Paris").
 */
type Placement = { character: Ref['entity']; place: Ref['entity']; prep: number; ref: Ref; clause: number; moving: boolean; direct: boolean; present: boolean };

/** "at home" before the slice says whose home it is. */
const home: Ref['entity'] = { id: '', type: 'location', name: 'home', aliases: [], state: {}, facts: [] };

/** The placing preposition governing a location reference, or undefined when the place is a goal, a source or a label. */
function prepositionOf(p: Passage, ref: Ref): number | undefined {
  const { tokens } = p.reading;
  if (namesThing(tokens, ref.last)) return undefined;
  let k = ref.first - 1;
  // "in her London dining-room": the place names the room or house of someone's that one is in.
  if (possessives.has(tokens[k]?.lower ?? '') && roomNamed(p, ref.last)) k--;
  if (tokens[k]?.pos === 'DET') k--;
  if (tokens[k]?.lower === 'of') {
    // "at the gate of X": walk back over the head noun phrase to its preposition.
    let j = k - 1;
    while (j >= 0 && j > k - 6 && ['NOUN', 'ADJ', 'DET', 'PROPN', 'NUM'].includes(tokens[j].pos)) j--;
    if (j === k - 1) return undefined;
    k = j;
  }
  const prep = tokens[k];
  if (!prep || prep.sentence !== tokens[ref.first].sentence || !(placing.has(prep.lower) || pacingTo(tokens, k))) return undefined;
  return k;
}

/** Whether the place ending at `last` modifies a noun naming a thing ("inside the Yarmouth mail"; lexicon `placeNamedThings`). */
function namesThing(tokens: Token[], last: number): boolean {
  const [next, after] = [tokens[last + 1], tokens[last + 2]];
  return !!next && ['NOUN', 'PROPN'].includes(next.pos) && (placeNamedThings.has(next.lower) || placeNamedThings.has(next.lemma)) && !(after?.pos === 'NOUN' || after?.text === '-');
}

/** Whether token k ends a way to and fro inside a place ("stumping up and down the parlour of X"; lexicon `pacing`). */
function pacingTo(tokens: Token[], k: number): boolean {
  return pacing.some((phrase) => phrase.every((w, j) => tokens[k - phrase.length + 1 + j]?.lower === w));
}

/** Whether a room or a house (lexicon `rooms`) follows token `last`, as its noun or a compound's last ("dining-room"). */
function roomNamed(p: Passage, last: number): boolean {
  const { tokens } = p.reading;
  let j = last + 1;
  while (j < last + 5 && (tokens[j]?.pos === 'NOUN' || (tokens[j]?.text === '-' && tokens[j + 1]?.pos === 'NOUN'))) j++;
  const head = tokens[j - 1];
  return j > last + 1 && head.pos === 'NOUN' && (rooms.has(head.lemma) || rooms.has(head.lower));
}

/** The verb governing a preposition: the nearest before it in its clause, else the first after it. */
function governingVerb(p: Passage, at: number): number | undefined {
  const { tokens } = p.reading;
  const [start, end] = [clauseStart(p.syntax, at), clauseEnd(p.syntax, at)];
  for (let k = at - 1; k >= start; k--) if (tokens[k].pos === 'VERB' || tokens[k].pos === 'AUX') return k;
  for (let k = at + 1; k <= end; k++) if (tokens[k].pos === 'VERB' || tokens[k].pos === 'AUX') return k;
  return undefined;
}

/** The predicate around a verb: the auxiliaries and adverbs just before it. */
function predicateAt(p: Passage, verb: number): Predicate {
  const { tokens } = p.reading;
  const auxes: number[] = [];
  let k = verb - 1;
  while (k >= 0 && (tokens[k].pos === 'AUX' || tokens[k].pos === 'ADV' || tokens[k].pos === 'PART')) {
    if (tokens[k].pos === 'AUX') auxes.unshift(k);
    k--;
  }
  // "had seen and heard him": a verb coordinated with one before it shares its auxiliaries.
  if (auxes.length === 0 && tokens[k]?.pos === 'CCONJ' && tokens[k - 1]?.pos === 'VERB') return { ...predicateAt(p, k - 1), verb };
  return { verb, auxes, copula: false, relative: false, habitual: false };
}

/**
 * A room, a piece of furniture or a part out of doors (lexicon `placeParts`) at token k that someone is in ("in the
 * drawing-room at X", "on the quay at X", "in the apple barrel in the yard of X", "within the park at X", "got into the
 * loft at X"): its place is its occupant's; returns the room's own preposition. Not a thing's ("the key of the cottage
 * in X"), nor one no particular room ("to fix on any house in X").
 */
function occupied(p: Passage, k: number): number | undefined {
  const { tokens } = p.reading;
  if (!tokens[k] || ![tokens[k].lemma, tokens[k].lower].some((w) => rooms.has(w) || placeParts.has(w))) return undefined;
  let j = k - 1;
  while (j >= 0 && (['DET', 'ADJ', 'NOUN', 'NUM'].includes(tokens[j].pos) || tokens[j].text === '-' || possessives.has(tokens[j].lower))) {
    if (unspecific.has(tokens[j].lower)) return undefined;
    j--;
  }
  // "got into the apple barrel in the yard of X": a way into the room ends in it (intoRoom), so it holds its comer too.
  return j >= 0 && (placing.has(tokens[j].lower) || roomEntries.has(tokens[j].lower)) ? j : undefined;
}

/**
 * "her son, who was still in London": a relative clause opened by "who" says its place of the character it follows
 * (not of a possessor: "Nora's aunt, who…" is the aunt's, whom the reader names otherwise).
 */
function relativeAntecedent(p: Passage, characters: Ref[], prep: number): Ref | undefined {
  const { tokens } = p.reading;
  const start = clauseStart(p.syntax, prep);
  if (tokens[start].lower !== 'who' || tokens[start].quoted) return undefined;
  const last = tokens[start - 1]?.text === ',' ? start - 2 : start - 1;
  const found = characters.find((c) => c.last === last && c.pronoun !== 'possessive');
  return found && !/^['’]s$/.test(tokens[found.last + 1]?.lower ?? '') ? found : undefined;
}

/** "got into the apple barrel in the yard at X": a way into a room that lies in the place ends inside it. */
function intoRoom(p: Passage, room: number): boolean {
  const { tokens } = p.reading;
  for (let j = room - 1; j >= 0 && j >= room - 8; j--) {
    if (roomEntries.has(tokens[j].lower)) return true;
    if (!['DET', 'ADJ', 'NOUN', 'NUM', 'ADP'].includes(tokens[j].pos) && !possessives.has(tokens[j].lower)) return false;
  }
  return false;
}

/**
 * "his long residence at Donwell": a noun of dwelling after a possessive gives its place to its possessor (not "her
 * former residence").
 */
function residedAt(p: Passage, k: number): boolean {
  const { tokens } = p.reading;
  if (!tokens[k] || (!residences.has(tokens[k].lemma) && !residences.has(tokens[k].lower))) return false;
  let j = k - 1;
  while (j >= 0 && tokens[j].pos === 'ADJ') {
    if (formerly.has(tokens[j].lower)) return false;
    j--;
  }
  return j >= 0 && (possessives.has(tokens[j].lower) || /^['’]s$/.test(tokens[j].lower));
}

/** "was having hard times at X", "spent three days in X": a stretch of time the verb's object is spent where its subject is. */
function spentThere(p: Passage, verb: number | undefined, k: number): boolean {
  const { tokens } = p.reading;
  if (verb === undefined || verb >= k || !stretches.has(tokens[k].lemma)) return false;
  // "passed the greater part of the night at X": a part of the stretch.
  for (let j = verb + 1; j < k; j++) {
    const partOf = portions.has(tokens[j].lower) || (tokens[j].lower === 'of' && portions.has(tokens[j - 1].lower));
    if (!['DET', 'ADJ', 'NUM'].includes(tokens[j].pos) && !partOf) return false;
  }
  return true;
}

/**
 * "that life centring in Lantern Yard", "the road leading to X": a participle right after a noun that names no one
 * says the place of the noun's, not of the clause's subject; not after a stretch the subject spends ("passed the
 * evening sitting in X").
 */
function participleOfThing(p: Passage, k: number): boolean {
  const { tokens } = p.reading;
  const [t, noun] = [tokens[k], tokens[k - 1]];
  return t?.pos === 'VERB' && t.lower.endsWith('ing') && noun?.pos === 'NOUN' && !stretches.has(noun.lemma) && !p.refs.some((r) => r.last === k - 1);
}

/** "in silence", "in deep silence" at token k: a manner, not a thing the place after it belongs to. */
function ofManner(p: Passage, k: number): boolean {
  const { tokens } = p.reading;
  if (!manners.has(tokens[k].lower)) return false;
  let j = k - 1;
  while (j >= 0 && (tokens[j].pos === 'ADJ' || tokens[j].pos === 'DET')) j--;
  return j >= 0 && placing.has(tokens[j].lower);
}

/** Whether a verb of planning governs the infinitive marker at `to`, past its object ("asked the girls to"). */
function plannedBefore(p: Passage, to: number): boolean {
  const { tokens } = p.reading;
  for (let k = to - 1; k >= 0 && k >= to - 5 && tokens[k].sentence === tokens[to].sentence; k--) {
    if (tokens[k].pos === 'VERB') return verbIn(planning, tokens[k]);
    if (!['PRON', 'NOUN', 'PROPN', 'DET', 'ADJ', 'ADV', 'AUX'].includes(tokens[k].pos)) return false;
  }
  return false;
}

/**
 * "I noticed that one was near London": the verb placing something has a subject of its own, not a character, in a
 * "that" clause after the one the place would go to.
 */
function ownSubjectAfter(p: Passage, owner: Ref, verb: number): boolean {
  const { tokens } = p.reading;
  let k = verb - 1;
  while (k > owner.last && ['AUX', 'ADV', 'PART'].includes(tokens[k].pos)) k--;
  if (k <= owner.last || !['NOUN', 'NUM', 'DET'].includes(tokens[k].pos) || p.refs.some((r) => r.first <= k && r.last >= k)) return false;
  for (let j = k - 1; j > owner.last; j--) if (tokens[j].lower === 'that' && tokens[j].pos === 'SCONJ') return true;
  return false;
}

/**
 * "We" in the narration of a first-person story, as a subject, is the narrator among others ("we lived at the forge
 * again", "we both sat in the log-house"): the narrator of the nearest "I" before it, else the story's one narrator.
 * Only where someone is: "we" says nothing of the narrator's age or kin.
 */
function narratorsWe(p: Passage): Ref[] {
  const { tokens } = p.reading;
  const found: Ref[] = [];
  const storyNarrators = p.slice.entities.filter((e) => e.type === 'character' && e.state.narrator === true);
  const letters = letterSpans(p.reading);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (!collective.has(t.lower) || t.pos !== 'PRON' || t.quoted || !atSubjectPosition(p.syntax, i)) continue;
    // In a letter the story reads out, "we" is its writer's: only an "I" of that letter may say who.
    const letter = letters.find((l) => l.start <= t.start && t.start < l.end);
    const mine = p.refs.filter((r) => r.narrator && r.first < i && (!letter || tokens[r.first].start >= letter.start)).at(-1)?.entity;
    const entity = mine ?? (!letter && storyNarrators.length === 1 ? storyNarrators[0] : undefined);
    if (entity) found.push({ entity, first: i, last: i, pronoun: 'nominative', subject: true, narrator: true });
  }
  return found;
}

function placements(p: Passage): Placement[] {
  const { tokens } = p.reading;
  const { syntax } = p;
  const characters = [...p.refs.filter((r) => r.entity.type === 'character'), ...narratorsWe(p)].sort((a, b) => a.first - b.first);
  const found: Placement[] = [];
  // "sat at home": the home of whoever the place is said of, where the canon gives one (below).
  const homes: Ref[] = tokens.flatMap((t, i) => (t.lower === 'home' && tokens[i - 1]?.lower === 'at' ? [{ entity: home, first: i, last: i, subject: false }] : []));
  for (const ref of [...p.refs.filter((r) => r.entity.type === 'location'), ...homes]) {
    if (syntax.unasserted[ref.first] !== undefined || tokens[ref.first].negated) continue;
    const prep = prepositionOf(p, ref);
    if (prep === undefined) continue;
    const verb = governingVerb(p, prep);
    if (verb !== undefined) {
      const v = tokens[verb];
      if (verbIn(pointing, v) && ['at', 'towards', 'toward', 'on'].includes(tokens[prep].lower)) continue;
      // "being settled in Bath" places its subject; "being admired at X" does not.
      if (!asserts(syntax, predicateAt(p, verb), { passiveCounts: verbIn(placedPassives, v), recentPast: true })) continue;
      // "the regiment's remaining in Meryton": a gerund of a thing's says where the thing is.
      if (v.lower.endsWith('ing') && /^['’]s$/.test(tokens[verb - 1]?.lower ?? '') && tokens[verb - 2]?.pos === 'NOUN' && !p.refs.some((r) => r.last === verb - 2)) continue;
      if (predicateAt(p, verb).auxes.some((a) => future.has(tokens[a].lower)) || wheneverAfterHabit(syntax, verb)) continue;
    }
    // "was asked to dine at Rosings", "hoped to be at the Hall": a plan.
    if (verb !== undefined && tokens[verb - 1]?.lower === 'to' && plannedBefore(p, verb - 1)) continue;
    // "had a sister in Dry Fork", "met a man at the Spur": the place is the noun's, not the subject's.
    const before = tokens[prep - 1];
    if (before?.pos === 'NOUN' && (kinWord(before.lower) || people.has(before.lemma) || (verb !== undefined && tokens[verb].lemma === 'have' && !spentThere(p, verb, prep - 1)))) continue;
    const clause = syntax.clause[prep];
    const inClause = characters.filter((c) => syntax.clause[c.first] === clause);
    const possessor = (c: Ref) => c.pronoun === 'possessive' || /^['’]s$/.test(tokens[c.last + 1]?.lower ?? '');
    // Right after a character ("Anselm in Greyford") the place is theirs; otherwise ("at Cecily's side in the Dower
    // House", "from her desk in the Abbey", "In Greyford, Edda sold…") it is the clause's subject's.
    const attached =
      inClause.find((c) => c.last === prep - 1 && !possessor(c)) ??
      // "knew Lucie to be in Paris", "found him to be at the inn": the place is the object's.
      inClause.find((c) => !possessor(c) && tokens[c.last + 1]?.lower === 'to' && tokens[c.last + 2]?.lemma === 'be' && c.last + 3 === prep);
    // "Kessler's lawyer spends the morning at the yard": a subject that is someone's (not a name of the canon) is
    // where it is, not its possessor.
    const ownsSubject = (c: Ref) => {
      if (!possessor(c) || !atSubjectPosition(syntax, c.first)) return false;
      let head = c.pronoun ? c.last + 1 : c.last + 2;
      while (tokens[head] && (tokens[head].pos === 'ADJ' || tokens[head].pos === 'ADV')) head++;
      return tokens[head]?.pos === 'NOUN' && predicatesOf(syntax, head).some((pr) => !pr.relative);
    };
    // "her thoughts were at Pemberley": a subject that is someone's thing (not a relative named by a kin word: "her
    // husband") is what the place is said of.
    if (!attached && inClause.some((c) => ownsSubject(c) && c.first < prep && !inClause.some((r) => r.kin && r.first <= c.first && r.last > c.last))) continue;
    const owner =
      attached ??
      inClause.find((c) => c.subject) ??
      inClause.filter((c) => c.last < ref.first && !possessor(c)).at(-1) ??
      inClause.filter((c) => c.last < ref.first && !ownsSubject(c)).at(-1) ??
      // "sat at Fenwick with Nora's aunt": a possessor after the place owns a thing, not the place.
      inClause.find((c) => c.first > ref.last && !possessor(c)) ??
      (inClause.length === 0 ? relativeAntecedent(p, characters, prep) : undefined);
    if (!owner || syntax.unasserted[owner.first] !== undefined) continue;
    const place = ref.entity === home ? p.slice.entities.find((e) => e.id === p.slice.homeAt[owner.entity.id]) : ref.entity;
    if (!place) continue;
    if (owner !== attached && verb !== undefined && ownSubjectAfter(p, owner, verb)) continue;
    const [start, end] = [clauseStart(syntax, prep), clauseEnd(syntax, prep)];
    // "In the London streets… there were hints of reproaches that I had put…": a place before "there is" is where
    // something is, not the one a later clause names.
    if (owner !== attached && prep < owner.first && tokens.slice(prep, owner.first).some((t, j) => t.lower === 'there' && tokens[prep + j + 1]?.lemma === 'be')) continue;
    const span = tokens.slice(start, end + 1);
    // "out at Hale Ranch" is where someone is; "out of X", "to X" are a source and a goal.
    const heading = (t: Token, j: number) => directional.has(t.lower) && !(t.lower === 'out' && placing.has(tokens[start + j + 1]?.lower ?? ''));
    // Crossing a square in Lyon is being in Lyon: a motion along a way inside the place moves nobody out of it.
    // Right after a noun that is not the character ("the garret in Paris"), the place is the noun's.
    let k = prep - 1;
    while (k > start && tokens[k].pos === 'ADV') k--;
    const room = occupied(p, k);
    // "walked within the park at X" as "crossed the square in X": the room's preposition puts the way inside too.
    const within = inside.has(tokens[prep].lower) || pacingTo(tokens, prep) || (room !== undefined && inside.has(tokens[room].lower));
    const moves = (t: Token) => t.pos === 'VERB' && verbIn(motion, t) && !(within && verbIn(pathMotion, t));
    const moving =
      (span.some(moves) && !(room !== undefined && intoRoom(p, k))) || span.some((t, j) => heading(t, j) && p.refs.some((r) => r.first === start + j + 1 || r.first === start + j + 2));
    if (span.some((t) => ['or', 'either', 'whether', 'nor'].includes(t.lower))) continue;
    if (owner !== attached && participleOfThing(p, k)) continue;
    const direct = owner === attached || !['NOUN', 'PROPN', 'ADJ', 'NUM'].includes(tokens[k]?.pos ?? '') || p.refs.some((r) => r.last === k) || room !== undefined || spentThere(p, verb, k) || ofManner(p, k) || residedAt(p, k);
    const present = verb !== undefined && finiteTense(tokens, predicateAt(p, verb).auxes[0] ?? verb) === 'present' && !span.some((t) => timeShifts.has(t.lower));
    found.push({ character: owner.entity, place, prep, ref, clause, moving, direct, present });
    // "Eppie and Silas were seated in X": the subjects coordinated with the owner share its place (not "at home",
    // which is each one's own).
    if (owner !== attached && owner.subject && ref.entity !== home) for (const other of coordinatedAfter(p, owner, inClause, prep)) found.push({ character: other.entity, place, prep, ref, clause, moving, direct, present });
  }
  return found;
}

/** The characters joined to a subject by "and" or a comma after it, before token `before`: "Eppie and Silas were…". */
function coordinatedAfter(p: Passage, owner: Ref, inClause: Ref[], before: number): Ref[] {
  const { tokens } = p.reading;
  const found: Ref[] = [];
  let k = owner.last + 1;
  for (;;) {
    let j = k;
    while (j < before && (tokens[j].text === ',' || tokens[j].lower === 'and')) j++;
    const next = j > k ? inClause.find((c) => c.first === j && c.subject && c.pronoun !== 'possessive' && !/^['’]s$/.test(tokens[c.last + 1]?.lower ?? '')) : undefined;
    if (!next) return found;
    found.push(next);
    k = next.last + 1;
  }
}

/**
 * Dialogue that places its speaker or the one spoken to now: "“I am at Fenwick now,” said Nora", "“You are at Fenwick,
 * Nora,”": "I" or "we" (the speaker the tag names) or "you" (the one a vocative or the tag names) as the subject of a
 * verb of being somewhere in the present (lexicon `stays`) right before the place. Not in a question, after a wish, a
 * condition or a thought ("“I wish I were at X”", "“If I am at X by noon”"), negated, modal or moved off the now
 * ("tomorrow"); the past places nobody ("“I was at X last year”").
 */
function spokenPlacements(p: Passage): Placement[] {
  const { tokens } = p.reading;
  const startingAt = new Map(p.refs.filter((r) => r.entity.type === 'character' && !r.kin).map((r) => [r.first, r]));
  // A third person by name, not a pronoun nor a kin word: whom "she" means in someone's words is the speaker's guess.
  const namedEndingAt = new Map(p.refs.filter((r) => r.entity.type === 'character' && !r.kin && !r.pronoun && tokens[r.first].quoted).map((r) => [r.last, r]));
  const found: Placement[] = [];
  for (const ref of p.refs.filter((r) => r.entity.type === 'location' && tokens[r.first].quoted)) {
    const prep = prepositionOf(p, ref);
    if (prep === undefined) continue;
    const placed = (character: Ref['entity']) => found.push({ character, place: ref.entity, prep, ref, clause: p.syntax.clause[prep], moving: false, direct: true, present: true });
    const apposed = apposedInDialogue(p, ref, prep, namedEndingAt);
    if (apposed) {
      placed(apposed.entity);
      continue;
    }
    if (tokens[prep - 1]?.pos === 'NOUN') continue;
    let verb = prep - 1;
    while (verb > 0 && tokens[verb].pos === 'ADV') verb--;
    // "“she is so happy at Randalls”": a state of being where one is, between the copula and a place named right after.
    if (placedStates.has(tokens[verb]?.lower ?? '') && (ref.first === prep + 1 || (ref.first === prep + 2 && tokens[prep + 1].pos === 'DET'))) {
      verb--;
      while (verb > 0 && tokens[verb].pos === 'ADV') verb--;
      if (tokens[verb]?.lemma !== 'be') continue;
    }
    const v = tokens[verb];
    if (!v || !(v.pos === 'AUX' || v.pos === 'VERB') || !verbIn(stays, v) || v.negated) continue;
    // "“We are staying at X”": a progressive of the present as the simple present ("“I stay at X”"), not a perfect.
    const progressive = predicateAt(p, verb).auxes;
    const ongoing = v.lower.endsWith('ing') && progressive.length === 1 && tokens[progressive[0]].lemma === 'be' && progressive[0] === verb - 1;
    if (finiteTense(tokens, ongoing ? verb - 1 : verb) !== 'present' || (ongoing && tokens[verb - 1].negated)) continue;
    let subject = ongoing ? verb - 2 : verb - 1;
    while (subject > 0 && tokens[subject].pos === 'ADV') subject--;
    const who = spokenSubjects[tokens[subject]?.lower ?? ''];
    // "“Mr. Darcy is at Pemberley now,”": a third person the speaker places, not on hearsay ("I hear Darcy is…").
    const third = namedEndingAt.get(subject);
    if (third && third.entity.type === 'character' && spokenNow(p, third.first, prep, true)) {
      placed(third.entity);
      continue;
    }
    // "“…while she is so happy at Randalls, … to Emma”": a third person by a pronoun, the one the turn is about.
    const spokenOf = spokenOfPronouns[tokens[subject]?.lower ?? ''];
    if (spokenOf && tokens[subject].pos === 'PRON' && tokens[subject].quoted && spokenNow(p, subject, prep, true, true)) {
      const meant = spokenAbout(p, subject, spokenOf, startingAt);
      if (meant) placed(meant);
      continue;
    }
    if (!who || tokens[subject].pos !== 'PRON' || !tokens[subject].quoted || !spokenNow(p, subject, prep, false)) continue;
    const character = who === 'speaker' ? speakerOf(p, subject, startingAt) : (vocativeAround(p, prep, startingAt) ?? addresseeOf(p, subject, startingAt));
    if (!character || character.entity.type !== 'character') continue;
    placed(character.entity);
  }
  return found;
}

/**
 * Whether quoted words placing the one whose subject (or name) starts at token `subject` speak of now: not in a
 * question, after a wish, a condition, a thought or a plan ("“I wish I were at X”", "“If I am at X by noon”"), nor moved
 * off the now ("tomorrow", "will"); `third`: nor on hearsay ("“They say Darcy is at X”").
 */
function spokenNow(p: Passage, subject: number, prep: number, third: boolean, ownClause = false): boolean {
  const { tokens } = p.reading;
  const sentence = p.reading.sentences[tokens[subject].sentence];
  const quoted = tokens.slice(sentence.first, sentence.last + 1).filter((t) => t.quoted);
  const before = tokens.slice(sentence.first, subject).flatMap((t, j) => (t.quoted ? [sentence.first + j] : []));
  const clause = tokens.slice(clauseStart(p.syntax, prep), clauseEnd(p.syntax, prep) + 1);
  if (quoted.some((t) => t.text === '?') || clause.some((t) => timeShifts.has(t.lower) || future.has(t.lower))) return false;
  if (third && before.some((k) => verbIn(hearsay, tokens[k]) || modals.has(tokens[k].lower))) return false;
  // "as I am at X" opens a clause of time; "as ever was" does not.
  const opensClause = (k: number) => tokens[k].lower === 'when' || (tokens[k].lower === 'as' && !(third && ['ADV', 'ADJ'].includes(tokens[k + 1]?.pos ?? '')));
  // `ownClause`: a clause of time opens the subject's own clause ("as can well be; and while she is…" is no "as she is").
  const opens = (k: number) => opensClause(k) && (!ownClause || k >= clauseStart(p.syntax, subject));
  return !before.some((k) => hypothetical.has(tokens[k].lower) || opens(k) || verbIn(thinking, tokens[k]) || verbIn(planning, tokens[k]));
}

/**
 * Whom a speaker's "she" or "he" means (`gender`): the one character of that gender the speaker's turn names (the
 * paragraph's quotations and tags), not the speaker, named in the speaker's own words and not spoken to ("…, Emma,");
 * none when another may be meant (a second of that gender, one whose pronouns are unknown).
 */
function spokenAbout(p: Passage, i: number, gender: 'he' | 'she', startingAt: Map<number, Ref>): Ref['entity'] | undefined {
  const { tokens, text } = p.reading;
  const speaker = speakerOf(p, i, startingAt) ?? continuedSpeaker(p, i, (end) => speakerOf(p, end, startingAt), (r) => r.entity);
  if (!speaker || speaker.entity.type !== 'character') return undefined;
  const breakBetween = (a: number, b: number) => text.slice(tokens[a].end, tokens[b].start).includes('\n');
  let [first, last] = [i, i];
  while (first > 0 && !breakBetween(first - 1, first)) first--;
  while (last + 1 < tokens.length && !breakBetween(last, last + 1)) last++;
  const named = p.refs.filter(
    (r) => r.first >= first && r.last <= last && r.entity.type === 'character' && !r.pronoun && !r.kin && !r.narrator && r.entity.id !== speaker.entity.id && fits(gender, p.pronounsOf(r.entity)),
  );
  const meant = named[0];
  if (!meant || named.some((r) => r.entity.id !== meant.entity.id) || p.pronounsOf(meant.entity) !== gender) return undefined;
  const spokenTo = (r: Ref) => [',', '“', '"'].includes(tokens[r.first - 1]?.text ?? '') && [',', '.', '!', '?'].includes(tokens[r.last + 1]?.text ?? '');
  if (!named.some((r) => tokens[r.first].quoted) || named.some((r) => tokens[r.first].quoted && spokenTo(r))) return undefined;
  return meant.entity;
}

/**
 * "“…come to see his old shipmate Billy, at the Royal George inn.”": a name set off by a comma before a placing
 * preposition whose place ends the phrase is placed there, when the verb before the name (past an infinitive) is not
 * of the past ("“I saw Billy, at the inn”", "“Tom went to see Ruth, at X”"), a perfect or a modal.
 */
function apposedInDialogue(p: Passage, ref: Ref, prep: number, namedEndingAt: Map<number, Ref>): Ref | undefined {
  const { tokens } = p.reading;
  const named = namedEndingAt.get(prep - 2);
  if (!named || named.entity.type !== 'character' || tokens[prep - 1]?.text !== ',' || !tokens[prep].quoted) return undefined;
  // The place closes the phrase: "at the Royal George inn." (its head noun may follow the name).
  let after = ref.last + 1;
  if (tokens[after]?.pos === 'NOUN') after++;
  if (!tokens[after] || !['.', ',', '!', ';', '”', '"'].includes(tokens[after].text)) return undefined;
  for (let k = named.first - 1; k >= clauseStart(p.syntax, named.first); k--) {
    // "went up to see Billy": the time is the verb's the infinitive hangs on.
    if ((tokens[k].pos !== 'VERB' && tokens[k].pos !== 'AUX') || tokens[k - 1]?.lower === 'to') continue;
    const mood = moodOf(p.syntax, predicateAt(p, k));
    if (mood.tense === 'past' || mood.negated || mood.modal || mood.pluperfect || predicateAt(p, k).auxes.some((a) => tokens[a].lemma === 'have')) return undefined;
    break;
  }
  return spokenNow(p, named.first, prep, true) ? named : undefined;
}

/**
 * "letters which Jane had written to her from Longbourn since her being in Kent", "“I write from Bath,” said Anne":
 * the writer (the subject right before the verb of writing) is where they write from, when the writing is now (the
 * present) or a perfect whose span reaches now ("since"); a past writing ("I wrote from Portsmouth") says nothing of now.
 */
function writtenPlacements(p: Passage): Placement[] {
  const { tokens } = p.reading;
  const startingAt = new Map(p.refs.filter((r) => r.entity.type === 'character' && !r.kin).map((r) => [r.first, r]));
  const found: Placement[] = [];
  for (const ref of p.refs.filter((r) => r.entity.type === 'location')) {
    let from = ref.first - 1;
    if (tokens[from]?.pos === 'DET') from--;
    if (tokens[from]?.lower !== 'from') continue;
    // Back to the verb over "to her", "to a friend": the one written to.
    let verb = from - 1;
    while (verb >= 0 && verb > from - 6 && ['PRON', 'PROPN', 'DET', 'ADJ', 'NOUN', 'ADV'].includes(tokens[verb].pos)) verb--;
    if (verb < from - 1 && tokens[verb]?.lower === 'to') verb--;
    while (verb >= 0 && tokens[verb].pos === 'ADV') verb--;
    const v = tokens[verb];
    if (!v || v.pos !== 'VERB' || !verbIn(writing, v) || v.sentence !== tokens[ref.first].sentence || v.quoted !== tokens[ref.first].quoted) continue;
    const predicate = predicateAt(p, verb);
    const mood = moodOf(p.syntax, predicate);
    if (mood.negated || mood.modal || mood.passive || mood.habitual || predicate.auxes.some((a) => future.has(tokens[a].lower))) continue;
    const perfect = predicate.auxes.some((a) => tokens[a].lemma === 'have');
    const sentence = p.reading.sentences[v.sentence];
    const reachesNow = tokens.slice(ref.last + 1, sentence.last + 1).some((t) => untilNow.has(t.lower));
    if (perfect ? !reachesNow : mood.tense !== 'present') continue;
    let subject = (predicate.auxes[0] ?? verb) - 1;
    while (subject >= 0 && tokens[subject].pos === 'ADV') subject--;
    let writer: Ref | undefined;
    if (v.quoted) {
      const unasserted = p.syntax.unasserted[verb];
      if (unasserted !== undefined && unasserted !== 'dialogue') continue;
      const named = p.refs.find((r) => r.last === subject && r.entity.type === 'character' && !r.kin && !r.pronoun);
      if (named && spokenNow(p, named.first, from, true)) writer = named;
      else if (tokens[subject]?.lower === 'i' && spokenNow(p, subject, from, false)) writer = speakerOf(p, subject, startingAt);
    } else {
      if (p.syntax.unasserted[verb] !== undefined) continue;
      writer = p.refs.find((r) => r.last === subject && r.entity.type === 'character' && !r.kin && r.pronoun !== 'possessive' && r.pronoun !== 'object');
    }
    if (!writer || writer.entity.type !== 'character') continue;
    found.push({ character: writer.entity, place: ref.entity, prep: from, ref, clause: p.syntax.clause[from], moving: false, direct: true, present: true });
  }
  return found;
}

/**
 * "We had left Barnard's Inn more than a year, and lived at the forge again", "Ruth had been at Fenwick these three
 * weeks": a stay told in the pluperfect (its own "had", or one its clause shares with the clause before) with a span
 * that runs up to the story's now (lexicon `spanOpeners`, `untilNow`) holds at the now; a span closed before it
 * ("before", "until", "ago", `spanClosers`) or none says nothing of the now.
 */
function heldUntilNow(p: Passage): Placement[] {
  const { tokens } = p.reading;
  const characters = [...p.refs.filter((r) => r.entity.type === 'character' && !r.kin && r.pronoun !== 'possessive' && r.pronoun !== 'object'), ...narratorsWe(p)];
  const found: Placement[] = [];
  for (const ref of p.refs.filter((r) => r.entity.type === 'location' && !tokens[r.first].quoted)) {
    const prep = prepositionOf(p, ref);
    if (prep === undefined) continue;
    // "had sat in the kitchen at X": the stay is in a room of the place.
    const room = occupied(p, prep - 1);
    let verb = (room ?? prep) - 1;
    while (verb > 0 && tokens[verb].pos === 'ADV') verb--;
    const v = tokens[verb];
    if (!v || !(v.pos === 'AUX' || v.pos === 'VERB') || !verbIn(stays, v) || p.syntax.unasserted[verb] !== undefined || v.negated) continue;
    const sentence = p.reading.sentences[v.sentence];
    const words = tokens.slice(sentence.first, sentence.last + 1);
    if (words.some((t) => t.quoted || spanClosers.has(t.lower) || future.has(t.lower) || modals.has(t.lower) || hypothetical.has(t.lower))) continue;
    const spans = words.some((t, j) => untilNow.has(t.lower) || (spanOpeners.has(t.lower) && words.slice(j + 1, j + 4).some((w) => pastSpans.has(w.lower) || stretches.has(w.lemma))));
    if (!spans) continue;
    // The "had" of the stay: its own, or that of the clause its "and" joins it to ("had left X…, and lived at Y").
    const predicate = predicateAt(p, verb);
    let had = predicate.auxes.find((a) => tokens[a].lower === 'had');
    let from = (predicate.auxes[0] ?? verb) - 1;
    if (had === undefined) {
      if (predicate.auxes.length || tokens[from]?.lower !== 'and' || finiteTense(tokens, verb) !== 'past') continue;
      for (let k = from - 1; k >= sentence.first && had === undefined; k--) if (tokens[k].lower === 'had' && tokens[k + 1]?.pos === 'VERB') had = k;
      if (had === undefined) continue;
      from = had - 1;
    } else if (predicate.auxes.some((a) => tokens[a].lower !== 'had' && tokens[a].lemma !== 'be')) continue;
    if (tokens.slice(had, verb + 1).some((t) => t.negated || ['not', "n't", 'never'].includes(t.lower))) continue;
    while (from >= sentence.first && tokens[from].pos === 'ADV') from--;
    const stayer = characters.find((c) => c.last === from);
    if (!stayer || stayer.entity.type !== 'character') continue;
    found.push({ character: stayer.entity, place: ref.entity, prep, ref, clause: p.syntax.clause[prep], moving: false, direct: true, present: false });
  }
  return found;
}

/**
 * "the old parlour of the Admiral Benbow that I was in": a place followed by a relative clause whose subject stays
 * there, its placing preposition left at the clause's end ("that I was in", "which she sat in"), places that subject,
 * in the narration's now (not a plan, a denial, the pluperfect or the future), against the canon only.
 */
function strandedStays(p: Passage): Placement[] {
  const { tokens } = p.reading;
  const subjects = [...p.refs.filter((r) => r.entity.type === 'character' && !r.kin && r.pronoun !== 'possessive' && r.pronoun !== 'object'), ...narratorsWe(p)];
  const found: Placement[] = [];
  for (const ref of p.refs.filter((r) => r.entity.type === 'location')) {
    const opener = tokens[ref.last + 1];
    if (!opener || opener.quoted || !relativeOpeners.has(opener.lower)) continue;
    const stayer = subjects.find((c) => c.first === ref.last + 2);
    if (!stayer || stayer.entity.type !== 'character') continue;
    let verb = stayer.last + 1;
    while (tokens[verb] && (tokens[verb].pos === 'ADV' || (tokens[verb].pos === 'AUX' && ['VERB', 'AUX'].includes(tokens[verb + 1]?.pos ?? '')))) verb++;
    const v = tokens[verb];
    if (!v || !(v.pos === 'VERB' || v.pos === 'AUX') || !verbIn(stays, v) || v.negated) continue;
    let prep = verb + 1;
    while (tokens[prep]?.pos === 'ADV') prep++;
    // The tokenizer keeps a full stop after a last "in" as an abbreviation's ("in." for inches): the clause ends there.
    const [word, stop] = [(tokens[prep]?.lower ?? '').replace(/\.$/, ''), tokens[prep]?.lower.endsWith('.')];
    const end = tokens[prep + 1];
    if (!placing.has(word) || (!stop && end && end.sentence === tokens[prep].sentence && end.pos !== 'PUNCT')) continue;
    const predicate = predicateAt(p, verb);
    if (!asserts(p.syntax, predicate) || predicate.auxes.some((a) => future.has(tokens[a].lower))) continue;
    if (tokens.slice(ref.last + 1, prep).some((t) => elsewhen.has(t.lower)) || p.syntax.unasserted[ref.first] !== undefined) continue;
    found.push({ character: stayer.entity, place: ref.entity, prep, ref, clause: p.syntax.clause[prep], moving: false, direct: true, present: false });
  }
  return found;
}

/** The subject of a verb among `characters`: one whose predicates include it (not in a relative clause). */
function subjectOf(p: Passage, characters: Ref[], verb: number): Ref | undefined {
  return characters.find((c) => c.last < verb && predicatesOf(p.syntax, c.last).some((pr) => pr.verb === verb && !pr.relative));
}

/** Whether a main clause of the narration asserts the verb at token `verb` now: finite, not future, not subordinate. */
function toldNow(p: Passage, verb: number): boolean {
  const { tokens } = p.reading;
  const predicate = predicateAt(p, verb);
  if (finiteTense(tokens, predicate.auxes[0] ?? verb) === undefined || !asserts(p.syntax, predicate)) return false;
  if (predicate.auxes.some((a) => future.has(tokens[a].lower)) || inSubordinate(p.syntax, verb)) return false;
  const clause = tokens.slice(clauseStart(p.syntax, verb), clauseEnd(p.syntax, verb) + 1);
  return !clause.some((t) => ['or', 'either', 'whether', 'nor'].includes(t.lower) || elsewhen.has(t.lower));
}

/** The verb of arrival whose place starts at token `first`: "arrived at X", "reached X", "set foot in X", "went back to X". */
function arrivalBefore(p: Passage, first: number): number | undefined {
  const { tokens } = p.reading;
  let k = first - 1;
  if (tokens[k]?.pos === 'DET') k--;
  const at = tokens[k];
  if (!at) return undefined;
  if (at.pos === 'VERB' && arrivals[at.lemma]?.includes('')) return k;
  let j = k - 1;
  while (j >= 0 && tokens[j].pos === 'ADV' && !returning.has(tokens[j].lower)) j--;
  const v = tokens[j];
  if (!v) return undefined;
  if (v.pos === 'VERB' && arrivals[v.lemma]?.includes(at.lower)) return j;
  if (arrivalNouns.has(v.lower) && ['in', 'on', 'upon'].includes(at.lower) && tokens[j - 1]?.lemma === 'set') return j - 1;
  if (!returning.has(v.lower) || at.lower !== 'to') return undefined;
  j--;
  while (j >= 0 && tokens[j].pos === 'ADV') j--;
  return tokens[j]?.pos === 'VERB' && verbIn(motion, tokens[j]) ? j : undefined;
}

/**
 * "Nora arrived at Fenwick after dark", "Ruth reached Fenwick", "set foot in Carrow", "walked slowly back to Fenwick":
 * a journey's end told in a main clause of the narration (lexicon `arrivals`, `arrivalNouns`, `returning`) places its
 * subject there, against the canon only. Not a plan, a denial, the pluperfect, a habit, a clause of time ("when I
 * reached X"), another time ("then", "later"), nor a journey from X.
 */
function journeysEnds(p: Passage): Placement[] {
  const { tokens } = p.reading;
  const characters = [...p.refs.filter((r) => r.entity.type === 'character' && r.subject && !r.kin && r.pronoun !== 'possessive' && r.pronoun !== 'object'), ...narratorsWe(p)];
  const found: Placement[] = [];
  for (const ref of p.refs.filter((r) => r.entity.type === 'location' && !tokens[r.first].quoted)) {
    const verb = arrivalBefore(p, ref.first);
    if (verb === undefined || tokens[verb].quoted || !toldNow(p, verb)) continue;
    const traveller = subjectOf(p, characters, verb);
    if (!traveller || traveller.entity.type !== 'character' || p.syntax.unasserted[traveller.first] !== undefined) continue;
    found.push({ character: traveller.entity, place: ref.entity, prep: verb, ref, clause: p.syntax.clause[verb], moving: false, direct: true, present: false });
  }
  return found;
}

/**
 * "“…before I came to Fenwick. But since I have come here, …”": a speaker's "here" in the present (or a perfect
 * reaching it) after their own coming to a place in the same quotation is that place (lexicon `deictic`), when no
 * other place is named between; "“I am here in X”" is read by `spokenPlacements`.
 */
function spokenHere(p: Passage): Placement[] {
  const { tokens } = p.reading;
  const startingAt = new Map(p.refs.filter((r) => r.entity.type === 'character' && !r.kin).map((r) => [r.first, r]));
  const places = p.refs.filter((r) => r.entity.type === 'location' && tokens[r.first].quoted);
  const found: Placement[] = [];
  const subjectBefore = (verb: number) => {
    let k = (predicateAt(p, verb).auxes[0] ?? verb) - 1;
    while (k >= 0 && tokens[k].pos === 'ADV') k--;
    return k;
  };
  for (let i = 0; i < tokens.length; i++) {
    if (!tokens[i].quoted || !deictic.has(tokens[i].lower)) continue;
    let verb = i - 1;
    while (verb >= 0 && tokens[verb].pos === 'ADV') verb--;
    const v = tokens[verb];
    if (!v?.quoted || !(v.pos === 'VERB' || v.pos === 'AUX') || !(verbIn(stays, v) || arrivals[v.lemma] || v.lemma === 'come')) continue;
    const predicate = predicateAt(p, verb);
    const mood = moodOf(p.syntax, predicate);
    if (mood.negated || mood.modal || mood.tense !== 'present' || predicate.auxes.some((a) => future.has(tokens[a].lower))) continue;
    const subject = subjectBefore(verb);
    if (spokenSubjects[tokens[subject]?.lower ?? ''] !== 'speaker' || !spokenNow(p, subject, i, false)) continue;
    // Back through the same quotation to the place the speaker came to, the last place named before "here".
    let start = i;
    while (tokens[start - 1]?.quoted) start--;
    const named = places.filter((r) => r.first >= start && r.last < i).at(-1);
    if (!named) continue;
    const goal = tokens[named.first - 1]?.pos === 'DET' ? named.first - 2 : named.first - 1;
    if (!['to', 'at', 'in'].includes(tokens[goal]?.lower ?? '')) continue;
    let came = goal - 1;
    while (came >= 0 && tokens[came].pos === 'ADV') came--;
    if (!(tokens[came]?.lemma === 'come' || arrivals[tokens[came]?.lemma ?? ''])) continue;
    // Its own words deny the coming ("I never came to X"); the tagger's negation scope runs on from an earlier verb
    // ("I had hardly heard his name before I came to X").
    const from = subjectBefore(came);
    if (tokens[from]?.lower !== tokens[subject].lower || tokens.slice(from, came).some((t) => ['not', "n't", 'never'].includes(t.lower))) continue;
    const speaker = speakerOf(p, subject, startingAt) ?? continuedSpeaker(p, subject, (end) => speakerOf(p, end, startingAt), (r) => r.entity);
    if (!speaker || speaker.entity.type !== 'character') continue;
    found.push({ character: speaker.entity, place: named.entity, prep: i, ref: named, clause: p.syntax.clause[i], moving: false, direct: true, present: true });
  }
  return found;
}

/**
 * "Tom said here we were at Fenwick": "here" with "we" or "I" and a placing preposition kept in reported speech is
 * the narrator's own scene (an arrival announced to them), so it places the narrator, as the narration's "we" does.
 */
function reportedHere(p: Passage): Placement[] {
  const { tokens } = p.reading;
  const storyNarrators = p.slice.entities.filter((e) => e.type === 'character' && e.state.narrator === true);
  const letters = letterSpans(p.reading);
  const found: Placement[] = [];
  for (const ref of p.refs.filter((r) => r.entity.type === 'location' && !tokens[r.first].quoted)) {
    const prep = prepositionOf(p, ref);
    if (prep === undefined || !['at', 'in'].includes(tokens[prep].lower)) continue;
    const [be, who, here] = [tokens[prep - 1], tokens[prep - 2], tokens[prep - 3]];
    if (be?.lemma !== 'be' || !['we', 'i'].includes(who?.lower ?? '') || !deictic.has(here?.lower ?? '') || be.negated) continue;
    const words = tokens.slice(clauseStart(p.syntax, prep - 3), clauseEnd(p.syntax, prep) + 1);
    if (words.some((t) => t.quoted || future.has(t.lower) || modals.has(t.lower) || hypothetical.has(t.lower) || elsewhen.has(t.lower))) continue;
    const letter = letters.find((l) => l.start <= tokens[prep].start && tokens[prep].start < l.end);
    const mine = p.refs.filter((r) => r.narrator && r.first < prep && (!letter || tokens[r.first].start >= letter.start)).at(-1)?.entity;
    const narrator = mine ?? (!letter && storyNarrators.length === 1 ? storyNarrators[0] : undefined);
    if (!narrator) continue;
    found.push({ character: narrator, place: ref.entity, prep: prep - 3, ref, clause: p.syntax.clause[prep], moving: false, direct: true, present: false });
  }
  return found;
}

/**
 * "I wrote to Ruth at Fenwick", "The letter was addressed to Nora Hale, at Fenwick": the one written or sent to (by
 * name) at a place is there (lexicon `addressing`, `missives`), in the narration's now: not a plan, a denial, the
 * pluperfect, the future or another time ("last spring").
 */
function addressedTo(p: Passage): Placement[] {
  const { tokens } = p.reading;
  const namedEndingAt = new Map(p.refs.filter((r) => r.entity.type === 'character' && !r.kin && !r.pronoun).map((r) => [r.last, r]));
  const found: Placement[] = [];
  for (const ref of p.refs.filter((r) => r.entity.type === 'location' && !tokens[r.first].quoted)) {
    let prep = ref.first - 1;
    if (tokens[prep]?.pos === 'DET') prep--;
    if (!['at', 'in'].includes(tokens[prep]?.lower ?? '')) continue;
    const addressee = namedEndingAt.get(tokens[prep - 1]?.text === ',' ? prep - 2 : prep - 1);
    if (!addressee || addressee.entity.type !== 'character' || tokens[addressee.first - 1]?.lower !== 'to') continue;
    // Back from "to" over the object ("a long letter") to the verb of sending or the noun of what is sent.
    let k = addressee.first - 2;
    while (k >= 0 && k > addressee.first - 8 && ['DET', 'ADJ', 'ADV', 'PRON'].includes(tokens[k].pos)) k--;
    const t = tokens[k];
    if (!t || t.quoted) continue;
    const sent = t.pos === 'VERB' && verbIn(addressing, t) ? k : t.pos === 'NOUN' && missives.has(t.lemma) ? undefined : -1;
    if (sent === -1) continue;
    // A verb of sending is read for its time; a noun of what is sent, for its clause's verb.
    const verb = sent ?? governingVerb(p, k);
    if (verb === undefined) continue;
    const predicate = predicateAt(p, verb);
    if (finiteTense(tokens, predicate.auxes[0] ?? verb) === undefined || !asserts(p.syntax, predicate, { passiveCounts: true })) continue;
    const clause = tokens.slice(clauseStart(p.syntax, verb), clauseEnd(p.syntax, prep) + 1);
    if (predicate.auxes.some((a) => future.has(tokens[a].lower)) || clause.some((w) => ['or', 'either', 'whether', 'nor'].includes(w.lower) || elsewhen.has(w.lower))) continue;
    found.push({ character: addressee.entity, place: ref.entity, prep, ref, clause: p.syntax.clause[prep], moving: false, direct: true, present: false });
  }
  return found;
}

/** A name set off by commas in the quote after token i, before its sentence ends: "“You are at X now, Nora, and…”". */
function vocativeAround(p: Passage, i: number, startingAt: Map<number, Ref>): Ref | undefined {
  const { tokens } = p.reading;
  for (let k = i + 1; tokens[k]?.quoted && tokens[k].sentence === tokens[i].sentence; k++) {
    const named = startingAt.get(k);
    if (named && !named.pronoun && tokens[k - 1]?.text === ',' && [',', '.', '!', '?'].includes(tokens[named.last + 1]?.text ?? '')) return named;
  }
  return undefined;
}

/** Whether one place lies inside the other through the graph's containment relationships (transitively). */
const parentsOf = new WeakMap<Passage['slice'], Map<string, string[]>>();

/** The places each place lies inside, by the slice's containment relationships; built once a slice. */
function containment(p: Passage): Map<string, string[]> {
  let parents = parentsOf.get(p.slice);
  if (parents) return parents;
  parents = new Map<string, string[]>();
  for (const r of p.slice.relationships) {
    const first = r.kind.toLowerCase().split(/[^a-z]+/).find(Boolean) ?? '';
    if (containedIn.has(first)) parents.set(r.from, [...(parents.get(r.from) ?? []), r.to]);
    if (contains.has(first)) parents.set(r.to, [...(parents.get(r.to) ?? []), r.from]);
  }
  parentsOf.set(p.slice, parents);
  return parents;
}

function nested(p: Passage, a: string, b: string): boolean {
  const parents = containment(p);
  const within = (inner: string, outer: string) => {
    const seen = new Set<string>();
    const stack = [inner];
    while (stack.length) {
      const x = stack.pop()!;
      if (x === outer) return true;
      if (seen.has(x)) continue;
      seen.add(x);
      stack.push(...(parents.get(x) ?? []));
    }
    return false;
  };
  return within(a, b) || within(b, a);
}

function hasPhrase(words: string[], phrase: string[]): boolean {
  for (let i = 0; i + phrase.length <= words.length; i++) if (phrase.every((w, j) => words[i + j] === w)) return true;
  return false;
}

/** The time of day the clause of token `at` names after a preposition ("at noon", "at vespers"), if any. */
function timeOfDay(p: Passage, at: number): string | undefined {
  const { tokens } = p.reading;
  for (let k = clauseStart(p.syntax, at); k <= clauseEnd(p.syntax, at); k++) {
    if (timeNouns.has(tokens[k].lower) && ['at', 'by', 'in'].includes(tokens[k - 1]?.lower ?? '')) return tokens[k].lower;
  }
  return undefined;
}

function simultaneous(p: Passage, a: Placement, b: Placement): boolean {
  const { tokens } = p.reading;
  if (a.moving || b.moving) return false;
  const from = clauseStart(p.syntax, a.prep);
  const to = clauseEnd(p.syntax, b.prep);
  const between = tokens.slice(from, to + 1);
  // A clause of motion between them makes the two a journey (the placements' own clauses were read for it already).
  if (between.some((t, j) => t.pos === 'VERB' && verbIn(motion, t) && ![a.clause, b.clause].includes(p.syntax.clause[from + j]))) return false;
  if (a.clause === b.clause) return true;
  // "I am in Calais, and as I cross the square in Lyon…": two clauses of one sentence told in the present are one now.
  if (p.reading.narration === 'present' && a.present && b.present && tokens[a.prep].sentence === tokens[b.prep].sentence) return true;
  // The words that can tie them to one moment: a's clause, and b's sentence up to the end of b's clause.
  const sentenceStart = p.reading.sentences[tokens[b.prep].sentence].first;
  const words = [...tokens.slice(from, clauseEnd(p.syntax, a.prep) + 1), ...tokens.slice(Math.max(sentenceStart, clauseEnd(p.syntax, a.prep) + 1), to + 1)].map((t) => t.lower);
  if (namesOneMoment(words) || simultaneity.some((phrase) => hasPhrase(words, phrase))) return true;
  const [ta, tb] = [timeOfDay(p, a.prep), timeOfDay(p, b.prep)];
  // "at noon, and at noon the next day": the same hour of another day.
  const otherDay = tokens.slice(clauseStart(p.syntax, b.prep), clauseEnd(p.syntax, b.prep) + 1).some((t) => dayShifts.has(t.lower));
  return ta !== undefined && ta === tb && !otherDay;
}

/**
 * A character the passage places, not on the move, somewhere else than the place the canon holds them at as of the
 * passage (neither place inside the other): "Cathy stayed at Thrushcross Grange a fortnight" while the canon has her
 * at Wuthering Heights from ch-30.
 */
function heldElsewhere(p: Passage, characterId: string, mine: Placement[]): ConflictDraft | undefined {
  const heldId = p.slice.heldAt[characterId];
  const held = heldId && p.slice.entities.find((e) => e.id === heldId);
  if (!held) return undefined;
  const elsewhere = mine.find((x) => x.direct && !x.moving && x.place.id !== held.id && !nested(p, x.place.id, held.id));
  if (!elsewhere) return undefined;
  const { character, place } = elsewhere;
  return {
    severity: 'P2',
    kind: 'location_conflict',
    episode: p.episode,
    title: `${character.name} is at ${place.name}, where the canon does not have them`,
    rationale: `The canon holds ${character.name} at ${held.name}${p.episode ? ` as of ${p.episode}` : ''}; the passage places them at ${place.name}: "${words(p, elsewhere.prep, elsewhere.ref.last)}" (in "${sentenceOf(p, elsewhere.prep)}").`,
    refs: [character.id, held.id, place.id],
    at: spanAt(p, elsewhere.prep, elsewhere.ref.last),
  };
}

export function locations(p: Passage): ConflictDraft[] {
  const all = placements(p);
  const canonOnly = [...spokenPlacements(p), ...writtenPlacements(p), ...heldUntilNow(p), ...journeysEnds(p), ...spokenHere(p), ...reportedHere(p), ...addressedTo(p), ...strandedStays(p)];
  const hits: ConflictDraft[] = [];
  for (const character of p.slice.entities.filter((e) => e.type === 'character')) {
    const mine = all.filter((x) => x.character.id === character.id);
    let clash: [Placement, Placement] | undefined;
    for (let i = 0; i < mine.length && !clash; i++) {
      for (let j = i + 1; j < mine.length && !clash; j++) {
        const [a, b] = [mine[i], mine[j]];
        if (a.place.id === b.place.id || nested(p, a.place.id, b.place.id)) continue;
        if (simultaneous(p, a, b)) clash = [a, b];
      }
    }
    if (!clash) {
      // What dialogue says of where someone is, where a writer writes from and a stay up to now told in the pluperfect
      // stand against the canon only, not against the narration's places.
      const held = heldElsewhere(p, character.id, [...mine, ...canonOnly.filter((x) => x.character.id === character.id)]);
      if (held) hits.push(held);
      if (p.trace) {
        const outcome = held ? 'hit' : p.slice.heldAt[character.id] ? 'agrees' : 'canon lacks';
        for (const x of [...mine, ...canonOnly.filter((y) => y.character.id === character.id)]) traceClaim(p, 'location_conflict', character.id, x.prep, outcome);
      }
      continue;
    }
    const [a, b] = clash;
    for (const x of clash) traceClaim(p, 'location_conflict', character.id, x.prep, 'hit');
    hits.push({
      severity: 'P2',
      kind: 'location_conflict',
      episode: p.episode,
      title: `${character.name} is in two places at once`,
      rationale: `The passage places ${character.name} at ${a.place.name} ("${words(p, a.prep, a.ref.last)}") and at ${b.place.name} ("${words(p, b.prep, b.ref.last)}") at the same time: "${[...new Set([sentenceOf(p, a.prep), sentenceOf(p, b.prep)])].join(' ')}".`,
      refs: [character.id, a.place.id, b.place.id],
      at: spanAt(p, Math.min(a.prep, b.prep), Math.max(a.ref.last, b.ref.last)),
    });
  }
  return hits;
}
