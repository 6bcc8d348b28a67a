// A generated canon bundle with every feature of the format in use, written the way the exporter writes one (entities
// by key, state keys sorted, spans in story order, empty fields left out), so an export of it must equal it.
import { prng } from '../support/prng.ts';

const types = ['character', 'location', 'object', 'event', 'rule', 'promise'] as const;
const names: Record<(typeof types)[number], string[]> = {
  character: ['Mara Voss', 'Ilse Brand', 'Tomas Reed', 'Orrin Hale'],
  location: ['Gull Point', 'the Saltworks', 'Harrow Gate', 'the Drowned Chapel'],
  object: ['the Heron', 'the Brass Key', 'the Tide Chart', 'the Lantern'],
  event: ['the Flood of Nine', 'the Wreck', 'the Trial', 'the Burning'],
  rule: ['No magic at sea', 'Salt breaks spells', 'The dead stay down', 'Oaths bind heirs'],
  promise: ["Mara's oath", 'The debt to Orrin', 'The return of the Heron', "The map's secret"],
};
const kinds = ['sibling_of', 'captains', 'lives_at', 'owes', 'fears', 'haunts'];

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const sorted = (value: Record<string, unknown>) => Object.fromEntries(Object.entries(value).sort(([a], [b]) => byText(a, b)));

/** The bundle, under the project name `name`. */
export function generatedBundle(name = 'The Glass Orchard — Été', seed = 14): any {
  const random = prng(seed);
  const chapterIds = ['ch-01', 'ch-02', 'ch-03', 'ch-04', 'ch-04b', 'ch-05', 'ch-06', 'ch-07', 'ch-08'];
  // ch-04b sits between ch-04 and ch-05, as a chapter inserted later does.
  const ordinalOf = (id: string) => (id === 'ch-04b' ? 45 : Number(id.slice(3)) * 10);

  const entities = types.flatMap((type, t) =>
    names[type].map((entityName, i) => {
      const key = `${type}-${i}`;
      const status = i === 3 ? 'suggested' : 'approved';
      const other = status === 'approved' ? 'suggested' : 'approved';
      const entity: any = { key, type, name: entityName };
      if (i % 2 === 0) entity.aliases = [`${entityName.split(' ').pop()} ${t}${i}`, `${key.toUpperCase()}`];
      if (i !== 1) {
        entity.state = sorted({
          status: 'alive', age: 20 + t * 4 + i, unknown: null,
          traits: { brave: i % 2 === 0, scars: [t, 'left cheek', null] }, weight: Math.round(random() * 1e6) / 1e3,
        });
      }
      if (i === 0 || i === 3) {
        entity.stateChanges = [
          { until: 'ch-03', state: sorted({ location: 'Harrow Gate' }) },
          { from: 'ch-03', until: 'ch-06', state: sorted({ location: 'the Saltworks', mood: 'grim' }) },
          { from: 'ch-04b', until: 'ch-05', state: sorted({ holding: 'the Brass Key' }) },
          { from: 'ch-06', state: sorted({ status: 'dead', died_in: 'ch-06' }) },
        ];
      } else if (i === 2) {
        entity.stateChanges = [{ from: 'ch-07', state: { status: 'sunk' } }];
      }
      entity.facts = [
        `${entityName} is part of the canon.`,
        { text: `${entityName} holds the key.`, from: 'ch-02', until: 'ch-05', status },
        { text: `${entityName} may be a spy.`, status: other },
        `${entityName} was first named in the ledger.`,
        ...(i === 0 ? [{ text: `${entityName} is dead.`, from: 'ch-06', status }, { text: `${entityName} was young once.`, until: 'ch-03', status: other }] : []),
      ];
      entity.status = status;
      if (i % 2 === 0) entity.confidence = Math.round(random() * 1e6) / 1e6;
      return entity;
    }),
  );
  entities.sort((a, b) => byText(a.key, b.key));
  const keys = entities.map((e) => e.key);

  const seen = new Set<string>();
  const relationships: any[] = [];
  while (relationships.length < 30) {
    const from = keys[Math.floor(random() * keys.length)];
    const to = keys[Math.floor(random() * keys.length)];
    const kind = kinds[Math.floor(random() * kinds.length)];
    if (from === to || seen.has(`${from}|${to}|${kind}`)) continue;
    seen.add(`${from}|${to}|${kind}`);
    const weight = [1, 0.5, 2.25, Math.round(random() * 1e4) / 1e4][relationships.length % 4];
    relationships.push({ from, to, kind, weight });
  }
  relationships.sort((a, b) => byText(a.from, b.from) || byText(a.to, b.to) || byText(a.kind, b.kind));

  const chapters = chapterIds.map((id, n) => {
    const chapter: any = { id };
    if (id !== 'ch-05') chapter.title = `Chapter ${id.slice(3)}`;
    chapter.ordinal = ordinalOf(id);
    if (id !== 'ch-08') {
      const cast = [names.character[n % 4], names.location[n % 4], names.object[(n + 1) % 4]];
      chapter.text = [`${cast[0]} walked to ${cast[1]}.`, '', `There, ${cast[0]} found ${cast[2]} in the dark.`, `"Not again," said ${names.character[(n + 1) % 4]}.`].join('\n');
    }
    return chapter;
  });

  const timeline = chapterIds
    .filter((_, n) => n % 2 === 0)
    .map((chapter, n) => ({
      chapter,
      beats: [
        { summary: `${names.character[n % 4]} arrives.`, entities: [`character-${n % 4}`, `location-${n % 4}`] },
        { summary: 'A storm passes.' },
      ],
    }));

  return {
    project: { name, description: 'A generated canon with every feature of the bundle in use.' },
    entities,
    relationships,
    chapters,
    timeline,
  };
}
