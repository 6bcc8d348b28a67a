// Checks that need no model: a dead character acting or speaking, a stated attribute that contradicts the canon
// (eye or hair colour, age, title), and one character placed in two locations at once. They run first, on every
// check, and their hits stand whatever the model answers.
import { MentionFinder } from '../ingest/mentionFinder.ts';
import type { CanonSlice, SliceEntity } from './canonSlice.ts';
import type { ConflictDraft } from './kinds.ts';

const deadStates = /^(dead|deceased|killed|died|drowned|murdered|executed)$/i;
const actionVerbs = new Set(
  ('said says asked asks replied replies whispered whispers shouted shouts laughed laughs smiled smiles walked walks ran runs ' +
    'stood stands nodded nods grinned grins answered answers called calls sat sits took takes grabbed grabs looked looks turned turns ' +
    'opened opens climbed climbs spoke speaks cried cries shrugged shrugs sighed sighs waved waves entered enters arrived arrives ' +
    'left leaves went goes came comes stepped steps reached reaches pulled pulls pushed pushes held holds handed hands drew draws ' +
    'raised raises lifted lifts watched watches frowned frowns muttered mutters yelled yells sang sings danced dances ate eats ' +
    'drank drinks kissed kisses hugged hugs fought fights swam swims rowed rows sailed sails winked winks knelt kneels jumped jumps ' +
    'wrote writes read reads told tells greeted greets signed signs poured pours lit lights steered steers').split(' '),
);
const speechVerbs = /\b(said|says|asked|asks|replied|whispered|shouted|called|answered|cried|muttered|yelled|added|snapped)\b/;
// Sentences about the dead that do not make them act: memory, mourning, the body, dreams, the past.
const notActing =
  /\b(remember(s|ed)?|memor(y|ies)|grave|ghost|corpse|body|funeral|mourn(s|ed|ing)?|dream(s|ed|t)?|portrait|photograph|spirit|the late|used to|had (once )?been|would have|buried|death|died|dead|killed|drowned|in memory|recalled?|once)\b/i;

const colours = new Set(
  'green blue brown grey gray hazel amber black violet red golden gold silver white blonde blond auburn copper dark pale'.split(' '),
);
const sameColourAs: Record<string, string> = { gray: 'grey', blond: 'blonde', gold: 'golden' };
// Vague shades agree with the colours they cover: "dark eyes" do not contradict brown ones.
const shades: Record<string, string[]> = {
  dark: ['black', 'brown', 'hazel', 'auburn'],
  pale: ['blue', 'grey', 'green', 'silver', 'white', 'blonde', 'golden'],
  silver: ['grey', 'white'],
};
// Red eyes are sore eyes ("red from the smoke"), not a colour, unless the canon says they are red.
const soreEyes = new Set(['red', 'pink']);
const titles = new Set(
  ('captain admiral lord lady king queen doctor dr sergeant commander general prince princess sir professor duke duchess baron ' +
    'baroness countess earl mayor warden marshal bishop lieutenant colonel emperor empress').split(' '),
);
const numberWords =
  '(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[-\\s](?:one|two|three|four|five|six|seven|eight|nine))?|' +
  'ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|one|two|three|four|five|six|seven|eight|nine';
// Words that may stand between "had" and a colour: "had long black hair".
const looks = '(?:long|short|bright|deep|thick|thin|curly|straight|wild|cropped|cold|clear|wide|narrow|piercing|striking|dark|pale)';
const ageNumber = `(\\d{1,3}|${numberWords})`;
// An age told of the past ("was six when his mother died") says nothing about the character now.
const pastAge = /^(?:\s*years?\s*old)?\s*,?\s*(when|then|at the time|back then|in those days|before)\b/i;
const movement =
  /\b(went|walked|rode|sailed|travell?ed|arrived|returned|left|flew|drove|ran|headed|reached|moved|hurried|rowed|then|later|afterwards|after|until|the next (day|morning)|hours later|that evening|by (dawn|daybreak|morning|noon|midday|evening|dusk|sunset|nightfall|night|midnight))\b/i;
const simultaneous = /\b(at the same (time|moment)|meanwhile|simultaneously|at that (very )?(moment|instant)|at once)\b/i;
// Where a character is in thought, memory, dream or writing is not where they are.
const elsewhere = /\b(dream\w*|remember\w*|recall\w*|imagin\w*|thought of|thinks? of|thinking of|wish\w*|pictur\w*|memor\w*|letter|wrote|map)\b/i;
const placing = /\b(at|in|on|inside|within|aboard)\s+(the\s+)?$/i;
// "looked across the water at Harrowgate" points at a place without putting anyone there.
const pointing = /\b(look|stare|gaze|glance|peer|point|wave|shout|squint|nod)\w*\b[^.;,]{0,30}\bat\s+(the\s+)?$/i;
const pronoun = /\b(he|she)\b/i;

type Sentence = { text: string; index: number };

function sentences(passage: string): Sentence[] {
  return passage
    .split(/(?<=[.!?]["”’)]?)\s+|\n+/)
    .map((text, index) => ({ text: text.trim(), index }))
    .filter((s) => s.text.length > 0);
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const namesOf = (e: SliceEntity) => [e.name, ...e.aliases].sort((a, b) => b.length - a.length);
const namePattern = (e: SliceEntity) => `(?:${namesOf(e).map(escape).join('|')})`;
const quote = (text: string) => `"${text.length > 200 ? `${text.slice(0, 197)}...` : text}"`;

/** Attributes the canon states: state fields, and facts of the form "X's eyes are green". */
function canonAttributes(e: SliceEntity): Map<string, { value: string; ref: string }> {
  const attributes = new Map<string, { value: string; ref: string }>();
  for (const [key, value] of Object.entries(e.state)) {
    if (typeof value === 'string' || typeof value === 'number') attributes.set(normaliseAttribute(key), { value: String(value).toLowerCase(), ref: e.id });
  }
  const pattern = new RegExp(`${namePattern(e)}['’]s\\s+(\\w+)\\s+(?:is|are|was|were)\\s+([\\w-]+)`, 'i');
  for (const fact of e.facts) {
    const match = pattern.exec(fact.text);
    if (match) attributes.set(normaliseAttribute(match[1]), { value: match[2].toLowerCase(), ref: fact.id });
  }
  return attributes;
}

function normaliseAttribute(word: string): string {
  const w = word.toLowerCase();
  if (w === 'eye' || w === 'eyes' || w === 'eye_colour' || w === 'eye_color') return 'eyes';
  if (w === 'hair' || w === 'hair_colour' || w === 'hair_color') return 'hair';
  return w;
}

function numberValue(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  const units = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
  const tens = ['twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
  const [first, second] = text.toLowerCase().split(/[-\s]+/);
  if (tens.includes(first)) return (tens.indexOf(first) + 2) * 10 + (second ? units.indexOf(second) + 1 : 0);
  return units.includes(first) ? units.indexOf(first) + 1 : undefined;
}

function sameColour(a: string, b: string): boolean {
  const [x, y] = [sameColourAs[a] ?? a, sameColourAs[b] ?? b];
  return x === y || Boolean(shades[x]?.includes(y) || shades[y]?.includes(x));
}

function differs(attribute: string, canon: string, stated: string): boolean {
  if (attribute === 'eyes' || attribute === 'hair') {
    const canonColours = canon.split(/[\s-]+/).filter((w) => colours.has(w));
    if (!colours.has(stated) || canonColours.length === 0) return false;
    if (attribute === 'eyes' && soreEyes.has(stated) && !canonColours.includes(stated)) return false;
    return !canonColours.some((c) => sameColour(c, stated));
  }
  if (attribute === 'age') {
    const [was, now] = [numberValue(canon), numberValue(stated)];
    return was !== undefined && now !== undefined && was !== now;
  }
  if (attribute === 'title') return titles.has(stated) && stated !== canon && !canon.split(/\s+/).includes(stated);
  return false;
}

export function findDeterministicConflicts(passage: string, slice: CanonSlice, episode: string | null): ConflictDraft[] {
  const hits: ConflictDraft[] = [];
  const characters = slice.entities.filter((e) => e.type === 'character');
  const locations = slice.entities.filter((e) => e.type === 'location');
  const parts = sentences(passage);

  for (const character of characters) {
    const name = namePattern(character);
    const status = character.state.status ?? character.state.state;
    const isDead = (typeof status === 'string' && deadStates.test(status)) || character.state.alive === false || character.state.dead === true;
    // A passage set in a chapter before the one the character dies in has them alive.
    const diedIn = character.state.died_in;
    const diesLater = slice.position !== undefined && typeof diedIn === 'string' && (slice.chapterOrdinals[diedIn] ?? -Infinity) > slice.position;

    if (isDead && !diesLater) {
      // "Oswin walked", "Oswin slowly turned", "Oswin, grey with ash, walked", "Oswin and Ilse walked"
      const acting = new RegExp(`\\b${name}\\b(?:,[^,.;:!?"“”]{1,40},)?(?:\\s+and\\s+(\\S+))?(?:\\s+\\w+ly)?\\s+(\\w+)`, 'i');
      // "said Oswin", but not "asked Oswin's friends"
      const spoken = new RegExp(`${speechVerbs.source}\\s+${name}\\b(?!['’]s)`, 'i');
      const hit = parts.find((s) => {
        if (notActing.test(s.text)) return false;
        const match = acting.exec(s.text);
        // The other subject must be a name: "Oswin and Ilse walked", not "left Oswin and then went".
        const verb = match && (!match[1] || /^\p{Lu}/u.test(match[1])) ? match[2].toLowerCase() : undefined;
        return (verb !== undefined && actionVerbs.has(verb)) || spoken.test(s.text);
      });
      if (hit) {
        const deathFact = character.facts.find((f) => /\b(died|dead|killed|drowned|murdered|death)\b/i.test(f.text));
        hits.push({
          severity: 'P1',
          kind: 'dead_character_active',
          episode,
          title: `${character.name} acts after their death`,
          rationale: `The canon has ${character.name} ${typeof status === 'string' ? status : 'dead'}${deathFact ? ` ("${deathFact.text}")` : ''}, yet the passage has them act or speak: ${quote(hit.text)}.`,
          refs: [character.id, ...(deathFact ? [deathFact.id] : [])],
        });
      }
    }

    const attributes = canonAttributes(character);
    if (attributes.size > 0) {
      // "Ilse's eyes were blue", but not "red from the smoke" or "grey with ash": a passing state, not the colour
      const possessive = new RegExp(`\\b${name}['’]s\\s+(\\w+)\\s+(?:is|are|was|were|had been|looked)\\s+(?:\\w+ly\\s+)?([\\w-]+)(?![\\w-])(?!\\s+(?:with|from)\\b)`, 'gi');
      const adjective = new RegExp(`\\b${name}['’]s\\s+([\\w-]+)\\s+(eyes|hair)\\b`, 'gi');
      const hyphenated = new RegExp(`\\b([\\w]+)-(eyed|haired)\\s+${name}\\b`, 'gi');
      // "Crowe had bright green eyes", but not "Ilse had seen grey hair"
      const having = new RegExp(`\\b${name}\\s+(?:had|has)\\s+(?:(?:the same|${looks})\\s+)?([\\w-]+)\\s+(eyes|hair)\\b`, 'gi');
      // "Maud, aged 45,", "Ilse was twenty-six that winter", but not "Ilse was one of them"
      const age = new RegExp(
        `\\b${name}(?:,\\s*(?:aged\\s+)?|\\s+(?:was|is)\\s+(?:now\\s+|just\\s+|only\\s+|barely\\s+)?)${ageNumber}(?=\\s*years?[-\\s]old\\b|\\s+years\\s+of\\s+age\\b|\\s*[,.;:!?]|\\s*$|\\s+(?:that|this)\\s+(?:year|winter|spring|summer|autumn))`,
        'gi',
      );
      const agedBefore = new RegExp(`\\b${ageNumber}[-\\s]years?[-\\s]old\\s+${name}\\b`, 'gi');
      const titled = new RegExp(`\\b(${[...titles].join('|')})\\s+${namePattern({ ...character, name: character.name, aliases: character.aliases.filter((a) => !/^the\s/i.test(a)) })}\\b`, 'gi');
      const statements: { attribute: string; value: string; sentence: string }[] = [];
      for (const s of parts) {
        for (const m of s.text.matchAll(possessive)) statements.push({ attribute: normaliseAttribute(m[1]), value: m[2].toLowerCase(), sentence: s.text });
        for (const m of s.text.matchAll(adjective)) statements.push({ attribute: normaliseAttribute(m[2]), value: m[1].toLowerCase(), sentence: s.text });
        for (const m of s.text.matchAll(hyphenated)) statements.push({ attribute: m[2].toLowerCase() === 'eyed' ? 'eyes' : 'hair', value: m[1].toLowerCase(), sentence: s.text });
        for (const m of s.text.matchAll(having)) statements.push({ attribute: normaliseAttribute(m[2]), value: m[1].toLowerCase(), sentence: s.text });
        for (const m of s.text.matchAll(age)) {
          if (!pastAge.test(s.text.slice(m.index + m[0].length))) statements.push({ attribute: 'age', value: m[1].toLowerCase(), sentence: s.text });
        }
        for (const m of s.text.matchAll(agedBefore)) statements.push({ attribute: 'age', value: m[1].toLowerCase(), sentence: s.text });
        for (const m of s.text.matchAll(titled)) statements.push({ attribute: 'title', value: m[1].toLowerCase(), sentence: s.text });
      }
      const reported = new Set<string>();
      for (const st of statements) {
        const canon = attributes.get(st.attribute);
        if (!canon || reported.has(st.attribute) || !differs(st.attribute, canon.value, st.value)) continue;
        reported.add(st.attribute);
        const label = st.attribute === 'eyes' ? 'eye colour' : st.attribute === 'hair' ? 'hair colour' : st.attribute;
        hits.push({
          severity: 'P2',
          kind: 'attribute_contradiction',
          episode,
          title: `${character.name}'s ${label} contradicts the canon`,
          rationale: `The canon gives ${character.name}'s ${st.attribute} as "${canon.value}"; the passage says "${st.value}": ${quote(st.sentence)}.`,
          refs: [...new Set([character.id, canon.ref])],
        });
      }
    }
  }

  if (locations.length >= 2 && characters.length > 0) {
    const locationFinder = new MentionFinder(locations.flatMap((l) => namesOf(l).map((text) => ({ entityId: l.id, text }))));
    const characterFinder = new MentionFinder(characters.flatMap((c) => namesOf(c).map((text) => ({ entityId: c.id, text }))));
    // Each placement ("in Harrowgate") belongs to the character named nearest before it in the sentence (else the
    // first after it); in a sentence naming nobody, "he" or "she" is the one character the previous sentence named.
    const placementsOf = new Map<string, { location: string; sentence: Sentence }[]>();
    let previous: string[] = [];
    for (const s of parts) {
      const people = characterFinder.find(s.text);
      const named = [...new Set(people.map((p) => p.entityId))];
      const carried = named.length === 0 && previous.length === 1 && pronoun.test(s.text) ? previous[0] : undefined;
      if (!elsewhere.test(s.text)) {
        for (const found of locationFinder.find(s.text)) {
          const before = s.text.slice(0, found.column - 1);
          if (!placing.test(before) || pointing.test(before)) continue;
          const nearest = people.filter((p) => p.column < found.column).at(-1);
          const who = nearest?.entityId ?? people.find((p) => p.column > found.column)?.entityId ?? carried;
          if (who) placementsOf.set(who, [...(placementsOf.get(who) ?? []), { location: found.entityId, sentence: s }]);
        }
      }
      if (named.length > 0) previous = named;
    }
    for (const character of characters) {
      const placements = placementsOf.get(character.id) ?? [];
      const clash = placements.find((a, i) =>
        placements.slice(i + 1).some((b) => {
          if (b.location === a.location) return false;
          if (b.sentence.index === a.sentence.index) return !movement.test(b.sentence.text) && !/\bor\b/.test(b.sentence.text);
          return simultaneous.test(b.sentence.text) && !movement.test(b.sentence.text);
        }),
      );
      if (clash) {
        const other = placements.find((b) => b.location !== clash.location && (b.sentence.index === clash.sentence.index || simultaneous.test(b.sentence.text)))!;
        const label = (id: string) => locations.find((l) => l.id === id)!.name;
        hits.push({
          severity: 'P2',
          kind: 'location_conflict',
          episode,
          title: `${character.name} is in two places at once`,
          rationale: `The passage places ${character.name} at ${label(clash.location)} and at ${label(other.location)} at the same time: ${quote(other.sentence.text)}.`,
          refs: [character.id, clash.location, other.location],
        });
      }
    }
  }
  return hits;
}
