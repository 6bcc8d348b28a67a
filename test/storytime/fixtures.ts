// A small canon with story time in use: a death at ch-30 as a timed state value, a voyage from ch-05 until ch-10, and
// facts that start, end or hold throughout.
export function drownedYearBundle(): any {
  return {
    project: { name: 'The Drowned Year' },
    entities: [
      {
        key: 'ilse', type: 'character', name: 'Ilse Marr', aliases: ['Ilse'],
        state: { status: 'alive', eyes: 'grey' },
        stateChanges: [{ from: 'ch-30', state: { status: 'dead' } }],
        facts: [
          'Ilse keeps the Gull Point light.',
          { text: 'Ilse is betrothed to Oren.', until: 'ch-10' },
          { text: 'Ilse drowned off Gull Point.', from: 'ch-30' },
          { text: 'Ilse may have a twin sister.', status: 'suggested' },
        ],
      },
      {
        key: 'oren', type: 'character', name: 'Oren Hale', aliases: ['Oren'],
        state: { status: 'alive' },
        stateChanges: [{ from: 'ch-05', until: 'ch-10', state: { location: 'at sea', mood: 'restless' } }],
        facts: ['Oren rows the ferry.'],
      },
      { key: 'gull-point', type: 'location', name: 'Gull Point', facts: ['Gull Point has a lighthouse.'] },
    ],
    relationships: [{ from: 'ilse', to: 'oren', kind: 'betrothed_to' }],
    chapters: [
      { id: 'ch-01', ordinal: 1, title: 'The Light', text: 'Ilse climbed the stair at Gull Point.' },
      { id: 'ch-05', ordinal: 5, title: 'The Ferry', text: 'Oren rowed out past Gull Point.' },
      { id: 'ch-10', ordinal: 10, title: 'Return', text: 'Oren came home.' },
      { id: 'ch-30', ordinal: 30, title: 'The Storm', text: 'The storm took Ilse off Gull Point.' },
      { id: 'ch-31', ordinal: 31, title: 'After', text: 'Oren kept the light alone.' },
    ],
  };
}

/** What recall's fact lists hold, as texts. */
export const texts = (facts: { text: string }[] | undefined) => (facts ?? []).map((f) => f.text).sort();
