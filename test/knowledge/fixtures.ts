// A canon for who knows what, when: a secret one character learns at a line of a chapter and another later, a fact
// one character always knew, and a secret nobody knows yet; a promise paid off before it is set up, and one paid late.
export function secretsBundle(name = 'The Spy at the Inn'): any {
  return {
    project: { name },
    entities: [
      { key: 'mara', type: 'character', name: 'Mara Voss', aliases: ['Mara'], facts: ['Mara captains the Heron.'] },
      { key: 'ada', type: 'character', name: 'Ada Quill', aliases: ['Ada'], facts: ['Ada keeps the inn.'] },
      { key: 'seal', type: 'promise', name: 'The broken seal', facts: ['Someone broke the seal of the letter.'], promise: { set_up_in: 'ch-03', paid_off_in: 'ch-02', involves: ['ada'] } },
      { key: 'debt', type: 'promise', name: "Ada's debt", facts: ['Ada owes the smugglers a boat.'], promise: { set_up_in: 'ch-01', paid_off_in: 'ch-04', involves: ['ada'] } },
      {
        key: 'jon', type: 'character', name: 'Jon Rook', aliases: ['Jon'],
        facts: [
          'Jon is a ferryman.',
          { text: 'Jon is a spy for the Crown.', secret: true, known_by: [{ entity: 'ada', from: 'ch-02', line: 2 }, { entity: 'mara', from: 'ch-04' }] },
          { text: 'Jon was born in Calais.', known_by: [{ entity: 'jon' }] },
          { text: 'Jon will betray the smugglers.', secret: true },
        ],
      },
    ],
    chapters: [
      { id: 'ch-01', ordinal: 1, title: 'The Inn', text: 'Ada poured the ale.\nJon sat by the fire.' },
      { id: 'ch-02', ordinal: 2, title: 'The Letter', text: 'Ada found the letter in his coat.\nShe read it twice, and burned it.\n"Jon is a spy for the Crown," Ada whispered to the cat.' },
      { id: 'ch-03', ordinal: 3, title: 'Fog', text: 'Mara brought the Heron in through the fog.' },
      { id: 'ch-04', ordinal: 4, title: 'The Quarrel', text: 'Ada told Mara everything.' },
    ],
  };
}
