// A small canon for the semantic search tests, worded so that the lexical and the semantic rankings disagree: the
// fake provider (test/support/fakeEmbeddings.ts) folds "swim", "sea", "deep" and "water" onto one concept, "afraid"
// and "fear" onto another, "strand" and "beach", "swore" and "oath" likewise.
export function seaBundle(name = 'The Saltmarsh Deeps') {
  return {
    project: { name, description: 'semantic search fixture' },
    entities: [
      { key: 'keth', type: 'character', name: 'Keth Voss', aliases: ['Keth'], facts: ['Keth never learned to swim.'] },
      { key: 'oren', type: 'character', name: 'Oren Hale', aliases: ['Oren'], facts: ['Oren swims the sea.'] },
      { key: 'tobin', type: 'character', name: 'Tobin Reed', aliases: ['Tobin'], facts: ['Tobin drew water from the deep well.'] },
      { key: 'ilse', type: 'character', name: 'Ilse Marr', aliases: ['Ilse'], facts: ['Ilse is afraid of the dark.'] },
      { key: 'mara', type: 'character', name: 'Mara Quell', aliases: ['Mara', 'the Captain'], facts: ['Mara keeps the lighthouse at Gull Point.'] },
      { key: 'oath', type: 'promise', name: "Mara's oath", aliases: [], facts: ['Mara swore on the strand to bring Keth home.'] },
      { key: 'harbour', type: 'location', name: 'Saltmarsh Harbour', aliases: ['the Harbour'], facts: ['Boats leave the harbour at dawn.'] },
      { key: 'bell', type: 'object', name: 'the Harbour Bell', aliases: [], facts: ['The bell rings under the harbour at night.'],
        status: 'suggested' },
    ],
  };
}

/** Approved facts and entities with a search text: the vectors the worker stores for the bundle. */
export const seaVectorCount = 8 + 7;
