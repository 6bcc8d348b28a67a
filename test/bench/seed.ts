// Seeds the bench project straight through Prisma: 5,000 entities with names, aliases and approved facts, 100,000
// mentions spread over 80 chapters with a long tail (a few protagonists named thousands of times, most entities a
// handful), and some pending conflicts. Deterministic, so every run measures the same data. The big tables go in as
// one INSERT … jsonb_to_recordset per 20,000 rows: createMany through the driver adapter took close to 1 ms a row here.
// seedMany writes many projects in those same few statements (the write bench's 200 small projects), and can leave out
// the triggers and foreign-key checks, which cost most of the time on the embedded store.
import type { Prisma, PrismaClient } from '../../src/generated/prisma/client.ts';
import { mentionSortKey, nameText, refreshSearchText } from '../../src/core/canon/canon.ts';
import { indexChapterWords } from '../../src/core/ingest/chapterWords.ts';
import { sha256 } from '../../src/core/ingest/mentions.ts';
import { newId } from '../../src/ids.ts';
import { prng } from '../support/prng.ts';

export const seedSize = { entities: 5_000, mentions: 100_000, chapters: 80, conflicts: 150, words: 150_000 };
export type SeedSize = typeof seedSize;

export type Seeded = { projectId: string; names: string[]; entityIds: string[] };

const onsets = ['b', 'br', 'c', 'd', 'dr', 'f', 'g', 'h', 'k', 'kh', 'l', 'm', 'n', 'p', 'r', 's', 'sh', 't', 'th', 'v', 'w', 'z'];
const vowels = ['a', 'e', 'i', 'o', 'u', 'ae', 'ei', 'ia', 'y'];
const codas = ['', '', 'n', 'r', 's', 'l', 'th', 'x', 'ss', 'nd', 'rk'];
const titles = ['the Captain', 'the Elder', 'the Widow', 'the Smith', 'the Ferryman', 'the Grey', 'the Younger', 'the Oathbreaker', 'the Healer', 'the Archivist'];
const placeKinds = ['Harbour', 'Keep', 'Marsh', 'Reach', 'Hollow', 'Crossing', 'Spire', 'Fen', 'Gate', 'Market'];
const objectKinds = ['Key', 'Blade', 'Compass', 'Lantern', 'Ledger', 'Crown', 'Map', 'Ring', 'Bell', 'Mask'];
const materials = ['Amber', 'Iron', 'Silver', 'Salt', 'Bone', 'Glass', 'Copper', 'Ash'];
const eventKinds = ['Flood', 'Siege', 'Wedding', 'Trial', 'Fire', 'Eclipse', 'Treaty', 'Plague'];
const colours = ['green', 'grey', 'amber', 'blue', 'black', 'violet'];
const trades = ['smuggler', 'cartographer', 'harbourmaster', 'priest', 'soldier', 'thief', 'scholar', 'merchant', 'sailor', 'herbalist'];
const adjectives = ['cursed', 'forbidden', 'ancient', 'hidden', 'broken', 'sacred', 'drowned', 'stolen'];

export const factWords = [...colours, ...trades, ...adjectives, 'eyes', 'born', 'sworn', 'sister', 'brother', 'debt', 'harbour'];

/**
 * Runs `write`; without `triggers`, with no trigger and no foreign-key check (session_replication_role = replica, for
 * its transaction only).
 */
async function writing(prisma: PrismaClient, triggers: boolean, write: (db: Prisma.TransactionClient) => Promise<unknown>): Promise<void> {
  if (triggers) {
    await write(prisma);
    return;
  }
  await prisma.$transaction(async (tx) => {
    await tx.$executeRawUnsafe('SET LOCAL session_replication_role = replica');
    await write(tx);
  }, { maxWait: 60_000, timeout: 600_000 });
}

/**
 * Inserts rows (objects keyed by column) in a few statements; `columns` gives each column's SQL type. The rows go as
 * one json parameter (json_to_recordset reads it without first building a jsonb of it).
 */
async function insertRows(prisma: PrismaClient, table: string, columns: Record<string, string>, rows: object[], triggers = true): Promise<void> {
  const names = Object.keys(columns).map((c) => `"${c}"`).join(', ');
  const definitions = Object.entries(columns).map(([c, type]) => `"${c}" ${type}`).join(', ');
  for (let i = 0; i < rows.length; i += 20_000) {
    await writing(prisma, triggers, (db) => db.$executeRawUnsafe(
      `INSERT INTO "${table}" (${names}) SELECT ${names} FROM json_to_recordset($1::json) AS x(${definitions})`,
      JSON.stringify(rows.slice(i, i + 20_000)),
    ));
  }
}

/** Drops the indexes of `tables` that back no constraint; returns their definitions, to create them again. */
async function dropIndexes(prisma: PrismaClient, tables: string[]): Promise<string[]> {
  const indexes = await prisma.$queryRawUnsafe<{ name: string; definition: string }[]>(
    `SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
      WHERE i.schemaname = current_schema() AND i.tablename = ANY($1::text[])
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = to_regclass(quote_ident(i.indexname)))`,
    tables,
  );
  for (const index of indexes) await prisma.$executeRawUnsafe(`DROP INDEX "${index.name}"`);
  return indexes.map((i) => i.definition);
}

const filler = ['the', 'tide', 'turned', 'and', 'she', 'walked', 'along', 'harbour', 'wall', 'while', 'rain', 'fell', 'on', 'old', 'roofs', 'of', 'town', 'he', 'said', 'nothing', 'for', 'a', 'long', 'time', 'then', 'lantern', 'went', 'out'];

/**
 * Prose for the chapters, `words` in all, lines of about 14 words where one word in twenty starts an entity's name:
 * what an author's new entity or rename has its mentions looked for in (the write bench).
 */
function chapterTexts(chapters: number, names: string[], words: number, random: () => number): string[] {
  const perChapter = Math.ceil(words / chapters);
  return Array.from({ length: chapters }, () => {
    const lines: string[] = [];
    let line: string[] = [];
    for (let w = 0; w < perChapter; w++) {
      line.push(random() < 0.05 ? names[Math.floor(random() * names.length)] : filler[Math.floor(random() * filler.length)]);
      if (line.length >= 14) {
        lines.push(`${line.join(' ')}.`);
        line = [];
      }
    }
    if (line.length) lines.push(`${line.join(' ')}.`);
    return lines.join('\n');
  });
}

type Rows = {
  project: { id: string; accountId: string; name: string; description: string; updatedAt: Date };
  chapters: { id: string; projectId: string; externalId: string; title: string; ordinal: number; text: string; contentHash: string }[];
  entities: Prisma.EntityCreateManyInput[];
  facts: Prisma.FactCreateManyInput[];
  mentions: Prisma.MentionCreateManyInput[];
  conflicts: { id: string; projectId: string; severity: string; kind: string; title: string; rationale: string; refs: string[]; status: 'pending' | 'resolved' }[];
  conflictEntities: { conflictId: string; entityId: string }[];
};

/** `analyze`: false where the caller seeds many projects and analyses once at the end. */
export async function seed(prisma: PrismaClient, accountId: string, size: SeedSize = seedSize, analyze = true): Promise<Seeded> {
  const [seeded] = await seedMany(prisma, [accountId], size, { analyze });
  return seeded;
}

/**
 * A project of `size` for each account, all written in the same few statements. `triggers: false` leaves out the
 * triggers and foreign-key checks (the rows are consistent as made): nothing is queued for embedding and the canon
 * versions stay 0, which suits a gateway without embeddings (the write bench); with them, 200 small projects took
 * minutes on the embedded store.
 */
export async function seedMany(prisma: PrismaClient, accountIds: string[], size: SeedSize, { analyze = true, triggers = true } = {}): Promise<Seeded[]> {
  const made = accountIds.map((accountId) => seedRows(accountId, size));
  // Without triggers the database is the caller's alone (the write bench's): the secondary indexes of the big tables go
  // while the rows go in and are built again at the end, a sort each instead of a GIN or B-tree insert per row.
  const rebuild = triggers ? [] : await dropIndexes(prisma, ['Entity', 'Mention']);
  const all = <K extends Exclude<keyof Rows, 'project'>>(key: K) => made.flatMap((m) => m.rows[key] as object[]) as Rows[K];
  await insertRows(prisma, 'Project', { id: 'text', accountId: 'text', name: 'text', description: 'text', updatedAt: 'timestamp(3)' }, made.map((m) => m.rows.project), triggers);
  await insertRows(prisma, 'Chapter', { id: 'text', projectId: 'text', externalId: 'text', title: 'text', ordinal: 'int', text: 'text', contentHash: 'text' }, all('chapters'), triggers);
  // The chapters' word index, as an import writes it: without it a new entity's mentions were looked up in an empty index.
  for (const m of made) await writing(prisma, triggers, (db) => indexChapterWords(db, m.rows.project.id, m.rows.chapters));
  await insertRows(prisma, 'Entity', {
    id: 'text', projectId: 'text', key: 'text', type: '"EntityType"', name: 'text', aliases: 'text[]', state: 'jsonb', baseState: 'jsonb',
    status: '"ApprovalStatus"', confidence: 'float8', nameText: 'text', updatedAt: 'timestamp(3)',
  }, all('entities'), triggers);
  await insertRows(prisma, 'Fact', {
    id: 'text', projectId: 'text', entityId: 'text', text: 'text', status: '"ApprovalStatus"', source: 'text',
  }, all('facts'), triggers);
  const entityIds = all('entities').map((e) => e.id!);
  // Without triggers, the canon-change and embedding triggers stay out of this too (their joins of the statement's old
  // and new rows grew with the square of the rows: 13 s for 2,500 entities on the embedded store).
  for (let i = 0; i < entityIds.length; i += 20_000) await writing(prisma, triggers, (db) => refreshSearchText(db, entityIds.slice(i, i + 20_000)));
  await insertRows(prisma, 'Mention', {
    id: 'text', projectId: 'text', entityId: 'text', chapterId: 'text', line: 'int', column: 'int', snippet: 'text', sortKey: 'text',
  }, all('mentions'), triggers);
  await insertRows(prisma, 'Conflict', {
    id: 'text', projectId: 'text', severity: 'text', kind: 'text', title: 'text', rationale: 'text', refs: 'text[]', status: '"ConflictStatus"',
  }, all('conflicts'), triggers);
  await insertRows(prisma, 'ConflictEntity', { conflictId: 'text', entityId: 'text' }, all('conflictEntities'), triggers);
  for (const definition of rebuild) await prisma.$executeRawUnsafe(definition);
  if (analyze) await prisma.$executeRawUnsafe('ANALYZE');
  return made.map((m) => m.seeded);
}

/** One project's rows: the same for every run (a fixed seed), whatever the account. */
function seedRows(accountId: string, size: SeedSize): { rows: Rows; seeded: Seeded } {
  const random = prng(20261122);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  const word = (syllables: number) => {
    let w = '';
    for (let i = 0; i < syllables; i++) w += pick(onsets) + pick(vowels);
    w += pick(codas);
    return w[0].toUpperCase() + w.slice(1);
  };

  const project = { id: newId('prj'), accountId, name: 'Bench: The Saltmarsh Cycle', description: 'seeded by npm run bench', updatedAt: new Date() };
  const projectId = project.id;

  const chapters = Array.from({ length: size.chapters }, (_, i) => ({
    id: newId('chp'),
    projectId,
    externalId: `ch-${String(i + 1).padStart(2, '0')}`,
    title: `Chapter ${i + 1}`,
    ordinal: i + 1,
    text: '',
    contentHash: '',
  }));

  const places: string[] = [];
  const entities: Prisma.EntityCreateManyInput[] = [];
  const facts: Prisma.FactCreateManyInput[] = [];
  const used = new Set<string>();
  for (let i = 0; i < size.entities; i++) {
    const roll = random();
    let type: Prisma.EntityCreateManyInput['type'];
    let name: string;
    let aliases: string[];
    if (roll < 0.5) {
      type = 'character';
      const first = word(1 + Math.floor(random() * 2));
      name = `${first} ${word(2)}`;
      aliases = random() < 0.7 ? [first, ...(random() < 0.4 ? [pick(titles)] : [])] : [];
    } else if (roll < 0.7) {
      type = 'location';
      const base = word(2);
      name = `${base} ${pick(placeKinds)}`;
      aliases = [base];
      places.push(name);
    } else if (roll < 0.85) {
      type = 'object';
      name = `the ${pick(materials)} ${pick(objectKinds)} of ${word(2)}`;
      aliases = random() < 0.5 ? [name.split(' of ')[0]] : [];
    } else if (roll < 0.93) {
      type = 'event';
      name = `the ${pick(eventKinds)} of ${word(2)}`;
      aliases = [];
    } else if (roll < 0.97) {
      type = 'rule';
      name = `${word(2)}'s Law`;
      aliases = [];
    } else {
      type = 'promise';
      name = `the Oath of ${word(2)}`;
      aliases = [];
    }
    if (used.has(name)) name = `${name} ${word(1)}`;
    used.add(name);
    const id = newId('ent');
    // No timed state: the latest state is the timeless one.
    const state = type === 'character' ? { status: random() < 0.85 ? 'alive' : 'dead', eyes: pick(colours), trade: pick(trades) } : {};
    entities.push({
      id,
      projectId,
      key: `e${i}`,
      type,
      name,
      aliases,
      state,
      baseState: state,
      status: random() < 0.8 ? 'approved' : 'suggested',
      confidence: random() < 0.7 ? Math.round(random() * 100) / 100 : null,
      nameText: nameText(name, aliases),
      updatedAt: new Date(),
    });
    const sentences = [
      `${name}'s eyes are ${pick(colours)}.`,
      `${name} was born in ${places.length ? pick(places) : 'the old harbour'}.`,
      `${name} works as a ${pick(trades)} and owes a ${pick(adjectives)} debt.`,
      `${name} is sworn to keep the ${pick(adjectives)} ${pick(objectKinds).toLowerCase()} hidden.`,
    ];
    const factCount = 1 + Math.floor(random() * 4);
    for (let f = 0; f < factCount; f++) {
      facts.push({ id: newId('fct'), projectId, entityId: id, text: sentences[f], status: random() < 0.75 ? 'approved' : 'suggested', source: 'import' });
    }
  }
  const texts = chapterTexts(chapters.length, entities.map((e) => e.name), size.words, random);
  chapters.forEach((c, i) => Object.assign(c, { text: texts[i], contentHash: sha256(texts[i]) }));

  // Long tail: every entity is named twice, the rest follow a Zipf-like law over a shuffled order.
  const order = entities.map((_, i) => i).sort(() => random() - 0.5);
  const weights = order.map((_, rank) => 1 / (rank + 1) ** 0.8);
  const total = weights.reduce((a, b) => a + b, 0);
  const spare = size.mentions - 2 * entities.length;
  const counts = new Array<number>(entities.length).fill(2);
  let assigned = 2 * entities.length;
  order.forEach((entityIndex, rank) => {
    const extra = Math.floor((weights[rank] / total) * spare);
    counts[entityIndex] += extra;
    assigned += extra;
  });
  for (let i = 0; assigned < size.mentions; i++, assigned++) counts[order[i % order.length]]++;

  const verbs = ['looked up at', 'spoke of', 'remembered', 'followed', 'argued with', 'waited for', 'cursed', 'found'];
  const mentions: Prisma.MentionCreateManyInput[] = [];
  for (let e = 0; e < entities.length; e++) {
    const entity = entities[e];
    for (let m = 0; m < counts[e]; m++) {
      const chapter = chapters[Math.floor(random() * chapters.length)];
      // (line, column) is unique per entity because m is folded into it.
      const line = 1 + (m % 400);
      const column = Math.floor(m / 400) * 97 + Math.floor(random() * 90);
      const id = newId('men');
      mentions.push({
        id,
        projectId,
        entityId: entity.id!,
        chapterId: chapter.id,
        line,
        column,
        snippet: `…the tide turned when she ${pick(verbs)} ${entity.name} near the ${pick(placeKinds).toLowerCase()}, and nobody…`,
        sortKey: mentionSortKey(chapter.ordinal, line, column, id),
      });
    }
  }

  const conflicts = Array.from({ length: size.conflicts }, (_, i) => ({
    id: newId('cfl'),
    projectId,
    severity: pick(['low', 'medium', 'high']),
    kind: 'contradiction',
    title: `Contradiction ${i + 1}`,
    rationale: 'seeded',
    refs: [],
    status: (random() < 0.7 ? 'pending' : 'resolved') as 'pending' | 'resolved',
  }));
  const conflictEntities = conflicts.flatMap((c) => {
    const a = Math.floor(random() * entities.length);
    const b = (a + 1 + Math.floor(random() * (entities.length - 1))) % entities.length;
    return [{ conflictId: c.id, entityId: entities[a].id! }, { conflictId: c.id, entityId: entities[b].id! }];
  });
  return {
    rows: { project, chapters, entities, facts, mentions, conflicts, conflictEntities },
    seeded: { projectId, names: entities.map((e) => e.name), entityIds: entities.map((e) => e.id!) },
  };
}
