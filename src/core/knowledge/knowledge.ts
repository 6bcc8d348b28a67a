// Who knows what, when (issue 27). A fact is common knowledge unless it is secret or has knowers: then only its
// knowers know it, each from a point of the story (a chapter, after a line of it when given; from the start when no
// chapter is given), and a secret fact without knowers is known by nobody yet. The reader knows every approved live
// fact holding at the point, so what a character does not know yet is the reader's advantage over them.
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { LoreError } from '../errors.ts';
import type { TxClient } from '../canon/canon.ts';
import { holdsAt, unknownChapter } from '../canon/storyTime.ts';
import type { BundleFact } from '../ingest/bundle.ts';
import { rows, statement, type SqlClient } from '../../db/sql.ts';

/** A knower as stored: the entity, and the chapter (and line of it) it learns the fact at; null chapter: from the start. */
export type KnowerRow = { entityId: string; fromChapterId: string | null; fromLine: number | null };
/** A fact's knowledge to write: the fact (its subject entity and text), whether it is secret, and its knowers. */
export type KnowledgeLine = { entityId: string; text: string; secret: boolean; knownBy: KnowerRow[] };

/**
 * Replaces the knowledge of the live facts `lines` name (by subject and text): their secret flag and knowers. One
 * statement each for finding, clearing and writing, whatever the number of facts.
 */
export async function recordKnowledge(tx: TxClient, projectId: string, lines: KnowledgeLine[]): Promise<void> {
  if (lines.length === 0) return;
  const payload = JSON.stringify(lines.map((l, n) => ({ entity_id: l.entityId, text: l.text, secret: l.secret, n })));
  const facts = await tx.$queryRaw<{ id: string; n: number }[]>`
    UPDATE "Fact" f SET secret = x.secret FROM jsonb_to_recordset(${payload}::jsonb) AS x(entity_id text, text text, secret boolean, n int)
    WHERE f."projectId" = ${projectId} AND f."entityId" = x.entity_id AND f.text = x.text AND f."retiredAt" IS NULL
    RETURNING f.id, x.n`;
  if (facts.length === 0) return;
  await tx.$executeRaw`DELETE FROM "FactKnower" WHERE "factId" = ANY(${facts.map((f) => f.id)}::text[])`;
  const knowers = facts.flatMap((f) =>
    lines[f.n].knownBy.map((k) => ({ fact_id: f.id, entity_id: k.entityId, from_id: k.fromChapterId, line: k.fromLine })),
  );
  if (knowers.length === 0) return;
  await tx.$executeRaw`
    INSERT INTO "FactKnower" ("factId", "entityId", "projectId", "fromChapterId", "fromLine")
    SELECT x.fact_id, x.entity_id, ${projectId}, x.from_id, x.line FROM jsonb_to_recordset(${JSON.stringify(knowers)}::jsonb)
      AS x(fact_id text, entity_id text, from_id text, line int)
    ON CONFLICT ("factId", "entityId") DO UPDATE SET "fromChapterId" = EXCLUDED."fromChapterId", "fromLine" = EXCLUDED."fromLine"`;
}

/** The knowledge lines of a bundle's facts that say it (known_by or secret); the others' stored knowledge stays. */
export function bundleKnowledge(
  entities: { key: string; facts: BundleFact[] }[],
  idOf: (key: string) => string,
  chapterIdOf: (externalId: string) => string,
): KnowledgeLine[] {
  return entities.flatMap((e) =>
    e.facts
      .filter((f) => f.known_by !== undefined || f.secret !== undefined)
      .map((f) => ({
        entityId: idOf(e.key),
        text: f.text,
        secret: f.secret ?? false,
        knownBy: uniqueKnowers((f.known_by ?? []).map((k) => ({ entityId: idOf(k.entity), fromChapterId: k.from ? chapterIdOf(k.from) : null, fromLine: k.line ?? null }))),
      })),
  );
}

/** One knower per entity: the earliest point given for it wins. */
function uniqueKnowers(knowers: KnowerRow[]): KnowerRow[] {
  const seen = new Set<string>();
  return knowers.filter((k) => !seen.has(k.entityId) && seen.add(k.entityId));
}

/** A point of the story: a chapter (by ordinal), and a line of it; after the last chapter when undefined. */
export type StoryAt = { ordinal: number; line?: number } | undefined;

/** A fact whose knowledge is tracked, as a character's knowledge lists it. */
export type KnownFact = {
  id: string;
  text: string;
  /** the entity the fact is about */
  about: { id: string; name: string };
  secret: boolean;
  /** knows: the point they learned it at (null chapter: from the start); unaware: the point they learn it at, if ever */
  learned: { chapter: string | null; line: number | null } | null;
};
export type Knowledge = {
  entity: { id: string; name: string };
  /** the chapter it is as of; null: after the last chapter */
  asOf: string | null;
  line: number | null;
  /** tracked facts the entity knows at that point */
  knows: KnownFact[];
  /** tracked facts the reader knows there (approved, live, holding) that the entity does not know yet */
  unaware: KnownFact[];
};

type TrackedRow = {
  id: string;
  text: string;
  secret: boolean;
  aboutId: string;
  aboutName: string;
  fromOrdinal: number | null;
  untilOrdinal: number | null;
  knowers: { entity: string; chapter: string | null; ordinal: number | null; line: number | null }[];
};

/** How many tracked facts one answer lists at most per side, first by id. */
export const knowledgeLimit = 200;

/** The project's tracked facts (secret, or with knowers), approved and live, by id: $1 the project. */
const tracked = statement('knowledge_tracked', `
    SELECT f.id, f.text, f.secret, f."entityId" AS "aboutId", e.name AS "aboutName", fc.ordinal AS "fromOrdinal", uc.ordinal AS "untilOrdinal",
      COALESCE((SELECT json_agg(json_build_object('entity', k."entityId", 'chapter', kc."externalId", 'ordinal', kc.ordinal, 'line', k."fromLine") ORDER BY k."entityId")
        FROM "FactKnower" k LEFT JOIN "Chapter" kc ON kc.id = k."fromChapterId" WHERE k."factId" = f.id), '[]'::json) AS knowers
    FROM "Fact" f JOIN "Entity" e ON e.id = f."entityId"
    LEFT JOIN "Chapter" fc ON fc.id = f."fromChapterId" LEFT JOIN "Chapter" uc ON uc.id = f."untilChapterId"
    WHERE f.id IN (SELECT id FROM "Fact" WHERE "projectId" = $1 AND secret UNION SELECT "factId" FROM "FactKnower" WHERE "projectId" = $1)
      AND f.status = 'approved' AND f."retiredAt" IS NULL
    ORDER BY f.id`);

const holdingAt = (found: TrackedRow[], at: StoryAt) => found.filter((f) => holdsAt({ from: f.fromOrdinal, until: f.untilOrdinal }, at?.ordinal, at?.line));

/** The project's tracked facts (secret, or with knowers) that the reader knows at `at`: approved, live, holding. */
export async function trackedFacts(db: Pick<PrismaClient, '$queryRawUnsafe'>, projectId: string, at: StoryAt): Promise<TrackedRow[]> {
  return holdingAt(await db.$queryRawUnsafe<TrackedRow[]>(tracked.text, projectId), at);
}

/**
 * What any entity knows and does not know yet at `at`, from one read of the project's tracked facts on the pool: the
 * brief's path, where Prisma's query compiler cost more than the statement (src/db/sql.ts).
 */
export async function knowledgeAt(sql: SqlClient, projectId: string, at: StoryAt, asOf: string | null): Promise<(entity: { id: string; name: string }) => Knowledge> {
  const found = holdingAt(await rows<TrackedRow>(sql, tracked, [projectId]), at);
  return (entity) => knowledgeOf(entity, found, at, asOf);
}

export type TrackedFact = TrackedRow;

export class KnowledgeService {
  constructor(private readonly prisma: PrismaClient) {}

  /** The chapter `asOf` names (an unknown one is a validation_error naming `field`), with `line`. */
  async point(projectId: string, asOf: string | undefined, line?: number, field = 'as_of'): Promise<StoryAt> {
    // Without a chapter a line places nothing: after the last chapter, as without it.
    if (asOf === undefined) return undefined;
    const chapter = await this.prisma.chapter.findFirst({ where: { projectId, externalId: asOf }, select: { ordinal: true } });
    if (!chapter) throw unknownChapter(asOf, field);
    return { ordinal: chapter.ordinal, line };
  }

  /** What each of `entityIds` knows and does not know yet at `at`, from one read of the project's tracked facts. */
  async of(projectId: string, entities: { id: string; name: string }[], at: StoryAt, asOf: string | null): Promise<Knowledge[]> {
    if (entities.length === 0) return [];
    const tracked = await trackedFacts(this.prisma, projectId, at);
    return entities.map((entity) => knowledgeOf(entity, tracked, at, asOf));
  }

  /**
   * Recall's knowledge of its characters, batched: each key is JSON [projectId, asOf chapter id or null, entity id,
   * entity name]; one read of the tracked facts per project and chapter asked.
   */
  async batch(keys: readonly string[]): Promise<Knowledge[]> {
    const parsed = keys.map((k) => JSON.parse(k) as [string, string | null, string, string]);
    const groups = new Map<string, Promise<TrackedRow[]>>();
    const points = new Map<string, Promise<StoryAt>>();
    return Promise.all(
      parsed.map(async ([projectId, asOf, id, name]) => {
        const group = JSON.stringify([projectId, asOf]);
        if (!points.has(group)) points.set(group, this.point(projectId, asOf ?? undefined));
        const at = await points.get(group)!;
        if (!groups.has(group)) groups.set(group, trackedFacts(this.prisma, projectId, at));
        return knowledgeOf({ id, name }, await groups.get(group)!, at, asOf);
      }),
    );
  }

  /** The knowers of each fact, in the order of the ids. */
  knowers(factIds: readonly string[]): Promise<KnowerView[][]> {
    return knowersOf(this.prisma, factIds);
  }

  /** One entity's knowledge; an entity not in the project is not_found. */
  async entity(projectId: string, entityId: string, asOf: string | undefined, line?: number): Promise<Knowledge> {
    const [found, at] = await Promise.all([
      this.prisma.entity.findFirst({ where: { projectId, id: entityId }, select: { id: true, name: true } }),
      this.point(projectId, asOf, line),
    ]);
    if (!found) throw new LoreError('not_found', `Entity ${entityId} not found in project ${projectId}.`);
    const [knowledge] = await this.of(projectId, [found], at, asOf ?? null);
    return knowledge;
  }
}

/** Whether a knower's point has come at `at` (after their line, in their chapter). */
const learnedBy = (k: TrackedRow['knowers'][number], at: StoryAt) => holdsAt({ from: k.ordinal, fromLine: k.line, until: null }, at?.ordinal, at?.line);

export function knowledgeOf(entity: { id: string; name: string }, tracked: TrackedRow[], at: StoryAt, asOf: string | null): Knowledge {
  const knows: KnownFact[] = [];
  const unaware: KnownFact[] = [];
  for (const f of tracked) {
    const mine = f.knowers.find((k) => k.entity === entity.id);
    const item = (learned: KnownFact['learned']): KnownFact => ({ id: f.id, text: f.text, about: { id: f.aboutId, name: f.aboutName }, secret: f.secret, learned });
    if (mine && learnedBy(mine, at)) {
      if (knows.length < knowledgeLimit) knows.push(item({ chapter: mine.chapter, line: mine.line }));
    } else if (unaware.length < knowledgeLimit) {
      unaware.push(item(mine ? { chapter: mine.chapter, line: mine.line } : null));
    }
  }
  return { entity, asOf, line: at?.line ?? null, knows, unaware };
}

/** A knower as an authoring request gives it: an entity id, and the chapter id (and line of it) it learns the fact at. */
export type KnowerInput = { entityId: string; from?: string | null; line?: number | null };

/**
 * The knowers a request gives, checked against the project (each entity must be the project's, each chapter a
 * chapter of it; errors name `${path}.${i}.entityId` or `.from`) and resolved to rows.
 */
export async function resolveKnowers(tx: TxClient, projectId: string, knowers: KnowerInput[], path: string): Promise<KnowerRow[]> {
  return (await resolveKnowerLists(tx, projectId, [{ knowers, path }]))[0];
}

/** resolveKnowers for several facts' lists at once (a proposal's facts): two reads whatever their number. */
export async function resolveKnowerLists(tx: TxClient, projectId: string, lists: { knowers: KnowerInput[]; path: string }[]): Promise<KnowerRow[][]> {
  const all = lists.flatMap((l) => l.knowers);
  if (all.length === 0) return lists.map(() => []);
  const entityIds = [...new Set(all.map((k) => k.entityId))];
  const chapterIds = [...new Set(all.flatMap((k) => (k.from ? [k.from] : [])))];
  const [entities, chapters] = await Promise.all([
    tx.entity.findMany({ where: { projectId, id: { in: entityIds } }, select: { id: true } }),
    chapterIds.length ? tx.chapter.findMany({ where: { projectId, externalId: { in: chapterIds } }, select: { id: true, externalId: true } }) : [],
  ]);
  const known = new Set(entities.map((e) => e.id));
  const chapterId = new Map(chapters.map((c) => [c.externalId, c.id]));
  const errors = lists.flatMap(({ knowers, path }) =>
    knowers.flatMap((k, i) => [
      ...(known.has(k.entityId) ? [] : [{ path: `${path}.${i}.entityId`, message: `${k.entityId} is not an entity of this project` }]),
      ...(k.from && !chapterId.has(k.from) ? [{ path: `${path}.${i}.from`, message: `${k.from} is not a chapter of this project` }] : []),
    ]),
  );
  if (errors.length > 0) throw new LoreError('validation_error', errors.slice(0, 5).map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
  return lists.map(({ knowers }) =>
    uniqueKnowers(knowers.map((k) => ({ entityId: k.entityId, fromChapterId: k.from ? chapterId.get(k.from)! : null, fromLine: k.from ? (k.line ?? null) : null }))),
  );
}

/** A fact's knowers as the API shows them: entity id, chapter id (null: from the start) and line. */
export type KnowerView = { entityId: string; from: string | null; line: number | null };

/** The knowers of each fact, in the order of the ids (each list by entity id). */
export async function knowersOf(db: Pick<PrismaClient, 'factKnower'>, factIds: readonly string[]): Promise<KnowerView[][]> {
  const rows = await db.factKnower.findMany({
    where: { factId: { in: [...factIds] } },
    select: { factId: true, entityId: true, fromLine: true, fromChapter: { select: { externalId: true } } },
    orderBy: { entityId: 'asc' },
  });
  return factIds.map((id) => rows.filter((r) => r.factId === id).map((r) => ({ entityId: r.entityId, from: r.fromChapter?.externalId ?? null, line: r.fromLine })));
}
