// The part of the canon a passage touches: the entities it names (and the relatives of its characters, which it may
// name by a kin word alone) with their approved facts and state, the relationships among them, the project's rules
// and open promises, and recent beats. It is what the deterministic checks read and all that is sent to the model,
// so the prompt stays small however large the project is. Facts and state are those holding at the passage's chapter
// (story time), or after the last chapter when it names none. Names match as written, capitalised, or without their
// article ("Abbess" for "the Abbess").
import { Prisma, type PrismaClient } from '../../generated/prisma/client.ts';
import { rows, statement, type SqlClient } from '../../db/sql.ts';
import { MentionFinder } from '../ingest/mentionFinder.ts';
import { projectNames, type Derivation } from '../names/projectNames.ts';
import { placePoint } from '../canon/storyPoints.ts';
import { holdsAt, stateAt, storyOrder, timedValues, type TimedValue } from '../canon/storyTime.ts';
import { knowledgeOf, trackedFacts } from '../knowledge/knowledge.ts';
import { kinOfKind } from './reader/kin.ts';
import { homeKinds, titleSpellings } from './reader/lexicon.ts';
import { saysI } from './reader/references.ts';
import { canonPronouns, pronounsOf, type Pronouns } from './reader/pronouns.ts';

export type SliceEntity = {
  id: string;
  type: string;
  name: string;
  aliases: string[];
  state: Record<string, unknown>;
  facts: { id: string; text: string }[];
  /** the pronouns a character takes: stated in its state, implied by its names or relationships, or learned from the chapters */
  pronouns?: Pronouns;
};
export type CanonSlice = {
  entities: SliceEntity[];
  relationships: { id: string; from: string; to: string; kind: string }[];
  /**
   * the kinship relationships of the named characters' relatives, two steps further out than `relationships`: what
   * tells whether the graph gives someone any relative a kin word could mean (checks/kinship.ts); not sent to the model
   */
  kinAround: { id: string; from: string; to: string; kind: string }[];
  rules: SliceEntity[];
  promises: SliceEntity[];
  beats: { id: string; chapter: string; ordinal: number; summary: string; entities: string[] }[];
  /** the ordinal of the chapter the passage belongs to, when the request names one */
  position?: number;
  /** whether the passage stands at a line of that chapter (a chapter checked in place, a passage given `line`) */
  atLine: boolean;
  /** ordinals of the chapters the entities' state names (e.g. died_in), to tell whether a passage comes before them */
  chapterOrdinals: Record<string, number>;
  /**
   * by character id: how many chapters back from the passage's the character's status as of the passage (`status`,
   * `state`, `alive` or `dead` in its state) was told, when a timed value gives it: 0 in the passage's own chapter
   * (before its line), 1 in the chapter before, 2 in the one before that; a passage may go back in time to before it
   */
  statusToldAgo: Record<string, number>;
  /** every id the slice holds: what a hit's refs may point at */
  ids: Set<string>;
  /** state changes anchored in the passage's chapter whose anchor is no longer in its text (storyPoints.ts) */
  anchorsLost: LostAnchor[];
  /**
   * where the canon holds each character at the passage's point (its state's `location`, naming a location entity by
   * key, name or alias), by character id; the place is in `entities` whether the passage names it or not
   */
  heldAt: Record<string, string>;
  /**
   * each character's home, by character id: its state's `home`, else a relationship of a home kind (`lives_in`,
   * lexicon `homeKinds`) to a location; the place is in `entities` like a held one
   */
  homeAt: Record<string, string>;
  /**
   * by character id (the characters in `entities`): the tracked facts the reader knows at the passage's point that the
   * character does not know yet (src/core/knowledge), with the chapter they learn each at, if they do
   */
  unaware: Record<string, UnawareFact[]>;
  /** the ledger lines of `promises`, as of the passage's point (src/core/promises) */
  ledger: Record<string, SliceLedgerLine>;
};
export type UnawareFact = { id: string; text: string; about: string; learned: string | null };
/** A promise's setup and payoff as of the passage: `paid_off_in` only when paid by then; `paid_before_set_up` whenever. */
export type SliceLedgerLine = { status: 'open' | 'paid' | 'dropped' | 'not set up yet'; set_up_in: string | null; paid_off_in: string | null; paid_before_set_up: boolean };
export type LostAnchor = { entity: string; key: string; anchor: string; line: number | null };

/**
 * Where in story time a passage stands: a chapter (by its ordinal), and a line of it when given; without a line, once
 * the whole chapter is read. `text`: the chapter's text, to place anchors in (read by `id` when needed and absent).
 * `namesVersion`: the project's (Project.namesVersion), as the caller just read it: the names kept at it answer unread.
 */
export type SlicePosition = { ordinal: number; line?: number; id?: string; text?: string; namesVersion?: string };

/** What a slice is read from: Prisma, and the pool's prepared statements (the project's names). */
export type SliceStore = { prisma: PrismaClient; sql: SqlClient };

/** The keys of a character's state that say whether it lives (checks/dead.ts isDead). */
const statusKeys = new Set(['status', 'state', 'alive', 'dead']);

const limits = { factsPerEntity: 30, rules: 8, promises: 8, beatChapters: 3, beatsPerChapter: 20, neighbours: 20, relatives: 20, narrators: 5, pronounSnippets: 40, heldPlaces: 20, unawarePerCharacter: 20 } as const;

/**
 * A name, and an alias without its leading article when a capitalised word follows it ("the Abbess" → "Abbess"), a
 * name led by a title with the title's other spellings ("Cap'n Flint" → "Captain Flint"), and a full name in capitals
 * as headings print it ("JONATHAN HARKER’S JOURNAL"), as the reader matches them (reader/references.ts).
 */
export function nameVariants(names: string[]): string[] {
  return names.flatMap((n) => {
    const bare = /^(the|a|an)\s+(\p{Lu}.*)$/iu.exec(n.trim());
    const capitals = /\s/.test(n.trim()) ? [n.toUpperCase()] : [];
    return [...(bare ? [n, bare[2]] : [n]), ...titleSpellings(n), ...capitals];
  });
}

type EntityRow = { id: string; type: string; name: string; aliases: string[]; state: unknown; facts: { id: string; text: string }[] };

type StoredEntity = EntityRow & { baseState: unknown };

/**
 * The approved entities among `ids` (of the project, of a type, when given), by id, each with up to 30 of its approved
 * live facts holding at the chapter (after the last chapter without one), by id: one statement, where the query
 * builder spent more CPU compiling the nested read than the database spent answering it.
 */
async function entitiesWithFacts(prisma: PrismaClient, ids: string[], chapter: SlicePosition | undefined, only: { projectId?: string; type?: 'character' } = {}): Promise<StoredEntity[]> {
  if (ids.length === 0) return [];
  const holds = chapter
    ? Prisma.sql`(f."fromChapterId" IS NULL OR fc.ordinal <= ${chapter.ordinal}::int) AND (f."untilChapterId" IS NULL OR uc.ordinal > ${chapter.ordinal}::int)`
    : Prisma.sql`f."untilChapterId" IS NULL`;
  return prisma.$queryRaw<StoredEntity[]>`
    SELECT e.id, e.type::text AS type, e.name, e.aliases, e.state, e."baseState", COALESCE(held.facts, '[]'::json) AS facts
    FROM "Entity" e
    LEFT JOIN LATERAL (
      SELECT json_agg(json_build_object('id', x.id, 'text', x.text) ORDER BY x.id) AS facts FROM (
        SELECT f.id, f.text FROM "Fact" f
        LEFT JOIN "Chapter" fc ON fc.id = f."fromChapterId" LEFT JOIN "Chapter" uc ON uc.id = f."untilChapterId"
        WHERE f."entityId" = e.id AND f.status = 'approved' AND f."retiredAt" IS NULL AND ${holds}
        ORDER BY f.id LIMIT ${limits.factsPerEntity}::int
      ) x
    ) held ON true
    WHERE e.id = ANY(${ids}::text[]) AND e.status = 'approved'
      ${only.projectId ? Prisma.sql`AND e."projectId" = ${only.projectId}` : Prisma.empty}
      ${only.type ? Prisma.sql`AND e.type = ${only.type}::"EntityType"` : Prisma.empty}
    ORDER BY e.id`;
}

const toSlice = (e: EntityRow): SliceEntity => ({
  id: e.id,
  type: e.type,
  name: e.name,
  aliases: e.aliases,
  state: (e.state && typeof e.state === 'object' ? e.state : {}) as Record<string, unknown>,
  facts: e.facts,
});

/**
 * The rules or promises a passage may bear on: those it names, then those whose name or approved facts share words
 * with it (English stemming, so "spells" meets "spell"), best first. A project's other rules are not sent.
 */
async function relevant(prisma: PrismaClient, projectId: string, type: 'rule' | 'promise', passage: string, named: string[], take: number): Promise<string[]> {
  const words = [...new Set(passage.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [])].slice(0, 200);
  const query = words.join(' | ');
  const rows = await prisma.$queryRaw<{ id: string }[]>`
    WITH q AS (SELECT to_tsquery('english', ${query || 'nothing'}) AS tsq)
    SELECT e.id FROM "Entity" e, q
    WHERE e."projectId" = ${projectId} AND e.type = ${type}::"EntityType"
      AND (e.id = ANY(${named}::text[]) OR e."relevanceVector" @@ q.tsq)
    ORDER BY (e.id = ANY(${named}::text[])) DESC, ts_rank(e."relevanceVector", q.tsq) DESC, e.id
    LIMIT ${take}::int`;
  return rows.map((r) => r.id);
}

/**
 * The finder of every name and alias of a project, made once per names version beside its kept names (made again, when
 * next asked for, after a change of names).
 */
const nameFinder: Derivation<MentionFinder> = {
  build: (entities) => new MentionFinder(entities.flatMap((e) => nameVariants([e.name, ...e.aliases]).map((text) => ({ entityId: e.id, text })))),
};

/**
 * `before`: the words that stand before the passage in its chapter (chapterBefore.ts): the characters they name are in
 * the slice too, with their relationships, as those a pronoun the passage leaves unresolved may refer to.
 */
export async function loadCanonSlice({ prisma, sql }: SliceStore, projectId: string, passage: string, chapter?: SlicePosition, before = ''): Promise<CanonSlice> {
  const names = await projectNames(sql, projectId, chapter?.namesVersion);
  const finder = names?.derived(nameFinder);
  const named = finder ? [...new Set(finder.find(passage).map((m) => m.entityId))] : [];
  const namedBefore = finder && before ? [...new Set(finder.find(before).map((m) => m.entityId))].filter((id) => !named.includes(id)) : [];

  // The narrator of a passage in the first person, whom "I" and "my" refer to (references.ts), and whose relatives it
  // may name by a kin word alone ("my mother").
  const narrators = saysI(passage) ? await narratorsOf(prisma, projectId) : [];
  const speakers = [...new Set([...named, ...narrators])];
  // The recent beats need only the chapter: read beside the rest.
  const chaptersRead = prisma.chapter.findMany({
    where: { projectId, ...(chapter ? { ordinal: { lte: chapter.ordinal } } : {}) },
    orderBy: [{ ordinal: 'desc' }, { id: 'desc' }],
    take: limits.beatChapters,
    select: {
      externalId: true,
      ordinal: true,
      beats: { orderBy: { position: 'asc' }, take: limits.beatsPerChapter, select: { id: true, summary: true, entityIds: true } },
    },
  });
  chaptersRead.catch(() => undefined);
  const [namedEntities, relationships, relationshipsBefore, latestRules, latestPromises] = await Promise.all([
    entitiesWithFacts(prisma, named, chapter, { projectId }),
    relationshipsOf(sql, projectId, speakers),
    // Read apart, so that they take no place of the passage's own in the bounds.
    namedBefore.length > 0 ? relationshipsOf(sql, projectId, namedBefore) : [],
    relevant(prisma, projectId, 'rule', passage, named, limits.rules).then((ids) => entitiesWithFacts(prisma, ids, chapter)),
    // The promises the passage bears on, and those the ledger pays off in its chapter (which it may pay off unnamed).
    Promise.all([
      relevant(prisma, projectId, 'promise', passage, named, limits.promises),
      chapter
        ? prisma.promiseLedger.findMany({ where: { projectId, paidOffChapter: { is: { ordinal: chapter.ordinal } } }, select: { entityId: true }, take: limits.promises })
        : [],
    ]).then(([ids, paidHere]) => entitiesWithFacts(prisma, [...new Set([...ids, ...paidHere.map((l) => l.entityId)])], chapter)),
  ]);
  // The ledger needs only the promises: read beside the rest.
  const ledgerRead = ledgerLines(prisma, latestPromises.map((p) => p.id), chapter?.ordinal);
  ledgerRead.catch(() => undefined);

  // The relatives of the characters it names and of its narrator, which it may name by a kin word alone ("June's
  // husband", "my mother").
  const kin = [...new Set(relationships.filter((r) => kinOfKind(r.kind)).flatMap((r) => [r.fromId, r.toId]))].filter((id) => !named.includes(id));
  // The relatives of those named before it, after the passage's own, for a kin word after a pronoun ("her mother").
  const kinBefore = relationshipsBefore.filter((r) => kinOfKind(r.kind)).flatMap((r) => [r.fromId, r.toId]);
  const more = [...new Set([...kin.slice(0, limits.relatives), ...narrators, ...namedBefore, ...kinBefore.slice(0, limits.relatives)])].filter((id) => !named.includes(id));
  const [others, kinAround] = await Promise.all([entitiesWithFacts(prisma, more, chapter, { projectId, type: 'character' }), kinRings(sql, projectId, kin, relationships)]);
  const latestEntities = [...namedEntities, ...others];
  const at = chapter ? { ordinal: chapter.ordinal, line: chapter.line } : undefined;
  // The held places added below are never characters: whether there are any is known now.
  const trackedRead = latestEntities.some((e) => e.type === 'character') ? trackedFacts(prisma, projectId, at) : Promise.resolve([]);
  trackedRead.catch(() => undefined);
  const timed = chapter ? await timedValues(prisma, [...latestEntities, ...latestRules, ...latestPromises].map((e) => e.id)) : undefined;
  const anchorsLost = timed && chapter?.line !== undefined ? await placeAnchors(prisma, timed, chapter) : [];
  const asOf = (rows: StoredEntity[]): EntityRow[] =>
    timed && chapter ? rows.map((e) => ({ ...e, state: stateAt(e.baseState, timed.get(e.id) ?? [], chapter.ordinal, chapter.line) })) : rows;
  const [placed, rules, promises] = [asOf(latestEntities), asOf(latestRules), asOf(latestPromises)];
  const held = await heldPlaces({ prisma, sql }, projectId, placed, relationships);
  const entities = [...placed, ...held.places];

  const stateValues = [...new Set(entities.flatMap((e) => Object.values((e.state ?? {}) as Record<string, unknown>).filter((v): v is string => typeof v === 'string')))];
  const sliced = entities.map(toSlice);
  const [chapters, referenced] = await Promise.all([
    chaptersRead,
    stateValues.length ? prisma.chapter.findMany({ where: { projectId, externalId: { in: stateValues } }, select: { externalId: true, ordinal: true } }) : [],
    learnPronouns(prisma, sliced, relationships.map((r) => ({ from: r.fromId, kind: r.kind }))),
  ]);
  const statusToldAgo: Record<string, number> = {};
  if (timed && chapter) {
    for (const e of sliced.filter((x) => x.type === 'character')) {
      const told = (timed.get(e.id) ?? [])
        .filter((v) => statusKeys.has(v.key) && holdsAt(v, chapter.ordinal, chapter.line))
        .sort(storyOrder)
        .at(-1);
      const ago = told?.from == null ? -1 : chapters.findIndex((c) => c.ordinal === told.from);
      if (ago >= 0) statusToldAgo[e.id] = ago;
    }
  }
  const beats = chapters
    .reverse()
    .flatMap((c) => c.beats.map((b) => ({ id: b.id, chapter: c.externalId, ordinal: c.ordinal, summary: b.summary, entities: b.entityIds })))
    .filter((b) => b.entities.some((id) => named.includes(id)));

  const characters = sliced.filter((e) => e.type === 'character');
  const [tracked, ledger] = await Promise.all([trackedRead, ledgerRead]);
  const unaware: Record<string, UnawareFact[]> = {};
  for (const c of characters) {
    const facts = knowledgeOf(c, tracked, at, null).unaware.slice(0, limits.unawarePerCharacter);
    if (facts.length > 0) unaware[c.id] = facts.map((f) => ({ id: f.id, text: f.text, about: f.about.id, learned: f.learned?.chapter ?? null }));
  }

  const slice: CanonSlice = {
    entities: sliced,
    relationships: [...relationships, ...[...held.relationships, ...relationshipsBefore].filter((r, k, all) => !relationships.some((x) => x.id === r.id) && all.findIndex((x) => x.id === r.id) === k)].map((r) => ({ id: r.id, from: r.fromId, to: r.toId, kind: r.kind })),
    kinAround,
    rules: rules.map(toSlice),
    promises: promises.map(toSlice),
    beats,
    position: chapter?.ordinal,
    atLine: chapter?.line !== undefined,
    chapterOrdinals: Object.fromEntries(referenced.map((c) => [c.externalId, c.ordinal])),
    statusToldAgo,
    ids: new Set(),
    anchorsLost,
    heldAt: held.heldAt,
    homeAt: held.homeAt,
    unaware,
    ledger,
  };
  for (const e of [...slice.entities, ...slice.rules, ...slice.promises]) {
    slice.ids.add(e.id);
    for (const f of e.facts) slice.ids.add(f.id);
  }
  for (const facts of Object.values(slice.unaware)) for (const f of facts) slice.ids.add(f.id);
  for (const r of [...slice.relationships, ...slice.kinAround]) slice.ids.add(r.id);
  for (const b of slice.beats) slice.ids.add(b.id);
  return slice;
}

type RelationshipRow = { id: string; fromId: string; toId: string; kind: string };

// On the pool, not Prisma: a chapter names hundreds of entities, and the query compiler spent some 30 ms of CPU on a
// list of 280 ids where the driver spends well under one.
const relationshipsRead = statement('slice_relationships', `
  SELECT id, "fromId", "toId", kind FROM "Relationship"
  WHERE "projectId" = $1 AND ("fromId" = ANY($2::text[]) OR "toId" = ANY($2::text[]))
  ORDER BY id LIMIT $3`);

/** The relationships with either end among `ids`, by id: up to 20 for each. */
const relationshipsOf = (sql: SqlClient, projectId: string, ids: string[]) => rows<RelationshipRow>(sql, relationshipsRead, [projectId, ids, ids.length * limits.neighbours]);

/**
 * The kinship relationships of `relatives` (the named characters' relatives) and of theirs in turn: two rings of the
 * family graph beyond the one the slice holds, read only while a ring finds kin.
 */
async function kinRings(sql: SqlClient, projectId: string, relatives: string[], known: { id: string }[]): Promise<CanonSlice['kinAround']> {
  const seen = new Set(known.map((r) => r.id));
  const found: CanonSlice['kinAround'] = [];
  let ring = relatives;
  const reached = new Set(relatives);
  for (let step = 0; step < 2 && ring.length > 0; step++) {
    const rows = await relationshipsOf(sql, projectId, ring);
    const next: string[] = [];
    for (const r of rows) {
      if (seen.has(r.id) || !kinOfKind(r.kind)) continue;
      seen.add(r.id);
      found.push({ id: r.id, from: r.fromId, to: r.toId, kind: r.kind });
      for (const id of [r.fromId, r.toId]) {
        if (reached.has(id)) continue;
        reached.add(id);
        next.push(id);
      }
    }
    ring = next.slice(0, limits.relatives);
  }
  return found;
}

/**
 * The places the canon holds the characters at (a `location` in their state as of the passage), with the containment
 * relationships around them, so that a passage putting a character elsewhere can be told from one naming a room of
 * the same house.
 */
async function heldPlaces({ prisma, sql }: SliceStore, projectId: string, entities: EntityRow[], around: RelationshipRow[]) {
  const stated = (e: EntityRow, key: 'location' | 'home') => {
    const value = e.type === 'character' && e.state && typeof e.state === 'object' ? (e.state as Record<string, unknown>)[key] : undefined;
    return typeof value === 'string' && value.trim() ? value.trim() : undefined;
  };
  const locationOf = (e: EntityRow) => stated(e, 'location');
  const characters = new Set(entities.filter((e) => e.type === 'character').map((e) => e.id));
  const homes = around.filter((r) => characters.has(r.fromId) && homeKinds.has(r.kind.toLowerCase().split(/[^a-z]+/).find(Boolean) ?? ''));
  const values = [...new Set(entities.flatMap((e) => [locationOf(e), stated(e, 'home')]).filter((v): v is string => v !== undefined))];
  if (values.length === 0 && homes.length === 0) return { places: [], relationships: [], heldAt: {}, homeAt: {} };
  const found = await prisma.entity.findMany({
    where: { projectId, type: 'location', status: 'approved', OR: [{ key: { in: values } }, { name: { in: values } }, { aliases: { hasSome: values } }, { id: { in: homes.map((r) => r.toId) } }] },
    select: { id: true, key: true, type: true, name: true, aliases: true, state: true, facts: { where: { status: 'approved', retiredAt: null }, select: { id: true, text: true }, orderBy: { id: 'asc' }, take: 3 } },
    orderBy: { id: 'asc' },
    take: limits.heldPlaces,
  });
  const byValue = new Map<string, EntityRow>();
  for (const place of found) for (const n of [place.key, place.name, ...place.aliases]) if (!byValue.has(n)) byValue.set(n, place);
  const heldAt: Record<string, string> = {};
  for (const e of entities) {
    const place = byValue.get(locationOf(e) ?? '');
    if (place) heldAt[e.id] = place.id;
  }
  const homeAt: Record<string, string> = {};
  for (const r of homes) if (found.some((p) => p.id === r.toId)) homeAt[r.fromId] ??= r.toId;
  for (const e of entities) {
    const place = byValue.get(stated(e, 'home') ?? '');
    if (place) homeAt[e.id] = place.id;
  }
  const known = new Set(entities.map((e) => e.id));
  const places = found.filter((p) => !known.has(p.id)).map(({ key: _, ...p }) => p);
  const ids = found.map((p) => p.id);
  const relationships = await relationshipsOf(sql, projectId, ids);
  return { places, relationships, heldAt, homeAt };
}

/**
 * Sets the line of each timed value anchored in the passage's chapter from the chapter's text as it stands; returns the
 * anchors it no longer holds (those keep the line they were given).
 */
async function placeAnchors(prisma: PrismaClient, timed: Map<string, TimedValue[]>, chapter: SlicePosition): Promise<LostAnchor[]> {
  const anchored = [...timed].flatMap(([entity, values]) => values.filter((v) => v.from === chapter.ordinal && v.fromAnchor).map((v) => ({ entity, v })));
  if (anchored.length === 0) return [];
  const text = chapter.text ?? (chapter.id ? (await prisma.chapter.findUnique({ where: { id: chapter.id }, select: { text: true } }))?.text : undefined) ?? '';
  const lost: LostAnchor[] = [];
  for (const { entity, v } of anchored) {
    const placed = placePoint(text, { fromLine: v.fromLine ?? null, fromAnchor: v.fromAnchor ?? null });
    v.fromLine = placed.line;
    if (placed.lost) lost.push({ entity, key: v.key, anchor: v.fromAnchor!, line: placed.line });
  }
  return lost;
}

/**
 * The entities that may narrate in the first person: those whose state, base or timed, says `narrator` (which of them
 * does at the passage's chapter, stateAt tells). Each half reads a partial index of those few rows (an entity's stored
 * column "narrator" says whether its state or base state has the key).
 */
async function narratorsOf(prisma: PrismaClient, projectId: string): Promise<string[]> {
  const rows = await prisma.$queryRaw<{ id: string }[]>`
    SELECT id FROM "Entity" WHERE "projectId" = ${projectId} AND narrator
    UNION SELECT "entityId" FROM "StateValue" WHERE "projectId" = ${projectId} AND key = 'narrator'
    ORDER BY id LIMIT ${limits.narrators}::int`;
  return rows.map((r) => r.id);
}

/**
 * The pronouns of the passage's characters: stated or implied by names and relationship kinds, else learned from the
 * text that mentions them (their facts, and the snippets recorded at import of up to 40 of their mentions, one index
 * scan each).
 */
async function learnPronouns(prisma: PrismaClient, entities: SliceEntity[], relationships: { from: string; kind: string }[]): Promise<void> {
  // By entity, once: a chapter names hundreds of characters, each with its relationships and 40 snippets.
  const kinds = new Map<string, string[]>();
  for (const r of relationships) kinds.get(r.from)?.push(r.kind) ?? kinds.set(r.from, [r.kind]);
  const kindsOf = (id: string) => kinds.get(id) ?? [];
  const unknown: SliceEntity[] = [];
  for (const e of entities.filter((x) => x.type === 'character')) {
    e.pronouns = canonPronouns(e, kindsOf(e.id), e.facts.map((f) => f.text));
    if (!e.pronouns) unknown.push(e);
  }
  if (unknown.length === 0) return;
  const rows = await prisma.$queryRaw<{ entityId: string; snippet: string }[]>`
    SELECT x.id AS "entityId", m.snippet FROM unnest(${unknown.map((e) => e.id)}::text[]) AS x(id)
    CROSS JOIN LATERAL (SELECT snippet FROM "Mention" WHERE "entityId" = x.id ORDER BY "sortKey" LIMIT ${limits.pronounSnippets}::int) m`;
  const snippets = new Map<string, string[]>();
  for (const r of rows) snippets.get(r.entityId)?.push(r.snippet) ?? snippets.set(r.entityId, [r.snippet]);
  for (const e of unknown) {
    e.pronouns = pronounsOf(e, kindsOf(e.id), e.facts.map((f) => f.text), snippets.get(e.id) ?? []);
  }
}

/**
 * The ledger lines of the slice's promises as of chapter ordinal `at` (undefined: after the last chapter): a promise
 * set up later is "not set up yet", one paid off by then is paid; whether its payoff comes before its setup, whenever.
 */
async function ledgerLines(prisma: PrismaClient, promiseIds: string[], at: number | undefined): Promise<Record<string, SliceLedgerLine>> {
  if (promiseIds.length === 0) return {};
  const lines = await prisma.promiseLedger.findMany({
    where: { entityId: { in: promiseIds } },
    select: { entityId: true, status: true, setUpChapter: { select: { externalId: true, ordinal: true } }, paidOffChapter: { select: { externalId: true, ordinal: true } } },
  });
  const now = at ?? Infinity;
  return Object.fromEntries(
    lines.map((l) => {
      const paid = l.paidOffChapter && l.paidOffChapter.ordinal <= now ? l.paidOffChapter : null;
      const status: SliceLedgerLine['status'] =
        l.status === 'dropped' ? 'dropped' : l.setUpChapter && l.setUpChapter.ordinal > now ? 'not set up yet' : paid || (l.status === 'paid' && !l.paidOffChapter) ? 'paid' : 'open';
      return [l.entityId, {
        status,
        set_up_in: l.setUpChapter?.externalId ?? null,
        paid_off_in: paid?.externalId ?? null,
        paid_before_set_up: Boolean(l.setUpChapter && l.paidOffChapter && l.paidOffChapter.ordinal < l.setUpChapter.ordinal),
      }];
    }),
  );
}
