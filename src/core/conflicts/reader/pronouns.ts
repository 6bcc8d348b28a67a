// Which pronouns a character takes, for resolving "he", "she" and "they" in a passage. In order of authority:
// 1. the entity's state: `pronouns` ("she/her", "he/him", "they/them") or `gender` ("female", "male", "non-binary");
// 2. gendered words in its names and title ("Lady Vell", "Brother Cael", title "abbess") and in the kinds of its
//    relationships ("mother_of", "grandson_of");
// 3. what its approved facts describe it as: a person noun of one gender in apposition to its name or after "is a"
//    ("Leonards, a Southampton man", "Dixon was Mrs. Hale's maid");
// 4. what the canon's own text says of it: the pronoun a sentence carries on with after its name, in its approved facts
//    and in the snippets of the chapters that mention it (recorded at import, read at check time).
// Unknown: the character fits "he" and "she" alike, never singular "they".
import { animalNouns, describedGender, genderedEndings, genderOfWord, notGenderedEndings, type Gender } from './lexicon.ts';

export type Pronouns = Gender | 'they';

type Named = { name: string; aliases: string[]; state: Record<string, unknown> };

export function statedPronouns(state: Record<string, unknown>): Pronouns | undefined {
  const said = typeof state.pronouns === 'string' ? state.pronouns.trim().toLowerCase() : undefined;
  if (said) {
    const first = said.split(/[\s/,]+/)[0];
    if (first === 'he' || first === 'him' || first === 'his') return 'he';
    if (first === 'she' || first === 'her' || first === 'hers') return 'she';
    if (first === 'they' || first === 'them' || first === 'their') return 'they';
  }
  const gender = typeof state.gender === 'string' ? state.gender.trim().toLowerCase() : typeof state.sex === 'string' ? state.sex.trim().toLowerCase() : undefined;
  if (gender) {
    if (/^(f|female|woman|girl|feminine)$/.test(gender)) return 'she';
    if (/^(m|male|man|boy|masculine)$/.test(gender)) return 'he';
    if (/^(non-?binary|nb|enby|agender|genderqueer|genderfluid|neutral)$/.test(gender)) return 'they';
  }
  return undefined;
}

/** Gendered words in the names, aliases and title, and in the relationship kinds read from this entity. */
export function impliedPronouns(entity: Named, outgoingKinds: string[]): Gender | undefined {
  const words = [entity.name, ...entity.aliases, ...(typeof entity.state.title === 'string' ? [entity.state.title] : [])]
    .flatMap((n) => n.split(/[\s_.-]+/))
    .concat(outgoingKinds.map((k) => k.split(/[\s_-]+/)[0]));
  const votes = new Set(words.map(genderOfWord).filter((g): g is Gender => g !== undefined));
  return votes.size === 1 ? [...votes][0] : undefined;
}

/** The gender a description's head noun gives: "man", "fellow", "clergyman", "washerwoman". */
function genderOfNoun(word: string): Gender | undefined {
  const w = word.toLowerCase();
  const said = genderOfWord(w) ?? describedGender[w];
  if (said || notGenderedEndings.has(w)) return said;
  return genderedEndings.find(([ending]) => w.endsWith(ending) && w.length > ending.length)?.[1];
}

// A description after a name: "X, a …" / "X is the …" / "X was Margaret's …", up to the punctuation ending it.
const describing = /^(?:,\s*|\s+(?:is|was)\s+)((?:a|an|the|his|her|their|[\p{Lu}][\p{L}.]*['’]s)\s[^,;:.()—–!?"“”]+)/u;
// What follows a description's head noun: "a sailor of Frederick's ship", "a man who…".
const afterHead = /\s(?:of|in|at|from|with|who|whom|whose|that|which|to|for|on|by|near|under|since|until|as)\s.*$/;

/**
 * The gender the approved facts describe a character as: the head noun of each description of one of its names in
 * apposition or after "is" ("Leonards, a Southampton man and former sailor", "Dixon was Mrs. Hale's maid"); the other
 * words of the description are the description's, not the character's ("Mrs. Hale's"). One gender only.
 */
export function describedPronouns(entity: Named, facts: string[]): Gender | undefined {
  const names = [entity.name, ...entity.aliases].filter((n) => n.length > 1).sort((a, b) => b.length - a.length);
  const votes = new Set<Gender>();
  for (const text of facts) {
    for (const n of names) {
      for (let at = text.indexOf(n); at >= 0; at = text.indexOf(n, at + 1)) {
        // the whole name, not a part of another word or of a longer name ("Hale" in "Hales", "Frederick Hale's")
        const after = text.slice(at + n.length);
        if (/^[\p{L}'’]/u.test(after) || (at > 0 && /[\p{L}]/u.test(text[at - 1]))) continue;
        const description = describing.exec(after)?.[1];
        if (!description) continue;
        for (const part of description.split(/\s+(?:and|or)\s+/)) {
          const head = part.replace(afterHead, '').trim().split(/\s+/).at(-1) ?? '';
          const gender = genderOfNoun(head);
          if (gender) votes.add(gender);
        }
      }
    }
  }
  return votes.size === 1 ? [...votes][0] : undefined;
}

/**
 * Whether the approved facts describe a character as an animal: a description of one of its names, in apposition or
 * after "is", one of whose parts set off by commas ends on an animal noun ("Wildfire is Godfrey Cass's hunter, the
 * best horse he ever had"; not "Bryce is a horse-dealer", nor "a man who kept a dog").
 */
export function describedAnimal(entity: Named, facts: string[]): boolean {
  const names = [entity.name, ...entity.aliases].filter((n) => n.length > 1);
  for (const text of facts) {
    for (const n of names) {
      const at = text.indexOf(n);
      if (at < 0 || /^[\p{L}'’]/u.test(text.slice(at + n.length)) || (at > 0 && /[\p{L}]/u.test(text[at - 1]))) continue;
      const description = animalDescribing.exec(text.slice(at + n.length))?.[1];
      if (!description) continue;
      for (const part of description.split(/\s*,\s*|\s+(?:and|or)\s+/)) {
        const head = part.replace(afterHead, '').replace(/\s(?:he|she|it|they|I|we|you)\s.*$/, '').trim().split(/\s+/).at(-1) ?? '';
        if (animalNouns.has(head.toLowerCase())) return true;
      }
    }
  }
  return false;
}
// A description after a name up to the end of its sentence, appositions after commas included.
const animalDescribing = /^(?:,\s*|\s+(?:is|was)\s+)((?:a|an|the|his|her|their|(?:[\p{Lu}][\p{L}.]*\s)*[\p{Lu}][\p{L}.]*['’]s)\s[^;:.()—–!?"“”]+)/u;

/**
 * Votes of the canon's own text: in each text (an approved fact, the snippet of a chapter that mentions the entity),
 * the first "he" or "she" (or "himself", "herself") after the first of its names, within that sentence and the next:
 * the subject a story carries on with. Object and possessive pronouns are left out: "Ilse took the key from his hand"
 * speaks of someone else. One gender needs at least twice the votes of the other.
 */
export function learnedPronouns(entity: Named, texts: string[]): Gender | undefined {
  const names = [entity.name, ...entity.aliases].filter((n) => n.length > 1).sort((a, b) => b.length - a.length);
  let he = 0;
  let she = 0;
  for (const text of texts) {
    let at = -1;
    let length = 0;
    for (const n of names) {
      const i = text.indexOf(n);
      if (i >= 0 && (at < 0 || i < at)) [at, length] = [i, n.length];
    }
    if (at < 0) continue;
    const following = text.slice(at + length).split(/(?<=[.!?]["”’]?)\s+/).slice(0, 2).join(' ');
    const vote = following.match(/\b(he|she|himself|herself)\b/i)?.[1].toLowerCase();
    if (vote === 'he' || vote === 'himself') he++;
    if (vote === 'she' || vote === 'herself') she++;
  }
  if (he >= 1 && he >= 2 * she) return 'he';
  if (she >= 1 && she >= 2 * he) return 'she';
  return undefined;
}

/** What the canon itself says, without reading the chapters: the state, the names and relationship kinds, the facts' descriptions. */
export function canonPronouns(entity: Named, outgoingKinds: string[], facts: string[]): Pronouns | undefined {
  return statedPronouns(entity.state) ?? impliedPronouns(entity, outgoingKinds) ?? describedPronouns(entity, facts);
}

export function pronounsOf(entity: Named, outgoingKinds: string[], facts: string[], snippets: string[]): Pronouns | undefined {
  return canonPronouns(entity, outgoingKinds, facts) ?? learnedPronouns(entity, [...facts, ...snippets]);
}

/** Whether a pronoun of this kind may refer to a character taking `pronouns` (undefined: not known). */
export function fits(pronoun: Pronouns, pronouns: Pronouns | undefined): boolean {
  if (pronouns === undefined) return pronoun !== 'they';
  return pronoun === pronouns;
}
