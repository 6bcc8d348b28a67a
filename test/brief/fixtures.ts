// A canon for the brief: story time on state and facts, kin, a neighbour, a rule, a promise, beats, and a crowd of
// generated characters (fixed seed) so that budgets bite.
import { prng } from '../support/prng.ts';

function crowd() {
  const random = prng(2727);
  return Array.from({ length: 40 }, (_, i) => ({
    key: `crowd-${i}`,
    type: 'character',
    name: `Sailor${String.fromCharCode(65 + (i % 26))}${i} Brine`,
    facts: Array.from({ length: 1 + Math.floor(random() * 8) }, (_, j) => `Sailor ${i} has told ${j + 1} tall tales about the ${['whale', 'storm', 'reef', 'ghost'][j % 4]} of the northern banks, each longer than the last.`),
  }));
}

/** The generated characters' names. */
export const crowdNames = () => crowd().map((c) => c.name);

export function harbourBundle(): any {
  const sailors = crowd();
  return {
    project: { name: 'The Harbour Brief' },
    entities: [
      {
        key: 'mara', type: 'character', name: 'Mara Voss', aliases: ['Mara', 'the Captain'],
        state: { status: 'alive', eyes: 'green' },
        stateChanges: [{ from: 'ch-03', state: { location: 'at sea' } }],
        facts: [
          "Mara's eyes are green.",
          { text: 'Mara captains the Heron.', from: 'ch-02' },
          { text: 'Mara is a deckhand on the ferry.', until: 'ch-02' },
          { text: 'Mara smuggles brandy.', status: 'suggested' },
        ],
      },
      {
        key: 'keth', type: 'character', name: 'Keth Voss', aliases: ['Keth'],
        state: { status: 'alive' },
        stateChanges: [{ from: 'ch-02', state: { status: 'dead' } }],
        facts: ['Keth drowned at Gull Point.'],
      },
      { key: 'heron', type: 'object', name: 'the Heron', aliases: ['Heron'], facts: ['The Heron is a two-masted lugger.'] },
      { key: 'gull-point', type: 'location', name: 'Gull Point', facts: ['Gull Point lighthouse has been dark for ten years.'] },
      { key: 'ada', type: 'character', name: 'Ada Quill', aliases: ['Ada'], facts: ['Ada keeps the inn.'] },
      { key: 'jon', type: 'character', name: 'Jon Rook', aliases: ['Jon'], status: 'suggested', facts: ['Jon is a spy.'] },
      { key: 'no-magic', type: 'rule', name: 'No magic at sea', facts: ['Salt water breaks every spell.'] },
      {
        key: 'oath', type: 'promise', name: "Mara's oath", facts: ['Mara swore to find who sank the Heron\'s sister ship.'],
        promise: { set_up_in: 'ch-01', involves: ['mara', 'heron'] },
      },
      { key: 'debt', type: 'promise', name: "Ada's debt", facts: ['Ada owes the smugglers a boat.'], promise: { set_up_in: 'ch-02', paid_off_in: 'ch-04', involves: ['ada'] } },
      { key: 'feud', type: 'promise', name: 'The Voss feud', promise: { set_up_in: 'ch-01', involves: ['mara'], status: 'dropped' } },
      ...sailors,
    ],
    relationships: [
      { from: 'keth', to: 'mara', kind: 'brother_of' },
      { from: 'mara', to: 'heron', kind: 'captains' },
      { from: 'mara', to: 'oath', kind: 'swore' },
      ...sailors.slice(0, 20).map((c) => ({ from: c.key, to: 'mara', kind: 'sails_with' })),
    ],
    chapters: [
      { id: 'ch-01', ordinal: 1, title: 'Low Tide', text: 'Mara Voss stood at the rail.' },
      { id: 'ch-02', ordinal: 2, title: 'The Drowning', text: 'Keth went over the side at Gull Point.' },
      { id: 'ch-03', ordinal: 3, title: 'After', text: 'Mara sailed alone.' },
      { id: 'ch-04', ordinal: 4, title: 'Landfall', text: 'Ada lit the lamps.' },
    ],
    timeline: [
      { chapter: 'ch-01', beats: [{ summary: 'Mara and Keth sail past the dark lighthouse.', entities: ['mara', 'keth'] }] },
      { chapter: 'ch-02', beats: [{ summary: 'Keth drowns at Gull Point in a storm.', entities: ['keth', 'gull-point'] }] },
      { chapter: 'ch-03', beats: [{ summary: 'Mara takes the Heron out alone.', entities: ['mara', 'heron'] }] },
    ],
  };
}

