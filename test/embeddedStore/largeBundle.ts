// A generated canon bundle of the size issue 15 names (20,000 entities by default): every entity with an alias,
// two facts and a state, a relationship each, and chapters whose prose names some of them, so that an import writes
// every kind of row (entities, facts with their provenance, relationships, chapters, mentions, beats).
import { prng } from '../support/prng.ts';

const syllables = ['ka', 'ri', 'mo', 'sel', 'dan', 'vy', 'thor', 'el', 'quin', 'bra', 'los', 'fen', 'ut', 'zor', 'ai', 'wen'];
const common = 'the a and of to in was she he it that with on at for had by from they said not but sea tide night storm salt rope'.split(' ');

/** A name no other index gives: the index in base 16 spelled with syllables. */
function nameOf(i: number): string {
  let n = i + 16;
  let word = '';
  while (n > 0) {
    word += syllables[n % 16];
    n = Math.floor(n / 16);
  }
  return word.charAt(0).toUpperCase() + word.slice(1);
}

export function largeBundle(options: { entities?: number; chapters?: number; wordsPerChapter?: number; name?: string } = {}) {
  const { entities: count = 20_000, chapters: chapterCount = 40, wordsPerChapter = 1_500, name = 'A very large saga' } = options;
  const random = prng(15_2026);
  const entities = Array.from({ length: count }, (_, i) => {
    const first = nameOf(i);
    return {
      key: `e${i}`,
      type: i % 10 === 0 ? 'location' : 'character',
      name: `${first} Vale${i}`,
      aliases: [first],
      state: { status: 'alive', rank: i % 3 === 0 ? 'captain' : 'deckhand' },
      facts: [`${first} was born in the year ${1000 + (i % 500)}.`, `${first} keeps a ${common[i % common.length]} token.`],
    };
  });
  const chapterId = (n: number) => `ch-${String(n).padStart(3, '0')}`;
  const chapters = Array.from({ length: chapterCount }, (_, c) => {
    const lines: string[] = [];
    let line: string[] = [];
    for (let w = 0; w < wordsPerChapter; w++) {
      line.push(random() < 0.02 ? entities[Math.floor(random() * count)].aliases[0] : common[Math.floor(random() * common.length)]);
      if (line.length === 15) {
        lines.push(`${line.join(' ')}.`);
        line = [];
      }
    }
    if (line.length) lines.push(`${line.join(' ')}.`);
    return { id: chapterId(c + 1), title: `Chapter ${c + 1}`, ordinal: c + 1, text: lines.join('\n') };
  });
  return {
    project: { name, description: `${count} generated entities` },
    entities,
    relationships: entities.slice(1).map((e, i) => ({ from: e.key, to: entities[i].key, kind: 'knows', weight: 1 })),
    chapters,
    timeline: chapters.slice(0, 10).map((c, i) => ({ chapter: c.id, beats: [{ summary: `Beat of ${c.title}`, entities: [entities[i].key] }] })),
  };
}
