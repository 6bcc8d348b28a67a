// Story time: a fact or a state value holds from a chapter (inclusive) until a chapter (exclusive), compared by the
// chapters' ordinals; a missing end is open. Callers name chapters by their ids in the manuscript (Chapter.externalId);
// rows point at Chapter.id.
import { statement } from '../../db/sql.ts';
import { LoreError } from '../errors.ts';
import type { FieldError } from '../validation.ts';
import type { TxClient } from './canon.ts';

type Db = Pick<TxClient, 'chapter'>;

export type ChapterRef = { id: string; externalId: string; ordinal: number };
export type Span = { from?: string | null; until?: string | null };
export type ResolvedSpan = { fromChapterId: string | null; untilChapterId: string | null };

/**
 * The chapters a span names, checked: each must be a chapter of the project and `until` must come after `from`.
 * Errors name the field (`${path}.from`, `${path}.until`) and fail with validation_error.
 */
export async function resolveSpan(db: Db, projectId: string, span: Span, path = ''): Promise<ResolvedSpan> {
  const [resolved] = await resolveSpans(db, projectId, [{ span, path }]);
  return resolved;
}

/** resolveSpan for many spans in one query. */
export async function resolveSpans(db: Db, projectId: string, spans: { span: Span; path: string }[]): Promise<ResolvedSpan[]> {
  const wanted = [...new Set(spans.flatMap(({ span }) => [span.from, span.until].filter((c): c is string => Boolean(c))))];
  const chapters = wanted.length
    ? await db.chapter.findMany({ where: { projectId, externalId: { in: wanted } }, select: { id: true, externalId: true, ordinal: true } })
    : [];
  return spansIn(chapters, spans);
}

/** resolveSpans over chapters already read (those of the project the spans name; others may be among them). */
export function spansIn(chapters: ChapterRef[], spans: { span: Span; path: string }[]): ResolvedSpan[] {
  const byExternal = new Map(chapters.map((c) => [c.externalId, c]));
  const errors = spans.flatMap(({ span, path }) => spanErrors(span, (c) => byExternal.get(c)?.ordinal, path));
  if (errors.length > 0) {
    throw new LoreError('validation_error', errors.slice(0, 5).map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
  }
  return spans.map(({ span }) => ({
    fromChapterId: span.from ? byExternal.get(span.from)!.id : null,
    untilChapterId: span.until ? byExternal.get(span.until)!.id : null,
  }));
}

/**
 * What is wrong with a span, each error naming its field (`${path}.from`, `${path}.until`): a chapter `ordinalOf` does
 * not know, or an `until` not after `from`. For checking spans against chapters not yet stored (a bundle's).
 */
export function spanErrors(span: Span, ordinalOf: (chapter: string) => number | undefined, path = ''): FieldError[] {
  const errors: FieldError[] = [];
  const at = (field: string) => (path ? `${path}.${field}` : field);
  const from = span.from ? ordinalOf(span.from) : undefined;
  const until = span.until ? ordinalOf(span.until) : undefined;
  if (span.from && from === undefined) errors.push({ path: at('from'), message: `${span.from} is not a chapter of this project` });
  if (span.until && until === undefined) errors.push({ path: at('until'), message: `${span.until} is not a chapter of this project` });
  if (from !== undefined && until !== undefined && until <= from) {
    errors.push({ path: at('until'), message: `must be a later chapter than from (${span.from}, ordinal ${from}); ${span.until} has ordinal ${until}` });
  }
  return errors;
}

/** The chapter `as_of` names, or a validation_error naming `field`. */
export async function resolveAsOf(db: Db, projectId: string, chapter: string, field = 'as_of'): Promise<ChapterRef> {
  const found = await db.chapter.findFirst({ where: { projectId, externalId: chapter }, select: { id: true, externalId: true, ordinal: true } });
  if (!found) throw unknownChapter(chapter, field);
  return found;
}

/** The validation_error for a chapter id that is not a chapter of the project, naming `field`. */
export function unknownChapter(chapter: string, field = 'as_of'): LoreError {
  const message = `${chapter} is not a chapter of this project`;
  return new LoreError('validation_error', `${field}: ${message}`, { errors: [{ path: field, message }] });
}

/**
 * Ordinals of a span's ends; null where open. `fromLine`: the line of the starting chapter it starts after (the line
 * that tells the change: "the wave took her" is her last line alive), from the chapter's start when null
 * (storyPoints.ts).
 */
export type OrdinalSpan = { from: number | null; fromLine?: number | null; until: number | null };

/**
 * Whether a span holds at chapter ordinal `at`, and at `line` of that chapter when given (without a line: once the
 * whole chapter is read); `at` undefined is "after the last chapter": only open-ended spans hold.
 */
export function holdsAt(span: OrdinalSpan, at: number | undefined, line?: number): boolean {
  if (at === undefined) return span.until === null;
  const started = span.from === null || span.from < at || (span.from === at && (line === undefined || (span.fromLine ?? 0) < line));
  return started && (span.until === null || at < span.until);
}

export type TimedValue = OrdinalSpan & { key: string; value: unknown; fromAnchor?: string | null };

/** Timed values in story order: by the chapter they start at (none first), then the line. */
export const storyOrder = (a: TimedValue, b: TimedValue): number => (a.from ?? -Infinity) - (b.from ?? -Infinity) || (a.fromLine ?? 0) - (b.fromLine ?? 0);

/**
 * The state at chapter ordinal `at` (undefined: after the last chapter), at `line` of it when given: the timeless
 * values, overlaid with the timed values that hold there in order of their start (a later start wins; an open start
 * counts as the earliest). At a line of a chapter where a value starts without a line of its own ("dies in chapter
 * 2"), the value may start before or after that line, so its key says nothing there (a value placed at a line of the
 * chapter before it still does): a check does not call the chapter's last scene with someone alive a contradiction.
 */
export function stateAt(baseState: unknown, timed: TimedValue[], at: number | undefined, line?: number): Record<string, unknown> {
  const state: Record<string, unknown> = { ...((baseState && typeof baseState === 'object' ? baseState : {}) as Record<string, unknown>) };
  const holding = timed
    .filter((v) => holdsAt(v, at, line))
    .sort(storyOrder);
  const winner = new Map<string, TimedValue>();
  for (const v of holding) {
    state[v.key] = v.value;
    winner.set(v.key, v);
  }
  if (at !== undefined && line !== undefined) for (const [key, v] of winner) if (v.from === at && v.fromLine == null) delete state[key];
  return state;
}

/** Timed state values of entities with their spans as ordinals (and the point inside the starting chapter, as stored). */
export async function timedValues(tx: TxClient, entityIds: string[]): Promise<Map<string, TimedValue[]>> {
  const rows = entityIds.length
    ? await tx.$queryRaw<(TimedValue & { entityId: string })[]>`
        SELECT v."entityId", v.key, v.value, fc.ordinal AS "from", v."fromLine", v."fromAnchor", uc.ordinal AS "until"
        FROM "StateValue" v LEFT JOIN "Chapter" fc ON fc.id = v."fromChapterId" LEFT JOIN "Chapter" uc ON uc.id = v."untilChapterId"
        WHERE v."entityId" = ANY(${entityIds}::text[]) ORDER BY v.id`
    : [];
  const byEntity = new Map<string, TimedValue[]>(entityIds.map((id) => [id, []]));
  for (const { entityId, ...value } of rows) byEntity.get(entityId)?.push(value);
  return byEntity;
}

/**
 * SQL: whether a span holds at chapter ordinal `at`, all three SQL expressions (the ends null where open). holdsAt for
 * a chapter, in SQL; after the last chapter, a span holds when its until is null.
 */
export const holdsSql = (from: string, until: string, at: string) => `(${from} IS NULL OR ${from} <= ${at}) AND (${until} IS NULL OR ${at} < ${until})`;

/**
 * SQL: the state of the entity row `entity` (an alias with id and "baseState") at chapter ordinal `at` (an SQL
 * expression), or after the last chapter (null). stateAt, in SQL: per key, the holding value with the latest start
 * wins, the later row on a tie; the timeless values stay where no timed value holds. `base`: the timeless values (an SQL
 * expression), the row's own by default.
 */
export const stateAtSql = (entity: string, at: string | null, base = `${entity}."baseState"`) => `${base} || COALESCE((
    SELECT jsonb_object_agg(held.key, held.value) FROM (
      SELECT DISTINCT ON (v.key) v.key, v.value FROM "StateValue" v
      LEFT JOIN "Chapter" vf ON vf.id = v."fromChapterId" LEFT JOIN "Chapter" vu ON vu.id = v."untilChapterId"
      WHERE v."entityId" = ${entity}.id AND ${at === null ? 'v."untilChapterId" IS NULL' : holdsSql('vf.ordinal', 'vu.ordinal', at)}
      ORDER BY v.key, vf.ordinal DESC NULLS LAST, v.id DESC
    ) held), '{}'::jsonb)`;

/**
 * Rewrites Entity.state (the state after the last chapter, which recall shows without as_of) from the base state and
 * the timed values: after any write of either, and after chapters are reordered or deleted. One statement however
 * many entities, writing only the rows whose state changes.
 */
export async function recomputeLatestState(tx: TxClient, entityIds: string[]): Promise<void> {
  if (entityIds.length === 0) return;
  await tx.$executeRawUnsafe(latestStateRecompute.text, entityIds);
}

/** recomputeLatestState's statement ($1: the entities' ids), for a writer going straight through the driver. */
export const latestStateRecompute = statement('latest_state_recompute', `
  UPDATE "Entity" e SET state = x.latest
  FROM (SELECT n.id, ${stateAtSql('n', null)} AS latest FROM "Entity" n WHERE n.id = ANY($1::text[])) x
  WHERE e.id = x.id AND e.state IS DISTINCT FROM x.latest`);
