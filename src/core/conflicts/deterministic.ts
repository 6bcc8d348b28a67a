// Checks that need no model: a dead character acting or speaking, a stated attribute that contradicts the canon
// (eye or hair colour, age, title), and one character placed in two locations at once. They run first, on every
// check, and their hits stand whatever the model answers.
import { MentionFinder } from '../mentionFinder.ts';
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
const titles = new Set('captain admiral lord lady king queen doctor dr sergeant commander general prince princess sir professor duke duchess baron mayor'.split(' '));
const movement =
  /\b(went|walked|rode|sailed|travell?ed|arrived|returned|left|flew|drove|ran|headed|reached|moved|hurried|rowed|later|afterwards|the next (day|morning)|hours later|that evening)\b/i;
const simultaneous = /\b(at the same (time|moment)|meanwhile|simultaneously|at that (very )?(moment|instant)|at once)\b/i;

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

function differs(attribute: string, canon: string, stated: string): boolean {
  if (attribute === 'eyes' || attribute === 'hair') {
    const canonColours = canon.split(/[\s-]+/).filter((w) => colours.has(w));
    return colours.has(stated) && canonColours.length > 0 && !canonColours.includes(stated) && !(canonColours.includes('grey') && stated === 'gray');
  }
  if (attribute === 'age') return /^\d+$/.test(stated) && /^\d+$/.test(canon) && stated !== canon;
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

    if (isDead) {
      const acting = new RegExp(`\\b${name}\\b(?:\\s+\\w+ly)?\\s+(\\w+)`, 'i');
      const spoken = new RegExp(`${speechVerbs.source}\\s+${name}\\b`, 'i');
      const hit = parts.find((s) => {
        if (notActing.test(s.text)) return false;
        const verb = acting.exec(s.text)?.[1]?.toLowerCase();
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
      const possessive = new RegExp(`\\b${name}['’]s\\s+(\\w+)\\s+(?:is|are|was|were|had been|looked)\\s+(?:\\w+ly\\s+)?([\\w-]+)`, 'gi');
      const adjective = new RegExp(`\\b${name}['’]s\\s+([\\w-]+)\\s+(eyes|hair)\\b`, 'gi');
      const hyphenated = new RegExp(`\\b([\\w]+)-(eyed|haired)\\s+${name}\\b`, 'gi');
      const age = new RegExp(`\\b${name}(?:,\\s*(?:aged\\s+)?|\\s+was\\s+|\\s+is\\s+)(\\d{1,3})\\b(?:\\s*years?\\s*old)?`, 'gi');
      const titled = new RegExp(`\\b(${[...titles].join('|')})\\s+${namePattern({ ...character, name: character.name, aliases: character.aliases.filter((a) => !/^the\s/i.test(a)) })}\\b`, 'gi');
      const statements: { attribute: string; value: string; sentence: string }[] = [];
      for (const s of parts) {
        for (const m of s.text.matchAll(possessive)) statements.push({ attribute: normaliseAttribute(m[1]), value: m[2].toLowerCase(), sentence: s.text });
        for (const m of s.text.matchAll(adjective)) statements.push({ attribute: normaliseAttribute(m[2]), value: m[1].toLowerCase(), sentence: s.text });
        for (const m of s.text.matchAll(hyphenated)) statements.push({ attribute: m[2].toLowerCase() === 'eyed' ? 'eyes' : 'hair', value: m[1].toLowerCase(), sentence: s.text });
        for (const m of s.text.matchAll(age)) statements.push({ attribute: 'age', value: m[1], sentence: s.text });
        for (const m of s.text.matchAll(titled)) statements.push({ attribute: 'title', value: m[1].toLowerCase(), sentence: s.text });
      }
      const reported = new Set<string>();
      for (const st of statements) {
        const canon = attributes.get(st.attribute);
        if (!canon || reported.has(st.attribute) || !differs(st.attribute, canon.value, st.value)) continue;
        reported.add(st.attribute);
        hits.push({
          severity: 'P2',
          kind: 'attribute_contradiction',
          episode,
          title: `${character.name}'s ${st.attribute} contradicts the canon`,
          rationale: `The canon gives ${character.name}'s ${st.attribute} as "${canon.value}"; the passage says "${st.value}": ${quote(st.sentence)}.`,
          refs: [...new Set([character.id, canon.ref])],
        });
      }
    }
  }

  if (locations.length >= 2) {
    const locationFinder = new MentionFinder(locations.flatMap((l) => namesOf(l).map((text) => ({ entityId: l.id, text }))));
    for (const character of characters) {
      const name = new RegExp(`\\b${namePattern(character)}\\b`);
      const placements: { location: string; sentence: Sentence }[] = [];
      for (const s of parts) {
        if (!name.test(s.text)) continue;
        for (const found of locationFinder.find(s.text)) {
          const before = s.text.slice(0, found.column - 1);
          if (/\b(at|in|on|inside|within|aboard)\s+(the\s+)?$/i.test(before)) placements.push({ location: found.entityId, sentence: s });
        }
      }
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
