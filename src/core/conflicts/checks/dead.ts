// A character the canon has dead (as of the passage's chapter) who acts, speaks or is said to be alive: the subject of
// any verb the narration asserts (named, by an alias, or by a resolved pronoun; in a relative clause; as the speaker of
// a speech tag; "sees Halloran standing"; a passive's agent; the one helped ("helped Aldric up the stair"); after a
// fronted place, "Into the hall came X"; through an act noun, "X's kiss woke her", "at X's knock"; in company, "with X
// beside me", "X at their head"; with someone, "talked with X"; seen or met somewhere, "saw X at the window", or found
// well, "found X in good health"; brought in doing something, "there was X, shaking the snow from her shawl"), or of
// "is alive", "still lives", "survived"; one given a part in a plan the narration settles ("it was agreed that X should
// carve"). Left alone: dialogue, conditions, what a character thinks, dreams, remembers or reports, negations, modals
// ("would have liked"), the passive's subject ("was buried"), the pluperfect and "used to" (backstory), a clause of
// time under a perfect ("seemed to have gone when X left"), a passage going back to before a death just told ("That
// same evening, X rode…"), past tense inside present-tense narration, one who acts out of a picture ("grins out of a
// booking photo"), and verbs that are no act of the living ("died", "lay", "had"). A participle after the clause (",
// polishing glasses") is its subject's act too.
import type { SliceEntity } from '../canonSlice.ts';
import type { ConflictDraft } from '../kinds.ts';
import { actNouns, actRemembered, deadBidden, deadHabitOpeners, deadLastActs, actTimes, dyingPhrases, aliveAdjectives, aliveVerbs, arrivalPassives, burial, company, deathVerbs, deathWords, depicting, duties, fronting, genderOfWord, hereafter, images, inverting, kinWord, lifetimes, mindNouns, motion, nowWords, people, personNouns, placing, planAuxes, possessives, reporting, resting, rewinds, sceneMaking, sceneNouns, seenPresent, sensing, settling, standIns, stative, stretches, thinking, timedUnderPerfect, timeNouns, together } from '../reader/lexicon.ts';
import { finiteTense, verbIn } from '../reader/nlp.ts';
import type { Ref } from '../reader/references.ts';
import { asserts, clauseEnd, clauseStart, deniedBefore, moodOf, participleAfter, predicatesOf, speechTagBefore, type Predicate } from '../reader/syntax.ts';
import { continuedSpeaker, quotations, speakerNear } from '../reader/speech.ts';
import { quoteAt, refsOf, spanAt, traceClaim, type Passage } from './passage.ts';

/** Particles before a place: "is out in the barn", "was back at the yard", "is down on the dock". */
const outward = new Set(['out', 'back', 'up', 'down', 'over', 'off', 'away']);
const temporal = new Set(['while', 'when', 'whenever', 'before', 'after', 'until', 'till', 'since', 'once', 'as']);

export function isDead(entity: SliceEntity, p: Passage): boolean {
  const { state } = entity;
  const status = state.status ?? state.state;
  const dead = (typeof status === 'string' && status.toLowerCase().split(/\s+/).some((w) => deathWords.has(w))) || state.alive === false || state.dead === true;
  if (!dead) return false;
  // A passage set in a chapter before the one the character dies in has them alive; at a line of that very chapter
  // they may be either, since "died in chapter 2" does not say where in it (as a timed change without a line).
  const diedIn = state.died_in;
  const { position, atLine } = p.slice;
  if (position === undefined || typeof diedIn !== 'string') return true;
  const diedAt = p.slice.chapterOrdinals[diedIn] ?? -Infinity;
  return !(diedAt > position || (diedAt === position && atLine));
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

/** "grins out of a 2011 booking photo", "glared down from his portrait": the one who does it is a picture of them. */
function pictured(p: Passage, verb: number): boolean {
  const { tokens } = p.reading;
  const end = clauseEnd(p.syntax, verb);
  for (let k = verb + 1; k <= end; k++) {
    if (!['from', 'of', 'in', 'on', 'within'].includes(tokens[k].lower)) continue;
    let j = k + 1;
    while (j <= end && (['DET', 'ADJ', 'NUM', 'PROPN', 'NOUN'].includes(tokens[j].pos) || possessives.has(tokens[j].lower)) && !images.has(tokens[j].lemma)) j++;
    if (j <= end && images.has(tokens[j].lemma) && tokens[j + 1]?.lower !== 'of') return true;
  }
  return false;
}

/** "where my mother sleeps under the yew": a verb of rest in a sentence that buries someone is the rest of the dead. */
function atRest(p: Passage, verb: number): boolean {
  const { tokens, sentences } = p.reading;
  if (!verbIn(resting, tokens[verb])) return false;
  const s = sentences[tokens[verb].sentence];
  for (let k = s.first; k <= s.last; k++) if (burial.has(tokens[k].lemma) || burial.has(tokens[k].lower)) return true;
  return false;
}

/** "was tumbling on the tides, dead,": a death word set off by commas after the verb says its subject moves as a body. */
function deadBeside(p: Passage, verb: number): boolean {
  const { tokens } = p.reading;
  for (let k = verb + 1; k < tokens.length && tokens[k].sentence === tokens[verb].sentence && tokens[k].text !== ';'; k++) {
    if (tokens[k - 1].text === ',' && deathWords.has(tokens[k].lower) && (tokens[k + 1] === undefined || tokens[k + 1].pos === 'PUNCT')) return true;
    if (tokens[k].text === ',' && ['and', 'but'].includes(tokens[k + 1]?.lower ?? '')) return false;
  }
  return false;
}

/**
 * "the bit of work she left unfinished", "The songs she sang", "the cap which last she wore": a clause that tells a
 * thing by what someone did with it, opening its own clause, tells of the thing and not of the scene (the dead's
 * things). Not "At the gate she stood" nor "That night she sang" (a fronted place or time), nor "her sister Beth".
 */
function describesThing(p: Passage, ref: Ref): boolean {
  const { tokens } = p.reading;
  let k = ref.first - 1;
  while (k > ref.first - 3 && (tokens[k]?.pos === 'ADV' || tokens[k]?.pos === 'ADJ')) k--;
  if (['which', 'that'].includes(tokens[k]?.lower ?? '')) k--;
  else if (ref.pronoun) k = ref.first - 1;
  else return false;
  const noun = tokens[k];
  if (!noun || noun.pos !== 'NOUN' || timeNouns.has(noun.lemma) || stretches.has(noun.lemma) || people.has(noun.lemma) || personNouns.has(noun.lemma) || kinWord(noun.lower)) return false;
  const start = clauseStart(p.syntax, k);
  for (let j = start; j < k; j++) if (tokens[j].pos === 'VERB' || tokens[j].pos === 'AUX' || (tokens[j].pos === 'PRON' && !possessives.has(tokens[j].lower))) return false;
  const fronted = tokens[start].pos === 'ADP' && tokens.slice(start + 1, k).every((t) => ['DET', 'ADJ', 'NUM', 'NOUN'].includes(t.pos) || possessives.has(t.lower));
  return !fronted;
}

/** "Aldric's men", "Aldric's coffin": the name only owns the phrase's head. */
const possessor = (p: Passage, ref: Ref) => /^['’]s?$/.test(p.reading.tokens[ref.last + 1]?.lower ?? '');

const bareVerb = (verb: number, auxes: number[]): Predicate => ({ verb, auxes, copula: false, relative: false, habitual: false });

/** The auxiliaries of the verb at v, reading back over adverbs and particles ("had not yet been"). */
function auxesBefore(p: Passage, v: number): number[] {
  const { tokens } = p.reading;
  const auxes: number[] = [];
  for (let k = v - 1; k >= 0 && (tokens[k].pos === 'AUX' || tokens[k].pos === 'ADV' || tokens[k].pos === 'PART'); k--) if (tokens[k].pos === 'AUX') auxes.unshift(k);
  return auxes;
}

/** "was received by King Aldric": the agent of a passive acts as the subject of the active verb would. */
function passiveAgent(p: Passage, ref: Ref): number | undefined {
  const { tokens } = p.reading;
  if (ref.pronoun || possessor(p, ref) || tokens[ref.first - 1]?.lower !== 'by') return undefined;
  let v = ref.first - 2;
  while (v > 0 && tokens[v].pos === 'ADV') v--;
  // Over a place or a part between the verb and its agent: "was touched on the shoulder by X", "met at the door by X".
  if (tokens[v]?.pos === 'NOUN') {
    let k = v - 1;
    while (k > v - 4 && tokens[k] && (['DET', 'ADJ'].includes(tokens[k].pos) || possessives.has(tokens[k].lower))) k--;
    if (tokens[k]?.pos === 'ADP' && placing.has(tokens[k].lower)) {
      v = k - 1;
      while (v > 0 && tokens[v].pos === 'ADV') v--;
    }
  }
  const verb = tokens[v];
  if (!verb || verb.pos !== 'VERB' || verb.lower.endsWith('ing') || verbIn(stative, verb) || deathWords.has(verb.lower)) return undefined;
  const auxes = auxesBefore(p, v);
  if (!auxes.some((k) => tokens[k].lemma === 'be')) return undefined;
  return asserts(p.syntax, bareVerb(v, auxes), { passiveCounts: true }) && !verb.negated && !deniedBefore(p.syntax, v) ? v : undefined;
}

/** Verbs of motion that take an object: what they move is not their subject. */
const carrying = new Set(['take', 'bring', 'carry', 'ferry', 'transfer', 'push', 'pull', 'make', 'get', 'set', 'drive', 'row', 'lead']);

/** "Into the hall came Mother Ysra": after a fronted place, a verb of motion comes before its subject. */
function invertedSubject(p: Passage, ref: Ref): number | undefined {
  const { tokens } = p.reading;
  if (ref.pronoun || ref.subject || possessor(p, ref)) return undefined;
  let v = ref.first - 1;
  // Articles and titles of the name's own phrase: "came the Grey Magister", "came Mother Ysra".
  while (v > ref.first - 4 && tokens[v] && (tokens[v].pos === 'DET' || (tokens[v].pos === 'PROPN' && /^\p{Lu}/u.test(tokens[v].text)))) v--;
  const verb = tokens[v];
  if (!verb || verb.pos !== 'VERB' || !(verbIn(motion, verb) || verbIn(inverting, verb)) || verbIn(carrying, verb)) return undefined;
  // Only the fronted place or adverb before the verb: "Into the hall came X", "Then came X", "There sat X", not
  // "Into the crypt the knights carried X". A phrase set off by commas may stand between ("Up the avenue, at a pace
  // that scattered the gravel, rode X").
  const start = clauseStart(p.syntax, v);
  if (tokens[start].pos !== 'ADP' && !fronting.has(tokens[start].lower)) return undefined;
  let end = v;
  if (tokens[v - 1]?.text === ',') {
    let open = v - 2;
    while (open > start && tokens[open].text !== ',') open--;
    if (open === start || v - open > 14) return undefined;
    end = open;
  }
  for (let k = start + 1; k < end; k++) {
    const t = tokens[k];
    const fits = t.pos === 'ADP' || fronting.has(t.lower) || ['ADJ', 'NOUN', 'PROPN', 'NUM'].includes(t.pos) || (t.pos === 'DET' && tokens[k - 1].pos === 'ADP');
    if (!fits) return undefined;
  }
  return asserts(p.syntax, bareVerb(v, [])) && !verb.negated && !deniedBefore(p.syntax, v) ? v : undefined;
}

/** Verbs whose object does what it is helped to: nobody helps a dead man up a stair. */
const helping = new Set(['help', 'assist', 'aid']);

/** "helped Aldric up the stair": the object of a verb of helping acts with its helper. */
function helpedObject(p: Passage, ref: Ref): number | undefined {
  const { tokens } = p.reading;
  if (ref.subject || (ref.pronoun && ref.pronoun !== 'object') || possessor(p, ref)) return undefined;
  const v = tokens[ref.first - 1]?.pos === 'DET' ? ref.first - 2 : ref.first - 1;
  const verb = tokens[v];
  if (!verb || verb.pos !== 'VERB' || !helping.has(verb.lemma) || verb.lower.endsWith('ing')) return undefined;
  return asserts(p.syntax, bareVerb(v, auxesBefore(p, v))) && !verb.negated && !deniedBefore(p.syntax, v) ? v : undefined;
}

/** The verb at v as a predicate the narration asserts, not negated nor denied ("Nobody heard…"). */
function assertedVerb(p: Passage, v: number, options: { passiveCounts?: boolean } = {}): boolean {
  const { tokens } = p.reading;
  // "used to dance with X": a habit of the past.
  const habitual = tokens[v - 1]?.lower === 'to' && tokens[v - 2]?.lemma === 'use';
  return asserts(p.syntax, { ...bareVerb(v, auxesBefore(p, v)), habitual }, options) && !tokens[v].negated && !deniedBefore(p.syntax, v);
}

/** "who had charge of them", "has the care of the boys": "have" with a duty held over someone (lexicon `duties`). */
function heldDuty(p: Passage, verb: number): boolean {
  const { tokens } = p.reading;
  // "who had had charge of them": the pluperfect of the duty is backstory.
  if (tokens[verb].lemma !== 'have' || tokens[verb - 1]?.lemma === 'have') return false;
  const noun = tokens[verb + 1]?.pos === 'DET' ? verb + 2 : verb + 1;
  return duties.has(tokens[noun]?.lower ?? '') && tokens[noun + 1]?.lower === 'of';
}

/** Whether the words from i to j say their one is dead ("her late husband", "the dead man's"). */
const saidDead = (p: Passage, i: number, j: number) => p.reading.tokens.slice(Math.max(0, i), j + 1).some((t) => deathWords.has(t.lower));

/**
 * "Beth's kiss woke her", "made perfect by Beth's kiss", "At Mrs. Pike's knock, Catherine rose", "on her father's
 * entrance": the possessor of an act noun (lexicon `actNouns`) acts when the act is a subject, an agent or the time
 * of a clause the narration asserts; not a remembered act ("Beth's last kiss", lexicon `actRemembered`), one of a
 * possessor said dead, nor one inside a phrase ("the memory of Beth's kiss").
 */
function actByNoun(p: Passage, ref: Ref): number | undefined {
  const { tokens } = p.reading;
  // Not through a pronoun ("Her voice still rang in the house"): the dead are so often only remembered that one
  // named is needed.
  if (ref.pronoun || !possessor(p, ref) || saidDead(p, ref.first - 1, ref.last)) return undefined;
  let k = ref.last + 2;
  while (tokens[k]?.pos === 'ADJ' || tokens[k]?.pos === 'ADV') {
    if (actRemembered.has(tokens[k].lower)) return undefined;
    k++;
  }
  const noun = tokens[k];
  if (!noun || noun.sentence !== tokens[ref.first].sentence || !(actNouns.has(noun.lower) || actNouns.has(noun.lemma)) || p.syntax.unasserted[k] !== undefined) return undefined;
  const before = tokens[ref.first - 1];
  const opens = !before || before.sentence !== noun.sentence || ['PUNCT', 'CCONJ', 'SCONJ'].includes(before.pos);
  if (opens) {
    const predicate = predicatesOf(p.syntax, k).find((pr) => !pr.relative && !pr.copula);
    const verb = predicate && tokens[predicate.verb];
    return predicate && verb && !verbIn(stative, verb) && !verbIn(thinking, verb) && asserts(p.syntax, predicate) && !verb.negated && !deniedBefore(p.syntax, predicate.verb) ? predicate.verb : undefined;
  }
  if (before.lower === 'by') {
    let v = ref.first - 2;
    while (v > 0 && (tokens[v].pos === 'ADV' || tokens[v].pos === 'ADJ')) v--;
    const verb = tokens[v];
    if (!verb || verb.pos !== 'VERB' || !auxesBefore(p, v).some((a) => tokens[a].lemma === 'be')) return undefined;
    return assertedVerb(p, v, { passiveCounts: true }) ? v : undefined;
  }
  if (!actTimes.has(before.lower)) return undefined;
  // The clause the act times: its subject after the phrase ("On X's entrance the whole table rose"), or its verb
  // straight after it ("Miss Darcy, on her father's entrance, exerted herself").
  let j = k + 1;
  if (tokens[j]?.text === ',') j++;
  const start = j;
  while (tokens[j] && tokens[j].sentence === noun.sentence && (['DET', 'ADJ', 'NOUN', 'PROPN', 'NUM'].includes(tokens[j].pos) || (tokens[j].pos === 'PRON' && !possessives.has(tokens[j].lower)))) j++;
  if (j > start) {
    const predicate = predicatesOf(p.syntax, j - 1).find((pr) => !pr.relative && !pr.copula);
    return predicate && !verbIn(thinking, tokens[predicate.verb]) && asserts(p.syntax, predicate) && !tokens[predicate.verb].negated ? predicate.verb : undefined;
  }
  return tokens[j]?.pos === 'VERB' && !tokens[j].lower.endsWith('ing') && !verbIn(thinking, tokens[j]) && assertedVerb(p, j) ? j : undefined;
}

/**
 * "with Mrs. Pike beside me", "had Fanny Harville by her side", "George Merry at their head, kneeling": one in company
 * beside someone is there, when the verb of the sentence that puts them there is asserted and no thought, report or
 * picture (lexicon `company`); not where the sentence buries someone or has a grave or a body, nor "the portrait
 * of X beside me".
 */
function inCompany(p: Passage, ref: Ref): number | undefined {
  const { tokens } = p.reading;
  if (ref.pronoun || possessor(p, ref) || tokens[ref.first - 1]?.lower === 'of' || saidDead(p, ref.first - 1, ref.last)) return undefined;
  const [at, next, side] = [tokens[ref.last + 1], tokens[ref.last + 2], tokens[ref.last + 3]];
  if (!at || !next) return undefined;
  const beside = company.beside.has(at.lower) && next.pos === 'PRON' && !possessives.has(next.lower);
  const bySide = company.at.has(at.lower) && possessives.has(next.lower) && side !== undefined && company.sides.has(side.lower);
  if (!beside && !bySide) return undefined;
  const s = p.reading.sentences[tokens[ref.first].sentence];
  // A churchyard is a place like another; a burial, a grave or a verb of rest says the one beside is buried there.
  for (let k = s.first; k <= s.last; k++) if (tokens[k].lemma === 'bury' || standIns.has(tokens[k].lemma)) return undefined;
  // The verb that puts them there is the nearest before them in the sentence ("came out…, X at their head"; "write
  // sitting on the seat, with X beside me"), and the nearest finite one says whether the narration asserts it.
  let nearest: number | undefined;
  for (let v = ref.first - 1; v >= s.first; v--) {
    const t = tokens[v];
    const verb = t.pos === 'VERB' || (t.pos === 'AUX' && t.lemma === 'have' && tokens[v + 1]?.pos !== 'VERB');
    if (!verb) continue;
    nearest ??= v;
    // A verb of rest that puts them there ("lay with X beside her"); one of another clause ("we had to lie near the
    // point, and there we saw … X at their head") says nothing of them.
    if (verbIn(resting, tokens[nearest])) return undefined;
    if (t.lower.endsWith('ing')) continue;
    const shows = [tokens[nearest], t].some((w) => verbIn(thinking, w) || verbIn(sceneMaking, w) || verbIn(depicting, w) || verbIn(sensing, w) || (w === tokens[nearest!] && verbIn(reporting, w)));
    return !shows && p.syntax.unasserted[ref.first] === undefined && assertedVerb(p, v) ? v : undefined;
  }
  return undefined;
}

/**
 * "I saw Swales at the window", "met Mr. Hale in the lane", "found my father and mother in good health": the one a
 * verb the narration asserts sees or meets somewhere, or finds in a state of the living, is there (lexicon
 * `seenPresent`). Named only, as for act nouns; not found at a place (bodies are), nor where the sentence or the two
 * before it speak of death, a grave, a body, a picture, a dream or a ghost.
 */
function seenAsPresent(p: Passage, ref: Ref): number | undefined {
  const { tokens, sentences } = p.reading;
  if (ref.pronoun || ref.subject || possessor(p, ref) || saidDead(p, ref.first - 1, ref.last) || tokens[ref.first].quoted) return undefined;
  let v = ref.first - 1;
  while (v > ref.first - 3 && tokens[v] && (tokens[v].pos === 'DET' || tokens[v].pos === 'ADJ')) v--;
  const verb = tokens[v];
  if (!verb || verb.pos !== 'VERB' || !verbIn(seenPresent.verbs, verb) || verb.lower.endsWith('ing')) return undefined;
  // Over others seen with them: "found my father and mother in good health".
  let k = ref.last + 1;
  while (k < ref.last + 6 && tokens[k] && tokens[k].sentence === verb.sentence && !placing.has(tokens[k].lower) && (['and', ','].includes(tokens[k].lower) || ['PROPN', 'NOUN', 'DET'].includes(tokens[k].pos) || possessives.has(tokens[k].lower))) k++;
  const at = tokens[k];
  if (!at || at.sentence !== verb.sentence) return undefined;
  let present = seenPresent.well.has(at.lower) || aliveAdjectives.has(at.lower);
  if (!present && placing.has(at.lower)) {
    // The phrase after the preposition, to the next word that is not of a noun phrase: a state ("in good health") or a place.
    let end = k + 1;
    while (end < tokens.length && tokens[end].sentence === verb.sentence && (['DET', 'ADJ', 'NOUN', 'PROPN', 'NUM'].includes(tokens[end].pos) || possessives.has(tokens[end].lower))) end++;
    const phrase = tokens.slice(k + 1, end);
    if (phrase.some((t) => t.pos === 'NOUN' || t.pos === 'PROPN')) present = phrase.some((t) => seenPresent.states.has(t.lemma) || seenPresent.states.has(t.lower)) || !verbIn(seenPresent.finding, verb);
  }
  if (!present) return undefined;
  const here = verb.sentence;
  const from = sentences[Math.max(0, here - 2)].first;
  const apart = [deathWords, deathVerbs, standIns, burial, images, sceneNouns, seenPresent.apart];
  // "in good spirits" is a state of the living, not a ghost.
  for (let j = from; j <= sentences[here].last; j++) if (!seenPresent.states.has(tokens[j].lower) && apart.some((words) => words.has(tokens[j].lower) || words.has(tokens[j].lemma))) return undefined;
  return assertedVerb(p, v) ? v : undefined;
}

/**
 * "that there was Molly Farren, risen from the furze and shaking the snow from her shawl": one a "there was" brings in,
 * doing something in a participle after them (straight after, or after a past participle and "and"), is there doing
 * it. Named only; not where the sentence or the two before it speak of death, a grave, a body, a picture, a dream or a
 * ghost, as for one seen.
 */
function thereDoing(p: Passage, ref: Ref): number | undefined {
  const { tokens, sentences } = p.reading;
  if (ref.pronoun || possessor(p, ref) || saidDead(p, ref.first - 1, ref.last) || tokens[ref.first].quoted) return undefined;
  let be = ref.first - 1;
  while (be > ref.first - 3 && tokens[be] && (tokens[be].pos === 'DET' || tokens[be].pos === 'ADJ')) be--;
  if (tokens[be]?.lemma !== 'be' || tokens[be - 1]?.lower !== 'there') return undefined;
  const here = tokens[ref.first].sentence;
  const from = tokens[ref.last + 1]?.text === ',' ? ref.last + 2 : ref.last + 1;
  let act: number | undefined;
  for (let j = from; j < from + 10 && tokens[j] && tokens[j].sentence === here && ![',', ';', ':'].includes(tokens[j].text); j++) {
    const t = tokens[j];
    if (j === from && t.pos !== 'VERB') return undefined;
    if (t.pos === 'VERB' && t.lower.endsWith('ing') && (j === from || tokens[j - 1].lower === 'and')) {
      act = j;
      break;
    }
  }
  if (act === undefined || verbIn(stative, tokens[act]) || verbIn(resting, tokens[act]) || p.syntax.unasserted[act] !== undefined) return undefined;
  const apart = [deathWords, deathVerbs, standIns, burial, images, sceneNouns, seenPresent.apart];
  for (let j = sentences[Math.max(0, here - 2)].first; j <= sentences[here].last; j++) if (apart.some((words) => words.has(tokens[j].lower) || words.has(tokens[j].lemma))) return undefined;
  return assertedVerb(p, be) ? act : undefined;
}

/** "talked with X", "shook hands with X", "was dancing with X": the one an act is done with does it too (lexicon `together`). */
function doneWith(p: Passage, ref: Ref): number | undefined {
  const { tokens } = p.reading;
  if (ref.pronoun || possessor(p, ref) || saidDead(p, ref.first - 1, ref.last)) return undefined;
  let w = ref.first - 1;
  if (tokens[w]?.pos === 'ADJ') w--;
  if (tokens[w]?.lower !== 'with') return undefined;
  // Over adverbs and the object of "shake hands": "talked long with", "shook hands with".
  let v = w - 1;
  while (v > w - 3 && tokens[v] && (tokens[v].pos === 'ADV' || tokens[v].lower === 'hands')) v--;
  const verb = tokens[v];
  if (!verb || verb.pos !== 'VERB' || !verbIn(together, verb) || p.syntax.unasserted[ref.first] !== undefined) return undefined;
  if (verb.lower.endsWith('ing') && !auxesBefore(p, v).some((a) => tokens[a].lemma === 'be')) return undefined;
  return assertedVerb(p, v) ? v : undefined;
}

/**
 * Whether a named mention brings its character in as dead, a body or a time gone: "the dead man, O'Brien", "the body
 * of X", "X's body", "in his father's lifetime" (lexicon `standIns`, `lifetimes`), a clause of time under a perfect.
 */
function broughtInDead(p: Passage, m: Ref): boolean {
  const { tokens } = p.reading;
  // "seemed to have deserted it when Beth left the old home for the new. She tried…": a departure before the now.
  if (m.subject && predicatesOf(p.syntax, m.last).some((pr) => !pr.relative && timedByPerfect(p, pr.verb))) return true;
  const owned = tokens[m.last + 2];
  if (/^['’]s$/.test(tokens[m.last + 1]?.lower ?? '') && owned && (standIns.has(owned.lemma) || lifetimes.has(owned.lower))) return true;
  if (tokens[m.first - 1]?.lower === 'of' && standIns.has(tokens[m.first - 2]?.lemma ?? '')) return true;
  // "the dead man, O'Brien", "poor dead Will": a death word in the phrase the name stands in or is set off after.
  let k = tokens[m.first - 1]?.text === ',' ? m.first - 2 : m.first - 1;
  for (let n = 0; n < 4 && k >= 0 && tokens[k].sentence === tokens[m.first].sentence && ['DET', 'ADJ', 'NOUN', 'VERB'].includes(tokens[k].pos); n++, k--) {
    if (deathWords.has(tokens[k].lower)) return true;
  }
  return false;
}

/**
 * "the dead man, O'Brien. He had pitched against the bulwarks… I tumbled him overboard. He went in with a sounding
 * plunge": a pronoun that goes on, with no gap of more than two sentences, from a mention bringing its character in
 * as dead, a body or a time gone (broughtInDead) is about the body or the memory, not one acting. The nearest mention
 * by name decides: named again as anyone else, they may act.
 */
function goesOnAboutTheDead(p: Passage, ref: Ref): boolean {
  if (!ref.pronoun) return false;
  const { tokens } = p.reading;
  const earlier = refsOf(p, ref.entity).filter((r) => r.first < ref.first);
  // "walked right up to the man where he stood": someone unnamed of the pronoun's gender, brought in by an article in
  // its sentence after the last mention, is who it means.
  const from = Math.max(earlier.at(-1)?.last ?? 0, p.reading.sentences[tokens[ref.first].sentence].first);
  const gender = genderOfWord(tokens[ref.first].lower);
  for (let k = from + 1; k < ref.first; k++) {
    if (tokens[k].pos === 'NOUN' && ['a', 'an', 'the', 'this', 'that'].includes(tokens[k - 1]?.lower ?? '') && gender !== undefined && genderOfWord(tokens[k].lemma) === gender) return true;
  }
  let sentence = tokens[ref.first].sentence;
  for (let n = earlier.length - 1; n >= 0; n--) {
    const m = earlier[n];
    if (sentence - tokens[m.first].sentence > 2) return false;
    sentence = tokens[m.first].sentence;
    if (m.pronoun || m.narrator) continue;
    return broughtInDead(p, m);
  }
  return false;
}

/**
 * "Lady Elliot had been an excellent woman…; she had humoured his failings…; on her friend's advice Lady Elliot mainly
 * relied": a paragraph that first describes a dead character in the pluperfect is their life before the story's now,
 * and the preterite that goes on about them in it continues that, until the narration comes back to its now ("now",
 * "tonight", a verb in the present). Not where the pluperfect tells the death itself ("had been dead a year").
 */
function inFlashback(p: Passage, ref: Ref): boolean {
  const { syntax } = p;
  const { tokens, sentences, text } = p.reading;
  const here = tokens[ref.first].sentence;
  let first = here;
  while (first > 0 && !text.slice(tokens[sentences[first - 1].last].end, tokens[sentences[first].first].start).includes('\n')) first--;
  const mentions = refsOf(p, ref.entity).filter((r) => r.first < ref.first && tokens[r.first].sentence >= first && tokens[r.first].sentence < here);
  const opening = mentions.find((r) => r.subject);
  if (!opening || mentions.some((r) => r.first < opening.first)) return false;
  const told = predicatesOf(syntax, opening.last).find((pr) => !pr.relative);
  // A portrait of their life ("had been an excellent woman"), not an event ("had gone to the inn before he fell").
  if (!told || !told.copula || !(moodOf(syntax, told).pluperfect || portraitGoesBack(p, told.verb))) return false;
  const s = sentences[tokens[opening.first].sentence];
  for (let k = s.first; k <= sentences[here].last; k++) {
    const t = tokens[k];
    if (t.quoted) continue;
    if (k <= s.last && deathWords.has(t.lower)) return false;
    if (nowWords.has(t.lower) || (finiteTense(tokens, k) === 'present' && !narratorAside(p, k))) return false;
  }
  return true;
}

/**
 * "Her father was an artist, and in that quality had given lessons of drawing": a portrait in the preterite ("was an
 * artist", "was a clever man") whose subject goes on, in the same sentence, in the pluperfect tells their life before
 * the story's now as "had been an artist" would.
 */
function portraitGoesBack(p: Passage, copula: number): boolean {
  const { tokens } = p.reading;
  if (!['a', 'an'].includes(tokens[copula + 1]?.lower ?? '')) return false;
  let joined = false;
  for (let k = copula + 2; k < tokens.length && tokens[k].sentence === tokens[copula].sentence; k++) {
    const t = tokens[k];
    if (t.quoted || t.pos === 'PRON' || p.refs.some((r) => r.first === k) || [';', ':'].includes(t.text)) return false;
    if (t.lower === 'and' || t.text === ',') joined = true;
    else if (joined && t.lemma === 'have' && t.pos === 'AUX' && tokens[k + 1]?.pos === 'VERB') return true;
  }
  return false;
}

/**
 * "My father had once been a favourite of hers, I believe;": the narrator's present "I believe", "I think", "I say"
 * comments on the telling; it does not bring the narration back to its now.
 */
function narratorAside(p: Passage, k: number): boolean {
  const { tokens } = p.reading;
  const t = tokens[k];
  if (!verbIn(thinking, t) && !verbIn(reporting, t)) return false;
  let j = k - 1;
  while (j >= 0 && tokens[j].pos === 'ADV') j--;
  return tokens[j]?.lower === 'i';
}

/** "quitted the world", "passed away": the verb at `verb` and the words after it tell a death (lexicon `dyingPhrases`). */
function dies(p: Passage, verb: number): boolean {
  const { tokens } = p.reading;
  const t = tokens[verb];
  // "quitted": the lemmatiser may keep the doubled consonant.
  const isVerb = (verbs: Set<string>) => verbIn(verbs, t) || [...verbs].some((v) => t.lower.startsWith(v) && t.lower.length <= v.length + 3);
  return dyingPhrases.some((row) => isVerb(row.verbs) && row.after.some((words) => words.every((w, j) => tokens[verb + 1 + j]?.lower === w)));
}

/** Whether the verb at k is a perfect: "had gone", "to have deserted", "has left". */
function perfectAt(p: Passage, k: number): boolean {
  const { tokens } = p.reading;
  let j = k - 1;
  while (j >= 0 && (tokens[j].pos === 'ADV' || tokens[j].pos === 'PART') && tokens[j].lower !== 'to') j--;
  // "to have deserted": the tagger may call that "have" a verb.
  return (tokens[j]?.pos === 'AUX' || tokens[j]?.pos === 'VERB') && tokens[j].lemma === 'have' && tokens[k].pos === 'VERB';
}

/**
 * "all its light seemed to have deserted it when Beth left the old home", "When X went away, the light had gone out of
 * the house": a clause of time (lexicon `timedUnderPerfect`) takes its time from the clause it hangs on, the nearest
 * verb of the narration before it in its sentence or, when it opens the sentence, after it; under a perfect it is told
 * from before the story's now.
 */
function timedByPerfect(p: Passage, verb: number): boolean {
  const { tokens } = p.reading;
  const start = clauseStart(p.syntax, verb);
  if (!timedUnderPerfect.has(tokens[start].lower)) return false;
  const sentence = tokens[verb].sentence;
  for (let k = start - 1; k >= 0 && tokens[k].sentence === sentence; k--) if (tokens[k].pos === 'VERB' && !tokens[k].quoted) return perfectAt(p, k);
  for (let k = clauseEnd(p.syntax, verb) + 1; k < tokens.length && tokens[k].sentence === sentence; k++) if (tokens[k].pos === 'VERB' && !tokens[k].quoted) return perfectAt(p, k);
  return false;
}

/**
 * "whenever X received friends", "when X passed under them for the last time": a past habit or a last act, each from
 * before the death (lexicon `deadHabitOpeners`, `deadLastActs`).
 */
function beforeTheDeath(p: Passage, verb: number): boolean {
  const { tokens } = p.reading;
  const [start, end] = [clauseStart(p.syntax, verb), clauseEnd(p.syntax, verb)];
  if (finiteTense(tokens, verb) !== 'past') return false;
  if (deadHabitOpeners.has(tokens[start].lower)) return true;
  for (let k = start; k <= end; k++) if (deadLastActs.some((phrase) => phrase.every((w, j) => tokens[k + j]?.lower === w))) return true;
  return false;
}

/** Whether the passage opens on a phrase that takes it back in time (lexicon `rewinds`: "That same evening,"). */
function opensOnRewind(p: Passage): boolean {
  const words = p.reading.tokens.filter((t) => t.pos !== 'PUNCT').slice(0, 12).map((t) => t.lower);
  const fits = (rule: (typeof rewinds)[number], s: number, k: number): boolean => {
    if (s === rule.length) return true;
    const slot = rule[s];
    return (slot.words.includes(words[k]) && fits(rule, s + 1, k + 1)) || (slot.optional && fits(rule, s + 1, k));
  };
  return rewinds.some((rule) => fits(rule, 0, 0));
}

/**
 * "When Dunstan Cass turned his back on the cottage, Silas Marner was not more than a hundred yards away": a passage
 * whose first sentence opens on a clause of time with the character as its subject, its main clause another's
 * state ("was", "was plodding"), takes up that moment to tell where another was.
 */
function opensOnTheirMoment(p: Passage, ref: Ref): boolean {
  const { tokens, sentences } = p.reading;
  const s = sentences[0];
  if (!['when', 'as'].includes(tokens[s.first].lower) || tokens[ref.first].sentence !== 0 || !ref.subject) return false;
  const end = clauseEnd(p.syntax, ref.last);
  const main = p.refs.find((r) => r.first > end && r.subject && r.entity.id !== ref.entity.id && tokens[r.first].sentence === 0);
  if (!main || refsOf(p, ref.entity).some((r) => r.first > end && r.first < main.first)) return false;
  const predicate = predicatesOf(p.syntax, main.last).find((pr) => !pr.relative);
  if (!predicate) return false;
  const verb = tokens[predicate.verb];
  return predicate.copula || (verb.lower.endsWith('ing') && predicate.auxes.some((a) => tokens[a].lemma === 'be'));
}

/**
 * A passage that goes back in time to before a death the canon tells in its chapter or the one before: its opening
 * paragraph, when the passage opens on a phrase that takes it back ("That same evening", "Earlier that day", "It was
 * three hours before") or on the moment of the character's own act from which another's state is told ("When X
 * turned his back on the cottage, Silas was …").
 */
function rewound(p: Passage, ref: Ref): boolean {
  const ago = p.slice.statusToldAgo?.[ref.entity.id];
  if (ago === undefined || ago > 1) return false;
  const { tokens, text } = p.reading;
  if (text.slice(0, tokens[ref.first].start).trim().includes('\n')) return false;
  return opensOnRewind(p) || opensOnTheirMoment(p, ref);
}

/**
 * "it was suggested by the Professor that … we should enter the house; that the two doctors should remain there,
 * whilst X found the lairs": one given a part in a plan the narration settles (lexicon `settling`, a that-clause with
 * "should" or "was to" before the part) is counted on as living. Not a plan whose maker does not know of the death
 * (an unaware fact about them in the clause that settles it), a part that is no act (a passive, a perfect, a copula, a
 * verb of rest), nor a sentence of graves, mourning or the hereafter.
 */
function partInPlan(p: Passage, ref: Ref): number | undefined {
  const { tokens, sentences } = p.reading;
  if (ref.pronoun || tokens[ref.first].quoted || possessor(p, ref)) return undefined;
  const s = sentences[tokens[ref.first].sentence];
  let plan: number | undefined;
  let modal = false;
  for (let k = ref.first - 1; k >= s.first && plan === undefined; k--) {
    if (planAuxes.has(tokens[k].lower) && tokens[k].pos === 'AUX') modal = true;
    if (tokens[k].lower !== 'that' || tokens[k].quoted) continue;
    for (let v = k - 1; v >= Math.max(s.first, k - 5); v--) if (tokens[v].pos === 'VERB' && settling.has(tokens[v].lemma) && !tokens[v].quoted) plan = v;
  }
  if (plan === undefined || !assertedVerb(p, plan, { passiveCounts: true })) return undefined;
  const predicate = predicatesOf(p.syntax, ref.last).find((pr) => !pr.relative && !pr.copula);
  if (!predicate) return undefined;
  const verb = tokens[predicate.verb];
  const auxes = predicate.auxes.map((a) => tokens[a]);
  if (auxes.some((a) => planAuxes.has(a.lower))) modal = true;
  const mood = moodOf(p.syntax, predicate);
  if (!modal || mood.negated || mood.passive || auxes.some((a) => a.lemma === 'have') || verb.pos !== 'VERB' || verbIn(stative, verb) || verbIn(resting, verb) || verbIn(thinking, verb) || deathWords.has(verb.lower)) return undefined;
  for (let k = s.first; k <= s.last; k++) if ([burial, standIns, hereafter, mindNouns].some((words) => words.has(tokens[k].lemma) || words.has(tokens[k].lower))) return undefined;
  const makers = p.refs.filter((r) => r.first >= s.first && r.last < plan + 6 && r.entity.type === 'character');
  if (makers.some((m) => (p.slice.unaware[m.entity.id] ?? []).some((f) => f.about === ref.entity.id))) return undefined;
  return predicate.verb;
}

function trigger(p: Passage, ref: Ref): Trigger | undefined {
  const { syntax } = p;
  const { tokens } = p.reading;
  if (syntax.unasserted[ref.first] !== undefined) return undefined;
  if (goesOnAboutTheDead(p, ref) || inFlashback(p, ref) || rewound(p, ref)) return undefined;
  const tag = speechTagBefore(syntax, ref.first);
  if (tag !== undefined && syntax.unasserted[tag] === undefined) return { from: tag, to: ref.last, alive: false };
  const thing = describesThing(p, ref);
  for (const predicate of predicatesOf(syntax, ref.last)) {
    if (!predicate.relative && !ref.subject) continue;
    if (thing && !predicate.relative) continue;
    const verb = tokens[predicate.verb];
    if (predicate.copula) {
      // "was behind the bar, polishing glasses", "is out in the barn, whistling": being somewhere and doing something
      // there; "was gone, leaving…" is not.
      // Over adverbs before the place: "was already on the stone steps, passing the time".
      let place = predicate.verb + 1;
      while (place < predicate.verb + 3 && tokens[place]?.pos === 'ADV' && !tokens[place].negated && !['not', 'never'].includes(tokens[place].lower) && !outward.has(tokens[place].lower)) place++;
      if (outward.has(tokens[place]?.lower ?? '')) place++;
      const adjunct = !predicate.relative && placing.has(tokens[place]?.lower ?? '') ? participleAdjunct(p, predicate.verb) : undefined;
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
    // "X was announced", "was ushered in": the subject of a passive of arrival comes in.
    if (verbIn(arrivalPassives, verb) && predicate.auxes.some((a) => tokens[a].lemma === 'be') && asserts(syntax, predicate, { passiveCounts: true })) return { from: ref.first, to: predicate.verb, alive: false };
    if ((verbIn(stative, verb) && !heldDuty(p, predicate.verb)) || deathWords.has(verb.lower) || dies(p, predicate.verb) || pictured(p, predicate.verb) || atRest(p, predicate.verb) || deadBeside(p, predicate.verb) || timedByPerfect(p, predicate.verb) || beforeTheDeath(p, predicate.verb)) continue;
    if (asserts(syntax, predicate)) return { from: ref.first, to: predicate.verb, alive: false };
  }
  const agent = passiveAgent(p, ref) ?? invertedSubject(p, ref) ?? helpedObject(p, ref) ?? actByNoun(p, ref) ?? inCompany(p, ref) ?? doneWith(p, ref) ?? seenAsPresent(p, ref) ?? thereDoing(p, ref);
  if (agent !== undefined) return { from: agent, to: ref.last, alive: false };
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

/**
 * A dead character bidden to act in dialogue: named at the head of a quoted sentence, a comma, then a verb in its bare
 * form ('“Pew, run and help Harry,” cried Silver'), in a quotation whose speaker, someone else, a tag names. Not what
 * the living ask of the dead (lexicon `deadBidden.apostrophe`). The token of the verb.
 */
function biddenInDialogue(p: Passage, ref: Ref): number | undefined {
  const { tokens, text } = p.reading;
  const verb = ref.last + 2;
  const t = tokens[verb];
  if (ref.pronoun || ref.kin || !tokens[ref.first].quoted || tokens[ref.last + 1]?.text !== ',' || !t?.quoted || t.pos !== 'VERB' || t.lower !== t.lemma || t.negated) return undefined;
  if (verbIn(deadBidden.apostrophe, t) || verbIn(stative, t) || verbIn(resting, t)) return undefined;
  const head = tokens[ref.first - 1];
  if (head && head.quoted && !['.', '!', '?'].includes(head.text) && !/^["“‘']$/.test(head.text)) return undefined;
  const all = quotations(text, tokens);
  const q = all.find((x) => x.first <= ref.first && ref.last <= x.last);
  if (!q) return undefined;
  const speakerOfQuote = (end: number) => {
    const at = all.findLast((x) => x.first <= end);
    return at && speakerNear(p, at);
  };
  const speaker = speakerNear(p, q) ?? continuedSpeaker(p, q.first, speakerOfQuote);
  return speaker && speaker.id !== ref.entity.id ? verb : undefined;
}

/** For the trace: the guard of `trigger` that set a reference to a dead character aside, if one did. */
function deadGuard(p: Passage, ref: Ref): string {
  const frame = p.syntax.unasserted[ref.first];
  if (frame !== undefined) return `frame: ${frame}`;
  if (goesOnAboutTheDead(p, ref)) return 'the dead spoken of';
  if (inFlashback(p, ref)) return 'flashback';
  if (rewound(p, ref)) return 'rewound';
  return 'unread';
}

/** For the trace: what a character the canon has alive as of the passage is read doing ("canon lacks" when they act). */
function traceLiving(p: Passage, character: SliceEntity): void {
  for (const ref of refsOf(p, character).filter((r) => !r.narrator)) {
    if (trigger(p, ref) ?? partInPlan(p, ref)) traceClaim(p, 'dead_character_active', character.id, ref.first, 'canon lacks');
  }
}

export function deadCharacters(p: Passage): ConflictDraft[] {
  const hits: ConflictDraft[] = [];
  if (p.trace) for (const character of p.slice.entities.filter((e) => e.type === 'character' && !isDead(e, p))) traceLiving(p, character);
  for (const character of p.slice.entities.filter((e) => e.type === 'character' && isDead(e, p))) {
    // A narrator who tells the story from beyond the grave is a device of the book, not a slip of it.
    if (p.trace) for (const ref of refsOf(p, character).filter((r) => r.narrator)) traceClaim(p, 'dead_character_active', character.id, ref.first, 'narrator beyond the grave');
    for (const ref of refsOf(p, character).filter((r) => !r.narrator)) {
      const planned = partInPlan(p, ref);
      const bidden = planned === undefined ? biddenInDialogue(p, ref) : undefined;
      const found = trigger(p, ref) ?? (planned === undefined ? undefined : { from: ref.first, to: planned, alive: false }) ?? (bidden === undefined ? undefined : { from: ref.first, to: bidden, alive: false });
      if (!found) {
        if (p.trace) traceClaim(p, 'dead_character_active', character.id, ref.first, deadGuard(p, ref));
        continue;
      }
      traceClaim(p, 'dead_character_active', character.id, ref.first, 'hit');
      const deathFact = character.facts.find((f) => /\b(died|dead|killed|drowned|murdered|death|slain|perished|executed)\b/i.test(f.text));
      const status = character.state.status ?? character.state.state;
      hits.push({
        severity: 'P1',
        kind: 'dead_character_active',
        episode: p.episode,
        title: `${character.name} acts after their death`,
        rationale: `The canon has ${character.name} ${typeof status === 'string' ? status : 'dead'}${deathFact ? ` ("${deathFact.text}")` : ''}${p.episode ? ` as of ${p.episode}` : ''}, yet the passage ${found.alive ? 'says they are alive' : 'has them act or speak'}: ${quoteAt(p, Math.min(found.from, found.to), Math.max(found.from, found.to))}.`,
        refs: [character.id, ...(deathFact ? [deathFact.id] : [])],
        at: spanAt(p, Math.min(found.from, found.to), Math.max(found.from, found.to)),
      });
      break;
    }
  }
  return hits;
}
