// A kinship word that contradicts the relationship graph: "his brother Cador" when Cador is his father, "Cador,
// Wenna's husband," when he is her father, "Tam was Edda's husband", "Cador's son Wenna" when the graph has her his
// daughter, "Wenna's father, Anselm" when the graph gives her two other parents (or a father already), "Corin,
// Bram's son," when it gives Corin another father, "his wife Martha" when the graph has Martha (or him) married to
// someone else, "her father Thorne" when he is her mother's brother (two steps: grandparents, aunts and uncles,
// grandchildren, nieces and nephews, and the in-laws a marriage makes: "June's brother Ray" when Ray is her
// husband's brother), "his father Joe" when Joe is his brother-in-law (a role a bond makes: step-, half-, -in-law,
// adoptive, betrothed, guardian and ward; "his sister's husband" and "his step-father" read whole). Relationship kinds
// are read as reader/kin.ts says. Pairs the graph does not relate by kinship are left to the model.
import type { SliceEntity } from '../canonSlice.ts';
import type { ConflictDraft } from '../kinds.ts';
import { heldKinship, kinAfter, kinWordAt, type Held, type Kin } from '../reader/kin.ts';
import { addressingTags, closeKin, courtesyKin, documents, genderOfWord, kinAgrees, kinNamingDenials, kinParentheses, kinRanks, letterAffection, marriageWords, normaliseTitle, speechTags, type Gender, type KinRole } from '../reader/lexicon.ts';
import { fits, statedPronouns } from '../reader/pronouns.ts';
import type { Ref } from '../reader/references.ts';
import { continuedSpeaker, speakerOf } from '../reader/speech.ts';
import { asserts, listedAfter, predicatesOf } from '../reader/syntax.ts';
import { isDead } from './dead.ts';
import { quoteAt, spanAt, traceClaim, type Passage } from './passage.ts';

/** The passage says `named` is `possessor`'s `kin`. */
type Claim = { possessor: SliceEntity; named: SliceEntity; kin: Kin; word: string; from: number; to: number };

// Kinship two steps away, where it is one role whatever half- or step-relations there are: a parent's parent is a
// grandparent, a parent's sibling an aunt or uncle, a child's child a grandchild, a sibling's child a niece or nephew.
// Through a marriage, an in-law: a spouse's sibling or a sibling's spouse, a spouse's parent, a child's spouse.
const twoSteps: Partial<Record<KinRole, Partial<Record<KinRole, KinRole>>>> = {
  parent: { parent: 'grandparent', sibling: 'auncle' },
  child: { child: 'grandchild', spouse: 'child-in-law' },
  sibling: { child: 'nibling', spouse: 'sibling-in-law' },
  spouse: { sibling: 'sibling-in-law', parent: 'parent-in-law' },
};
type Derived = { kin: Kin; ids: string[] };

/** What the graph makes `who` of `of` through one entity between them: [role, the two relationships]. */
function derivedKinship(held: Held[], who: string, of: string): Derived[] {
  const found: Derived[] = [];
  for (const first of held.filter((h) => h.of === of)) {
    for (const second of held.filter((h) => h.who === who && h.of === first.who && h.of !== of)) {
      const role = twoSteps[first.kin.role]?.[second.kin.role];
      if (role) found.push({ kin: { role, gender: second.kin.gender }, ids: [first.id, second.id] });
    }
  }
  return found;
}

// Kinship three steps away, loosely as prose names it: a parent's aunt is an aunt ("great-aunt"), a parent's cousin a
// cousin, an aunt's child a cousin, a spouse's parent a mother or father, a sibling's spouse a brother or sister, a
// brother-in-law's uncle an uncle. Only
// to tell whether the graph gives someone any relative a kin word could mean (closedWorld), never to contradict one.
const loosely: Partial<Record<KinRole, Partial<Record<KinRole, KinRole[]>>>> = {
  parent: { parent: ['grandparent'], sibling: ['auncle'], auncle: ['auncle'], grandparent: ['grandparent'], cousin: ['cousin'], spouse: ['parent'] },
  grandparent: { child: ['parent', 'auncle'], sibling: ['auncle', 'grandparent'] },
  auncle: { child: ['cousin'], spouse: ['auncle'] },
  sibling: { child: ['nibling'], spouse: ['sibling'], sibling: ['sibling'] },
  spouse: { sibling: ['sibling'], parent: ['parent'], child: ['child'] },
  child: { child: ['grandchild'], spouse: ['child'] },
  nibling: { child: ['nibling'] },
  // A brother-in-law's uncle is "uncle" to the family he married into, his children nephews and nieces.
  'sibling-in-law': { auncle: ['auncle'], child: ['nibling'] },
};

/** Every role the graph gives `of` a relative in, directly or by up to three steps read loosely. */
function rolesOf(held: Held[], of: string): Set<KinRole> {
  const roles = new Set<KinRole>();
  let frontier: { who: string; role: KinRole }[] = held.filter((h) => h.of === of).map((h) => ({ who: h.who, role: h.kin.role }));
  for (let step = 0; step < 3 && frontier.length > 0; step++) {
    const next: { who: string; role: KinRole }[] = [];
    for (const f of frontier) {
      roles.add(f.role);
      for (const h of held.filter((h) => h.of === f.who && h.who !== of)) for (const role of loosely[f.role]?.[h.kin.role] ?? []) next.push({ who: h.who, role });
    }
    frontier = next;
  }
  return roles;
}

/**
 * "his sister", "my uncle" where the graph gives the possessor kin, none of that role even loosely: a careful canon
 * that keeps someone's family would hold the relative, so the passage gives them one the graph does not. Only a kin word
 * of its own ("her aunt", "Laurence and his nephew"): not one a name follows ("her aunt Carrol", someone the canon does
 * not hold), nor a word that also means a child or a friend ("my boy", "his girl"), nor the first of a compound ("his
 * brother officers"), nor in a list of names.
 */
// The narrator's family is what a first-person canon keeps ("my uncle appeared"), but for parents, often dead before
// the story and never held; of anyone else's, only brothers, sisters, nieces and nephews: a third person's aunts,
// cousins, parents and in-laws are often people the canon never holds ("her aunt" for an aunt met once).
// A speaker's own in dialogue ("my daughter is fond of…") as anyone else's, and children too: someone whose nieces the
// canon keeps has their children kept.
const closedWorldRoles = {
  narrator: new Set<KinRole>(['sibling', 'spouse', 'grandparent', 'grandchild', 'auncle', 'nibling', 'cousin']),
  other: new Set<KinRole>(['sibling', 'nibling']),
  speaker: new Set<KinRole>(['sibling', 'nibling', 'child']),
};
/** The generation of a role, from the one it is of: a canon keeps someone's relatives of a generation or none of them. */
const generation: Partial<Record<KinRole, number>> = { grandparent: 2, parent: 1, auncle: 1, sibling: 0, spouse: 0, cousin: 0, child: -1, nibling: -1, grandchild: -2 };

type Unnamed = { possessor: SliceEntity; kin: Kin; word: string; from: number; to: number };

function unnamedKin(p: Passage): Unnamed[] {
  const { tokens } = p.reading;
  const found: Unnamed[] = [];
  const named = new Set(p.refs.filter((r) => !r.pronoun).map((r) => r.first));
  for (const ref of p.refs) {
    if (ref.entity.type !== 'character' || ref.kin) continue;
    const after = ref.pronoun === 'possessive' ? ref.last + 1 : possessiveAfter(p, ref) ? ref.last + 2 : -1;
    if (after < 0) continue;
    const kin = kinLeftUnnamed(p, after, closedWorldRoles[ref.narrator ? 'narrator' : 'other']);
    if (!kin) continue;
    const { apposed } = kin;
    if (named.has(apposed) || tokens[apposed]?.pos === 'PROPN' || (tokens[apposed]?.pos === 'DET' && tokens[apposed + 1]?.pos === 'PROPN')) continue;
    if (!tokens.slice(ref.first, kin.at + 1).every((t, j) => p.syntax.unasserted[ref.first + j] === undefined && !t.negated)) continue;
    if (!surely(p, ref)) continue;
    found.push({ possessor: ref.entity, kin: kin.kin, word: kin.word, from: ref.first, to: kin.at });
  }
  return found;
}

/**
 * Whether a possessor or subject is beyond doubt, as kin read through it needs: a name, the narrator's "my", or a
 * third-person pronoun ("She is his aunt") whose referent is the one character of its gender named in its sentence
 * before it or in the sentence before, with no one else of that gender a common noun or an unresolved kin word names
 * there ("a tall man", "his father"). A pronoun merely agreeing with its clause's subject may mean someone the canon
 * does not hold: on the whole books that gave more false alarms than the claims it found.
 */
function surely(p: Passage, ref: Ref): boolean {
  if (!ref.pronoun || ref.narrator) return true;
  const { tokens, sentences } = p.reading;
  const gender = genderOfWord(tokens[ref.first].lower);
  if (!gender) return false;
  const sentence = tokens[ref.first].sentence;
  const from = sentences[Math.max(0, sentence - 1)].first;
  const window = p.refs.filter((r) => r.first >= from && r.first < ref.first);
  const candidates = new Set(window.filter((r) => !r.pronoun && !r.narrator && r.entity.type === 'character' && fits(gender, p.pronounsOf(r.entity))).map((r) => r.entity.id));
  if (candidates.size !== 1 || !candidates.has(ref.entity.id)) return false;
  const inRef = (k: number) => window.some((r) => r.first <= k && k <= r.last);
  for (let k = from; k < ref.first; k++) {
    const t = tokens[k];
    if (t.pos === 'NOUN' && /^\p{Ll}/u.test(t.text) && genderOfWord(t.lower) === gender && !inRef(k)) return false;
  }
  return true;
}

const possessiveAfter = (p: Passage, ref: Ref) => !ref.pronoun && /^['’]s$/.test(p.reading.tokens[ref.last + 1]?.lower ?? '');
/**
 * The one after "the widow of", "brother to": not a possessive ("the widow of his partner", "brother to Tom's wife"),
 * whose relative is the noun it owns, not them.
 */
const ofWhom = (p: Passage, ref: Ref | undefined) => (ref && ref.pronoun !== 'possessive' && !possessiveAfter(p, ref) ? ref : undefined);

/**
 * The kin word after a possessor at token k (skipping "late", "younger"…), read whole ("step-father",
 * "brother-in-law"), and through a second possessive ("her mother's brother": an uncle; "his sister's husband": a
 * brother-in-law). `at` is its last token.
 */
/**
 * The kin word at `at` as kin a canon of `roles` would hold though no name is given: not a word that also means a child
 * ("my boy"), nor the first of a compound or before a name ("his brother officers", "his brother Tom"); `apposed` is
 * where a name set off after it would start.
 */
function kinLeftUnnamed(p: Passage, at: number, roles: Set<KinRole>): { kin: Kin; word: string; at: number; apposed: number } | undefined {
  const kin = kinAt(p, at);
  if (!kin || !roles.has(kin.kin.role) || ['child', 'boy', 'girl'].includes(kin.word.toLowerCase())) return undefined;
  const next = p.reading.tokens[kin.at + 1];
  if (next && (next.pos === 'NOUN' || next.pos === 'PROPN' || /^\p{Lu}/u.test(next.text))) return undefined;
  return { ...kin, apposed: next?.text === ',' ? kin.at + 2 : kin.at + 1 };
}

/** A named character's ref (not a pronoun's), or undefined. */
const namedCharacter = (r: Ref | undefined) => (r && !r.pronoun && r.entity.type === 'character' ? r : undefined);

function kinAt(p: Passage, k: number): { kin: Kin; word: string; at: number } | undefined {
  const { tokens } = p.reading;
  const { found } = kinAfter(tokens, k);
  if (!found) return undefined;
  if (!/^['’]s$/.test(tokens[found.last + 1]?.lower ?? '')) return { kin: found.kin, word: found.word, at: found.last };
  const second = kinAfter(tokens, found.last + 2).found;
  if (!second) return { kin: found.kin, word: found.word, at: found.last };
  // A chain the tables do not compose ("her mother's cousin") names no role to check.
  const role = twoSteps[found.kin.role]?.[second.kin.role];
  return role ? { kin: { role, gender: second.kin.gender }, word: `${found.word}'s ${second.word}`, at: second.last } : undefined;
}

const openingQuotes = new Set(['“', '‘', '"']);
/** How reader/syntax.ts marks the complement of a verb of thinking, dreaming or remembering ('after "thought"'). */
const thoughtMark = 'after "';

/** Past an article, adjectives and titles ("the Reverend Mr.", "old") from token k to where a name may start. */
function nameAfter(p: Passage, k: number, startingAt: Map<number, Ref>): number {
  const { tokens } = p.reading;
  let j = k;
  // A full stop only after a title ("Mr ."): after anything else it ends the sentence ("her daughter. Colonel Fitzwilliam").
  const title = (t: { text: string } | undefined) => t !== undefined && normaliseTitle([t.text.replace(/\.$/, '')]) !== undefined;
  while (j < k + 5 && tokens[j] && !startingAt.has(j) && (tokens[j].pos === 'DET' || tokens[j].pos === 'ADJ' || (tokens[j].text === '.' && j > k && title(tokens[j - 1])) || title(tokens[j]))) j++;
  return j;
}

/** "married to Orlick", "now wedded to Mr. Crane": the one a marriage word at token k (past an adverb or two) weds, by name. */
function marriedTo(p: Passage, k: number, startingAt: Map<number, Ref>): Ref | undefined {
  const { tokens } = p.reading;
  let j = k;
  while (j < k + 2 && tokens[j]?.pos === 'ADV' && !tokens[j].negated) j++;
  if (!marriageWords.has(tokens[j]?.lower ?? '') || tokens[j + 1]?.lower !== 'to') return undefined;
  return namedCharacter(startingAt.get(j + 2) ?? startingAt.get(nameAfter(p, j + 2, startingAt)));
}

/** `startingAt`: the characters' refs by their first token; `spoken`: the claims of spokenKin. */
function claims(p: Passage, startingAt: Map<number, Ref>, spoken: Claim[]): Claim[] {
  const { tokens } = p.reading;
  const { syntax } = p;
  const found: Claim[] = [];
  const characters = p.refs.filter((r) => r.entity.type === 'character' && !r.kin);
  const asserted = (from: number, to: number) => tokens.slice(from, to + 1).every((t, j) => syntax.unasserted[from + j] === undefined && !t.negated);
  const thought = (from: number, to: number) => tokens.slice(from, to + 1).every((t, j) => !t.negated && (syntax.unasserted[from + j] ?? thoughtMark).startsWith(thoughtMark));
  for (const ref of characters) {
    const after = ref.pronoun === 'possessive' ? ref.last + 1 : possessiveAfter(p, ref) ? ref.last + 2 : -1;
    if (after >= 0) {
      // "his brother Cador", "Tam's daughter Isolde", "his mother, Lena Halloran,"
      const kin = kinAt(p, after);
      if (kin) {
        const next = tokens[kin.at + 1]?.text === ',' ? kin.at + 2 : kin.at + 1;
        // "Eleanor's uncle, the Reverend Mr. Crane,", "her father, old Mr. Bellamy,": an article, adjectives and titles
        // before the name.
        const named = startingAt.get(next) ?? startingAt.get(nameAfter(p, next, startingAt));
        // "Nell's brother, Tom, and Jem": a list, not an apposition.
        const listed = next === kin.at + 2 && named !== undefined && listedAfter(tokens, named.last);
        // A name right after the kin word ("her daughter Priscilla") is the narrator's own naming, in a thought too:
        // "She always thought her daughter Priscilla too rough".
        const close = named !== undefined && named.first === kin.at + 1;
        // Nor does the clause's negation deny that naming ("he had never shown it to his wife Bessy"), unless the
        // negation is the possessor's own ("not his wife Bessy but…": lexicon `kinNamingDenials`).
        const denied = kinNamingDenials.has(tokens[ref.first - 1]?.lower ?? '');
        const namedDespiteNegation = close && !denied && tokens.slice(ref.first, named.last + 1).every((t, j) => syntax.unasserted[ref.first + j] === undefined);
        if (named && !named.pronoun && !listed && (asserted(ref.first, named.last) || (close && thought(ref.first, named.last)) || namedDespiteNegation)) found.push({ possessor: ref.entity, named: named.entity, kin: kin.kin, word: kin.word, from: ref.first, to: named.last });
        // "Cador, Wenna's husband,", "Felix Marsh (Lena's uncle, …)": the name before the appositive; a parenthesis only
        // after a named possessor.
        const opener = tokens[ref.first - 1]?.text ?? '';
        const sets = opener === ',' || (kinParentheses.has(opener) && !ref.pronoun);
        const before = sets ? characters.find((r) => r.last === ref.first - 2 && !r.pronoun) : undefined;
        // Not the subject of a quoted verb ("for Joe, my sister “went on the Rampage”"), nor an item of a list
        // ("Lady Catherine, Sir Lewis, her daughter, and Mrs. Jenkinson").
        const closes = !tokens[kin.at + 1] || (tokens[kin.at + 1].pos === 'PUNCT' && !openingQuotes.has(tokens[kin.at + 1].text));
        const inList = before !== undefined && (listedAfter(tokens, kin.at) || (tokens[before.first - 1]?.text === ',' && characters.some((r) => r.last === before.first - 2)));
        if (before && closes && !inList && asserted(before.first, kin.at)) found.push({ possessor: ref.entity, named: before.entity, kin: kin.kin, word: kin.word, from: before.first, to: kin.at });
      }
    }
    // "Tam was Edda's husband", "Ayo is Kit's sister", "Tam was the husband of Edda"
    // "She is his aunt", "He was her brother": through pronouns whose referents are beyond doubt.
    if (ref.subject && (!ref.pronoun || (ref.pronoun === 'nominative' && surely(p, ref)))) {
      for (const predicate of predicatesOf(syntax, ref.last)) {
        if (!predicate.copula || predicate.relative || !asserts(syntax, predicate)) continue;
        const next = startingAt.get(predicate.verb + 1);
        if (next && (possessiveAfter(p, next) || (next.pronoun === 'possessive' && (!ref.pronoun || surely(p, next))))) {
          // "Tam was Edda's husband", "Kit was my elder brother"
          const kin = kinAt(p, next.pronoun ? next.last + 1 : next.last + 2);
          if (kin) found.push({ possessor: next.entity, named: ref.entity, kin: kin.kin, word: kin.word, from: ref.first, to: kin.at });
        } else if (kinAt(p, predicate.verb + 1) && ['to', 'of'].includes(tokens[kinAt(p, predicate.verb + 1)!.at + 1]?.lower ?? '')) {
          // "Mr. Crane was brother to Eleanor": the kin word without its article.
          const kin = kinAt(p, predicate.verb + 1)!;
          const of = ofWhom(p, startingAt.get(kin.at + 2));
          if (of) found.push({ possessor: of.entity, named: ref.entity, kin: kin.kin, word: kin.word, from: ref.first, to: of.last });
        } else if (tokens[predicate.verb + 1]?.lower === 'the') {
          const kin = kinAt(p, predicate.verb + 2);
          const of = kin && tokens[kin.at + 1]?.lower === 'of' ? ofWhom(p, startingAt.get(kin.at + 2)) : undefined;
          if (kin && of) found.push({ possessor: of.entity, named: ref.entity, kin: kin.kin, word: kin.word, from: ref.first, to: of.last });
        }
      }
    }
    // "Biddy was married to Orlick", "she is now wedded to Mr. Crane": a marriage stated, not one that had been.
    if (ref.subject && (!ref.pronoun || (ref.pronoun === 'nominative' && surely(p, ref)))) {
      for (const predicate of predicatesOf(syntax, ref.last)) {
        if (predicate.relative || !asserts(syntax, predicate, { passiveCounts: true })) continue;
        const spouse = marriedTo(p, predicate.copula ? predicate.verb + 1 : predicate.verb, startingAt);
        if (spouse) found.push({ possessor: spouse.entity, named: ref.entity, kin: { role: 'spouse' }, word: 'spouse', from: ref.first, to: spouse.last });
      }
    }
  }
  // "Mrs. Bellamy, the mother of Frederick,": a kin word in apposition, "of" its possessor.
  for (const ref of characters) {
    if (ref.pronoun || tokens[ref.last + 1]?.text !== ',' || tokens[ref.last + 2]?.lower !== 'the') continue;
    const kin = kinAt(p, ref.last + 3);
    const of = kin && tokens[kin.at + 1]?.lower === 'of' ? ofWhom(p, startingAt.get(kin.at + 2)) : undefined;
    if (kin && of && !of.pronoun && asserted(ref.first, of.last)) found.push({ possessor: of.entity, named: ref.entity, kin: kin.kin, word: kin.word, from: ref.first, to: of.last });
  }
  found.push(...spoken, ...letterClaims(p, startingAt));
  return found.filter((c) => c.possessor.id !== c.named.id);
}

const isTitle = (t: { text: string } | undefined) => t !== undefined && normaliseTitle([t.text.replace(/\.$/, '')]) !== undefined;

/**
 * The one a quote is said to, named: a name opening the quote or closing it, set off by a comma ("Edmund, your
 * father…", "…is waiting, my dear Edmund."), or the speech tag's "to X" ("said she to Jo", "Elizabeth said to Colonel
 * Fitzwilliam, “…") or object after its speaker ("June told Sam"). `i` is a token in the quote.
 */
export function addresseeOf(p: Passage, i: number, startingAt: Map<number, Ref>): Ref | undefined {
  const { tokens } = p.reading;
  let first = i;
  while (tokens[first - 1]?.quoted) first--;
  let last = i;
  while (tokens[last + 1]?.quoted) last++;
  const address = (k: number) => tokens[k] && (tokens[k].pos === 'PUNCT' || tokens[k].lower === 'my' || tokens[k].lower === 'oh' || letterAffection.has(tokens[k].lower) || isTitle(tokens[k]));
  // "Edmund, your father is waiting": not the first of a list ("Jo, Meg and Amy"), nor a name a kin word sets off
  // ("Sam, your brother, …").
  let k = first;
  while (k < last && address(k) && !startingAt.has(k)) k++;
  const opening = namedCharacter(startingAt.get(k));
  if (opening && [',', '!'].includes(tokens[opening.last + 1]?.text ?? '') && !listedAfter(tokens, opening.last)) {
    const apposed = tokens[opening.last + 2]?.lower === 'your' && kinAt(p, opening.last + 3) && tokens[kinAt(p, opening.last + 3)!.at + 1]?.text === ',';
    if (!apposed) return opening;
  }
  // "…is waiting, Edmund."
  let e = last;
  while (e > first && tokens[e].pos === 'PUNCT') e--;
  const closing = namedCharacter([...startingAt.values()].find((r) => r.last === e && r.first > first));
  if (closing) {
    let b = closing.first - 1;
    while (b > first && address(b) && tokens[b].text !== ',') b--;
    if (tokens[b]?.text === ',') return closing;
  }
  const isTag = (k: number) => tokens[k] !== undefined && !tokens[k].quoted && (tokens[k].pos === 'VERB' || tokens[k].pos === 'AUX') && (speechTags.has(tokens[k].lemma) || addressingTags.has(tokens[k].lemma));
  // "“…,” said she to Jo", "“…,” June told Sam"
  let after = last + 1;
  while (tokens[after] && tokens[after].pos === 'PUNCT' && !['.', '!', '?'].includes(tokens[after].text)) after++;
  const speaker = startingAt.get(after);
  const verb = isTag(after) ? after : speaker && isTag(speaker.last + 1) ? speaker.last + 1 : undefined;
  if (verb !== undefined) {
    if (speaker && addressingTags.has(tokens[verb].lemma)) return namedCharacter(startingAt.get(verb + 1));
    for (let j = verb + 1; j < verb + 5 && tokens[j] && !tokens[j].quoted && tokens[j].pos !== 'PUNCT'; j++) {
      if (tokens[j].lower !== 'to') continue;
      let n = j + 1;
      while (n < j + 4 && isTitle(tokens[n]) && !startingAt.has(n)) n += tokens[n + 1]?.text === '.' ? 2 : 1;
      return namedCharacter(startingAt.get(n));
    }
  }
  // "Elizabeth said to Colonel Fitzwilliam, “…", "June told Sam, “…"
  let before = first - 1;
  while (tokens[before] && tokens[before].pos === 'PUNCT' && tokens[before].text !== '.' && !tokens[before].quoted) before--;
  const to = namedCharacter([...startingAt.values()].find((r) => r.last === before));
  if (!to) return undefined;
  let j = to.first - 1;
  while (j > to.first - 4 && (isTitle(tokens[j]) || tokens[j]?.text === '.')) j--;
  if (tokens[j]?.lower === 'to' && isTag(j - 1)) return to;
  if (isTag(j) && addressingTags.has(tokens[j].lemma) && [...startingAt.values()].some((r) => r.last === j - 1)) return to;
  return undefined;
}

/**
 * Kin a speaker names in dialogue: a quoted "my" or "your" and a kin word, the speaker's kin or the one spoken to's.
 * With a name after it ("“Nearer my cousin Jo's,” returned Meg", "“Your brother Tom is here,” said she to Jo"), a
 * claim; without ("“Your brother will tell you,” said Elizabeth to Colonel Fitzwilliam", "“My daughter is fond of your
 * art,” said Mr. Fairlie"), kin the canon may lack: the speaker's own a son or daughter too, but not in address
 * ("Come, my son!", a kin word punctuation closes).
 */
function spokenKin(p: Passage, startingAt: Map<number, Ref>): { claims: Claim[]; unnamed: Unnamed[] } {
  const { tokens } = p.reading;
  const claims: Claim[] = [];
  const unnamed: Unnamed[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const own = tokens[i].lower === 'my';
    if (!tokens[i].quoted || (tokens[i].lower !== 'your' && !own) || tokens[i].pos !== 'PRON') continue;
    const kin = kinAt(p, i + 1);
    if (!kin) continue;
    const next = tokens[kin.at + 1]?.text === ',' ? kin.at + 2 : kin.at + 1;
    const named = startingAt.get(next);
    const possessor = (wide: boolean) =>
      own ? namedCharacter(speakerOf(p, i, startingAt) ?? continuedSpeaker(p, i, (end) => speakerOf(p, end, startingAt), wide ? undefined : (r) => r.entity)) : addresseeOf(p, i, startingAt);
    if (named) {
      if (named.pronoun || (next === kin.at + 2 && listedAfter(tokens, named.last))) continue;
      if (tokens.slice(i, named.last + 1).some((t) => !t.quoted || t.negated)) continue;
      // A name right after the kin word ("my cousin Dunstan") is no vocative, so a quote going on after a long tag
      // keeps its speaker.
      const speaker = possessor(next === kin.at + 1);
      if (speaker) claims.push({ possessor: speaker.entity, named: named.entity, kin: kin.kin, word: kin.word, from: i, to: named.last });
      continue;
    }
    const left = kinLeftUnnamed(p, i + 1, own ? closedWorldRoles.speaker : closedWorldRoles.other);
    if (!left || tokens[left.apposed]?.pos === 'PROPN') continue;
    if (tokens.slice(i, left.at + 1).some((t) => !t.quoted || t.negated)) continue;
    if (own && (!tokens[left.at + 1] || tokens[left.at + 1].pos === 'PUNCT')) continue;
    const speaker = possessor(false);
    if (speaker) unnamed.push({ possessor: speaker.entity, kin: left.kin, word: left.word, from: i, to: left.at });
  }
  // "“…and I am married to Orlick!”": the speaker's own marriage, stated in the present or the past.
  for (let i = 0; i < tokens.length; i++) {
    if (!tokens[i].quoted || tokens[i].lower !== 'i' || !['am', "'m", '’m', 'was'].includes(tokens[i + 1]?.lower ?? '')) continue;
    const spouse = marriedTo(p, i + 2, startingAt);
    if (!spouse || tokens.slice(i, spouse.last + 1).some((t) => !t.quoted || t.negated)) continue;
    const speaker = speakerOf(p, i, startingAt) ?? continuedSpeaker(p, i, (end) => speakerOf(p, end, startingAt), (r) => r.entity);
    if (speaker && !speaker.pronoun) claims.push({ possessor: spouse.entity, named: speaker.entity, kin: { role: 'spouse' }, word: 'spouse', from: i, to: spouse.last });
  }
  return { claims, unnamed };
}

type LetterLine = { kind: 'heading' | 'salutation' | 'closing'; from: number; to: number; writer?: Ref; addressee?: Ref; kin?: { kin: Kin; word: string } };

/**
 * A line of a letter that names its writer, the one it is written to, or kin between them: a heading ("Letter, Grace
 * Pell to June Harlow."), a salutation ("My dear sister,", "Dearest June,") or a closing ("Your loving sister,
 * Grace", the name alone on the next line too). `first` and `last` are the line's tokens.
 */
function letterLine(p: Passage, first: number, last: number, next: [number, number] | undefined, startingAt: Map<number, Ref>): LetterLine | undefined {
  const { tokens } = p.reading;
  let end = last;
  while (end > first && tokens[end].pos === 'PUNCT') end--;
  const closes = (k: number) => k > end;
  const nameEnding = (k: number) => namedCharacter(startingAt.get(k));
  // "Letter, Grace Pell to June Harlow."
  if (documents.has(tokens[first].lower) && end - first < 14) {
    const to = tokens.findIndex((t, k) => k > first && k <= end && t.lower === 'to');
    const writer = to > 0 ? [...startingAt.values()].find((r) => r.first > first && r.last < to) : undefined;
    const addressee = to > 0 ? nameEnding(to + 1) : undefined;
    if (namedCharacter(writer) && addressee && addressee.last === end) return { kind: 'heading', from: first, to: end, writer, addressee };
    return undefined;
  }
  let k = first;
  const own = ['my', 'your', 'yr', 'yours', 'ever'];
  while (k <= end && (own.includes(tokens[k].lower) || letterAffection.has(tokens[k].lower))) k++;
  const opener = tokens[first].lower;
  const punctuated = [',', '!', ':'].includes(tokens[end + 1]?.text ?? '');
  const kin = k <= end ? kinWordAt(tokens, k) : undefined;
  if (opener === 'your' || opener === 'yr' || opener === 'ever') {
    // "Your loving sister, Grace", "Your affectionate brother,\nSam"
    if (!kin || tokens[kin.last + 1]?.text !== ',') return undefined;
    const writer = kin.last + 2 <= end ? nameEnding(kin.last + 2) : next ? nameEnding(next[0]) : undefined;
    const signs = writer && (writer.last === end || (next && writer.first === next[0] && tokens.slice(writer.last + 1, next[1] + 1).every((t) => t.pos === 'PUNCT')));
    return signs ? { kind: 'closing', from: first, to: writer.last, writer, kin: { kin: kin.kin, word: kin.word } } : undefined;
  }
  if (k === first || !punctuated) return undefined;
  // "My dear sister,", "Dearest June,"
  if (kin && closes(kin.last + 1)) return { kind: 'salutation', from: first, to: end, kin: { kin: kin.kin, word: kin.word } };
  const addressee = nameEnding(k);
  return addressee && closes(addressee.last + 1) ? { kind: 'salutation', from: first, to: end, addressee } : undefined;
}

/**
 * Kin a letter states between its writer and the one it is written to: "My dear sister," makes the addressee the
 * writer's sister, "Your loving sister, Grace" makes Grace the addressee's sister, each when the letter or its heading
 * names both.
 */
function letterClaims(p: Passage, startingAt: Map<number, Ref>): Claim[] {
  const { tokens, text } = p.reading;
  const lines: [number, number][] = [];
  for (let i = 0; i < tokens.length; i++) {
    const newLine = i === 0 || text.slice(tokens[i - 1].end, tokens[i].start).includes('\n');
    if (newLine) lines.push([i, i]);
    else lines[lines.length - 1][1] = i;
  }
  const found: Claim[] = [];
  let letter: LetterLine[] = [];
  const settle = () => {
    const writer = letter.find((l) => l.kind === 'closing')?.writer ?? letter.find((l) => l.kind === 'heading')?.writer;
    const addressee = letter.find((l) => l.kind === 'salutation' && l.addressee)?.addressee ?? letter.find((l) => l.kind === 'heading')?.addressee;
    if (!writer || !addressee) return;
    for (const l of letter) {
      if (!l.kin) continue;
      // The salutation calls the addressee the writer's kin; the closing, the writer the addressee's.
      const [possessor, named] = l.kind === 'salutation' ? [writer, addressee] : [addressee, writer];
      found.push({ possessor: possessor.entity, named: named.entity, kin: l.kin.kin, word: l.kin.word, from: l.from, to: l.to });
    }
  };
  lines.forEach(([first, last], n) => {
    const line = letterLine(p, first, last, lines[n + 1], startingAt);
    if (!line) return;
    // A heading or a salutation after a closing starts the next letter.
    if (line.kind !== 'closing' && letter.some((l) => l.kind === 'closing' || l.kind === line.kind)) {
      settle();
      letter = [];
    }
    letter.push(line);
  });
  settle();
  return found;
}

function genderOf(p: Passage, id: string, held: Held[]): Gender | undefined {
  const fromGraph = held.find((h) => h.who === id && h.kin.gender)?.kin.gender;
  if (fromGraph) return fromGraph;
  const entity = p.slice.entities.find((e) => e.id === id);
  const pronouns = entity && p.pronounsOf(entity);
  return pronouns === 'he' || pronouns === 'she' ? pronouns : undefined;
}

const nameOf = (p: Passage, id: string) => p.slice.entities.find((e) => e.id === id)?.name ?? id;

/**
 * A parent the graph does not give `child`: it has a parent of that one's gender already (`word`: "father"), or two
 * others.
 */
function otherParents(p: Passage, held: Held[], child: SliceEntity, parent: string, gender: Gender | undefined, word: string) {
  const parents = held.filter((h) => h.of === child.id && h.kin.role === 'parent' && h.who !== parent);
  const sameGender = gender ? parents.filter((h) => genderOf(p, h.who, held) === gender) : [];
  if (sameGender.length === 0 && new Set(parents.map((h) => h.who)).size < 2) return undefined;
  const given = sameGender.length > 0 ? sameGender : parents;
  const others = [...new Set(given.map((h) => nameOf(p, h.who)))];
  return { held: given, why: `the relationship graph gives ${child.name}'s ${sameGender.length > 0 ? word : 'parents'} as ${others.join(' and ')}` };
}

/** A character's age in the canon, when its state gives one as a number. */
function ageOf(p: Passage, id: string): number | undefined {
  const age = p.slice.entities.find((e) => e.id === id)?.state.age;
  const n = typeof age === 'number' ? age : typeof age === 'string' && /^\d+$/.test(age.trim()) ? Number(age) : undefined;
  return n !== undefined && Number.isFinite(n) ? n : undefined;
}

/**
 * "Kitty, her youngest daughter," when the graph gives her a daughter younger than Kitty; "his elder brother Tom" when
 * Tom is younger than him; "her only brother, Sam" when the graph gives her another brother. The rank stands before the
 * kin word (past adjectives); ages only as the canon states them, nothing assumed of anyone without one.
 */
function rankContradiction(p: Passage, held: Held[], claim: Claim): { held: Held[]; why: string } | undefined {
  const { tokens } = p.reading;
  const { possessor, named, kin } = claim;
  const at = tokens.findIndex((t, k) => k >= claim.from && k <= claim.to && kinRanks[t.lower] !== undefined && kinAfter(tokens, k + 1).found?.word === claim.word);
  if (at < 0) return undefined;
  const rank = kinRanks[tokens[at].lower];
  const gender = kin.gender;
  const peers = held.filter((h) => h.of === possessor.id && h.who !== named.id && h.kin.role === kin.role && (!gender || genderOf(p, h.who, held) === gender));
  const word = `${tokens[at].lower} ${claim.word.toLowerCase()}`;
  // "only" of the living: a brother dead by now leaves "her only brother" true.
  const living = peers.filter((h) => p.slice.entities.some((e) => e.id === h.who && !isDead(e, p)));
  if (rank === 'only') return living.length > 0 ? { held: living, why: `the relationship graph gives ${possessor.name} another: ${[...new Set(living.map((h) => nameOf(p, h.who)))].join(', ')}` } : undefined;
  const age = ageOf(p, named.id);
  if (age === undefined) return undefined;
  if (rank === 'younger' || rank === 'older') {
    const own = kin.role === 'sibling' ? ageOf(p, possessor.id) : undefined;
    if (own === undefined || (rank === 'younger' ? age < own : age > own)) return undefined;
    return { held: held.filter((h) => h.of === possessor.id && h.who === named.id), why: `the canon gives ${named.name} age ${age} and ${possessor.name} age ${own}, so ${named.name} is not the ${word}` };
  }
  const beyond = peers.filter((h) => {
    const other = ageOf(p, h.who);
    return other !== undefined && (rank === 'least' ? other < age : other > age);
  });
  if (beyond.length === 0) return undefined;
  const others = [...new Set(beyond.map((h) => `${nameOf(p, h.who)} (${ageOf(p, h.who)})`))].join(', ');
  return { held: [...held.filter((h) => h.of === possessor.id && h.who === named.id), ...beyond], why: `the canon gives ${named.name} age ${age} and ${possessor.name} ${rank === 'least' ? 'a younger' : 'an older'} one: ${others}, so ${named.name} is not the ${word}` };
}

export function kinship(p: Passage): ConflictDraft[] {
  const held = heldKinship(p.slice.relationships);
  if (held.length === 0) return [];
  const hits: ConflictDraft[] = [];
  const reported = new Set<string>();
  // A kin reference ("June's husband") is itself what the graph says: its possessor is the one to read claims from.
  const startingAt = new Map(p.refs.filter((r) => r.entity.type === 'character' && !r.kin).map((r) => [r.first, r]));
  const spoken = spokenKin(p, startingAt);
  for (const claim of claims(p, startingAt, spoken.claims)) {
    const { possessor, named, kin } = claim;
    const between = held.filter((h) => h.who === named.id && h.of === possessor.id);
    let contradiction: { held: Held[]; why: string } | undefined;
    if (between.length > 0) {
      const agrees = between.some((h) => kinAgrees(kin.role, h.kin.role) && (!kin.gender || !h.kin.gender || h.kin.gender === kin.gender));
      const stated = statedPronouns(named.state);
      const genderClash = kin.gender && (stated === 'he' || stated === 'she') && stated !== kin.gender;
      if (!agrees || genderClash) {
        const roles = between.map((h) => (h.kin.gender ? `${h.kin.role} (${h.kin.gender === 'he' ? 'male' : 'female'})` : h.kin.role)).join(', ');
        contradiction = { held: between, why: `the relationship graph makes ${named.name} ${possessor.name}'s ${roles}` };
      }
    } else if (derivedKinship(held, named.id, possessor.id).length > 0) {
      const derived = derivedKinship(held, named.id, possessor.id);
      if (!derived.some((d) => kinAgrees(kin.role, d.kin.role))) {
        const ids = [...new Set(derived.flatMap((d) => d.ids))];
        contradiction = {
          held: held.filter((h) => ids.includes(h.id)),
          why: `the relationship graph makes ${named.name} ${possessor.name}'s ${[...new Set(derived.map((d) => d.kin.role))].join(', ')} (through ${derived.length === 1 ? 'one relative' : 'relatives'} between them)`,
        };
      }
    } else if (kin.role === 'spouse' && held.some((h) => h.who === named.id && h.kin.role === 'spouse')) {
      // A spouse named who is married to someone else in the graph.
      const spouses = held.filter((h) => h.who === named.id && h.kin.role === 'spouse');
      const others = spouses.map((h) => nameOf(p, h.of));
      contradiction = { held: spouses, why: `the relationship graph has ${named.name} married to ${[...new Set(others)].join(' and ')}` };
    } else if (kin.role === 'spouse' && held.some((h) => h.of === possessor.id && h.kin.role === 'spouse')) {
      // A spouse named for someone the graph marries to another ("The Chief's husband, Ray,").
      const spouses = held.filter((h) => h.of === possessor.id && h.kin.role === 'spouse');
      const others = spouses.map((h) => nameOf(p, h.who));
      contradiction = { held: spouses, why: `the relationship graph has ${possessor.name} married to ${[...new Set(others)].join(' and ')}` };
    } else if (kin.role === 'child') {
      // "Corin, Bram's son," makes Bram a parent the graph does not give Corin.
      const gender = genderOf(p, possessor.id, held);
      contradiction = otherParents(p, held, named, possessor.id, gender, gender === 'he' ? 'father' : 'mother');
    } else if (kin.role === 'parent') {
      contradiction = otherParents(p, held, possessor, named.id, kin.gender, claim.word.toLowerCase());
    }
    if (!contradiction && between.some((h) => h.kin.role === kin.role)) contradiction = rankContradiction(p, held, claim);
    if (!contradiction && between.length === 0 && derivedKinship(held, named.id, possessor.id).length === 0 && !courtesyKin.has(claim.word.toLowerCase())) {
      // "old Redruth, the squire's brother": the graph relates the two, by no kinship ("serves", "friend_of").
      const other = p.slice.relationships.filter((r) => (r.from === named.id && r.to === possessor.id) || (r.from === possessor.id && r.to === named.id));
      if (other.length > 0 && other.every((r) => !held.some((h) => h.id === r.id))) {
        contradiction = { held: other.map((r) => ({ who: r.from, of: r.to, kin, id: r.id })), why: `the relationship graph relates them only as ${other.map((r) => r.kind).join(', ')}` };
      }
    }
    if (p.trace) {
      const outcome = !contradiction ? (between.length > 0 || derivedKinship(held, named.id, possessor.id).length > 0 ? 'agrees' : 'canon lacks') : reported.has(`${possessor.id}|${named.id}`) ? 'one conflict per pair' : 'hit';
      for (const id of [named.id, possessor.id]) traceClaim(p, 'relationship_contradiction', id, claim.from, outcome);
    }
    if (!contradiction) continue;
    const key = `${possessor.id}|${named.id}`;
    if (reported.has(key)) continue;
    reported.add(key);
    hits.push({
      severity: 'P2',
      kind: 'relationship_contradiction',
      episode: p.episode,
      title: `${named.name} is not ${possessor.name}'s ${claim.word.toLowerCase()}`,
      rationale: `The passage makes ${named.name} ${possessor.name}'s ${claim.word.toLowerCase()}, but ${contradiction.why}: ${quoteAt(p, claim.from, claim.to)}.`,
      refs: [...new Set([named.id, possessor.id, ...contradiction.held.map((h) => h.id)])],
      at: spanAt(p, claim.from, claim.to),
    });
  }
  const family = heldKinship([...p.slice.relationships, ...p.slice.kinAround]);
  for (const claim of [...unnamedKin(p), ...spoken.unnamed]) {
    const { possessor, kin } = claim;
    // Only kin of blood and marriage tell that the canon keeps someone's family: a guardian or a fiancée does not.
    const own = held.filter((h) => h.of === possessor.id && closeKin.has(h.kin.role));
    const roles = rolesOf(family, possessor.id);
    // "my uncle" when the graph gives the narrator parents; "his nephew" when it gives him a child or a grandchild.
    const said = generation[kin.role] ?? 0;
    const kept = [...roles].some((r) => closeKin.has(r) && Math.sign(generation[r] ?? 0) === Math.sign(said) && Math.abs(generation[r] ?? 0) >= Math.abs(said));
    if (own.length === 0 || [...roles].some((r) => kinAgrees(kin.role, r)) || !kept) {
      if (p.trace) traceClaim(p, 'relationship_contradiction', possessor.id, claim.from, [...roles].some((r) => kinAgrees(kin.role, r)) ? 'agrees' : 'canon lacks');
      continue;
    }
    traceClaim(p, 'relationship_contradiction', possessor.id, claim.from, 'hit');
    const key = `${possessor.id}|${kin.role}`;
    if (reported.has(key)) continue;
    reported.add(key);
    const word = claim.word.toLowerCase();
    const relatives = [...new Set(own.map((h) => `${nameOf(p, h.who)} (${h.kin.role})`))].join(', ');
    hits.push({
      severity: 'P2',
      kind: 'relationship_contradiction',
      episode: p.episode,
      title: `${possessor.name} has no ${word} in the relationship graph`,
      rationale: `The passage gives ${possessor.name} a ${word}, but the relationship graph gives ${possessor.name} no relative of that kind, only ${relatives}: ${quoteAt(p, claim.from, claim.to)}.`,
      refs: [...new Set([possessor.id, ...own.map((h) => h.id)])],
      at: spanAt(p, claim.from, claim.to),
    });
  }
  return hits;
}
