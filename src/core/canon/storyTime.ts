// Story time: a fact or a state value holds from a chapter (inclusive) until a chapter (exclusive), compared by the
// chapters' ordinals; a missing end is open. Callers name chapters by their ids in the manuscript (Chapter.externalId);
// rows point at Chapter.id.
import type { Prisma } from '../../generated/prisma/client.ts';
import { LoreError } from '../errors.ts';
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
  const byExternal = new Map(chapters.map((c) => [c.externalId, c]));
  const errors: { path: string; message: string }[] = [];
  const at = (path: string, field: string) => (path ? `${path}.${field}` : field);
  const resolved = spans.map(({ span, path }) => {
    const from = span.from ? byExternal.get(span.from) : undefined;
    const until = span.until ? byExternal.get(span.until) : undefined;
    if (span.from && !from) errors.push({ path: at(path, 'from'), message: `${span.from} is not a chapter of this project` });
    if (span.until && !until) errors.push({ path: at(path, 'until'), message: `${span.until} is not a chapter of this project` });
    if (from && until && until.ordinal <= from.ordinal) {
      errors.push({ path: at(path, 'until'), message: `must be a later chapter than from (${from.externalId}, ordinal ${from.ordinal}); ${until.externalId} has ordinal ${until.ordinal}` });
    }
    return { fromChapterId: from?.id ?? null, untilChapterId: until?.id ?? null };
  });
  if (errors.length > 0) {
    throw new LoreError('validation_error', errors.slice(0, 5).map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
  }
  return resolved;
}

/** The chapter `as_of` names, or a validation_error naming `field`. */
export async function resolveAsOf(db: Db, projectId: string, chapter: string, field = 'as_of'): Promise<ChapterRef> {
  const found = await db.chapter.findFirst({ where: { projectId, externalId: chapter }, select: { id: true, externalId: true, ordinal: true } });
  if (!found) {
    throw new LoreError('validation_error', `${field}: ${chapter} is not a chapter of this project`, { errors: [{ path: field, message: `${chapter} is not a chapter of this project` }] });
  }
  return found;
}

/** Ordinals of a span's ends; null where open. */
export type OrdinalSpan = { from: number | null; until: number | null };

/** Whether a span holds at chapter ordinal `at`; `at` undefined is "after the last chapter": only open-ended spans hold. */
export function holdsAt(span: OrdinalSpan, at: number | undefined): boolean {
  if (at === undefined) return span.until === null;
  return (span.from === null || span.from <= at) && (span.until === null || at < span.until);
}

export type TimedValue = OrdinalSpan & { key: string; value: unknown };

/**
 * The state at chapter ordinal `at` (undefined: after the last chapter): the timeless values, overlaid with the timed
 * values that hold there in order of their start (a later start wins; an open start counts as the earliest).
 */
export function stateAt(baseState: unknown, timed: TimedValue[], at: number | undefined): Record<string, unknown> {
  const state: Record<string, unknown> = { ...((baseState && typeof baseState === 'object' ? baseState : {}) as Record<string, unknown>) };
  const holding = timed.filter((v) => holdsAt(v, at)).sort((a, b) => (a.from ?? -Infinity) - (b.from ?? -Infinity));
  for (const v of holding) state[v.key] = v.value;
  return state;
}

/** Timed state values of entities with their spans as ordinals. */
export async function timedValues(tx: TxClient, entityIds: string[]): Promise<Map<string, TimedValue[]>> {
  const rows = entityIds.length
    ? await tx.$queryRaw<(TimedValue & { entityId: string })[]>`
        SELECT v."entityId", v.key, v.value, fc.ordinal AS "from", uc.ordinal AS "until"
        FROM "StateValue" v LEFT JOIN "Chapter" fc ON fc.id = v."fromChapterId" LEFT JOIN "Chapter" uc ON uc.id = v."untilChapterId"
        WHERE v."entityId" = ANY(${entityIds}::text[]) ORDER BY v.id`
    : [];
  const byEntity = new Map<string, TimedValue[]>(entityIds.map((id) => [id, []]));
  for (const { entityId, ...value } of rows) byEntity.get(entityId)?.push(value);
  return byEntity;
}

/**
 * Rewrites Entity.state (the state after the last chapter, which recall shows without as_of) from the base state and
 * the timed values: after any write of either, and after chapters are reordered or deleted.
 */
export async function recomputeLatestState(tx: TxClient, entityIds: string[]): Promise<void> {
  if (entityIds.length === 0) return;
  const entities = await tx.entity.findMany({ where: { id: { in: entityIds } }, select: { id: true, baseState: true, state: true } });
  const timed = await timedValues(tx, entityIds);
  for (const e of entities) {
    const latest = stateAt(e.baseState, timed.get(e.id) ?? [], undefined);
    if (JSON.stringify(latest) !== JSON.stringify(e.state)) {
      await tx.entity.update({ where: { id: e.id }, data: { state: latest as Prisma.InputJsonValue } });
    }
  }
}
