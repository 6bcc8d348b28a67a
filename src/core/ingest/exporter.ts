// A project as a canon bundle in the import format (bundle.ts): what `lore export`, GraphQL exportProject and
// GET /projects/{id}/export hand out. The order is fixed and empty optional fields are left out, so importing an export
// into an empty project and exporting that again gives the same bundle, to the byte.
import { Prisma, type PrismaClient } from '../../generated/prisma/client.ts';
import { projectNotFound } from '../canon/projects.ts';
import type { TxClient } from '../canon/canon.ts';

type Status = 'approved' | 'suggested';

/** A timeless fact with its entity's status is plain text; any other fact says its span and status. */
export type ExportedKnower = { entity: string; from?: string; line?: number };
export type ExportedFact = string | { text: string; from?: string; until?: string; status: Status; known_by?: ExportedKnower[]; secret?: true };
export type ExportedStateChange = { from?: string; line?: number; anchor?: string; until?: string; state: Record<string, unknown> };
export type ExportedEntity = {
  key: string;
  type: string;
  name: string;
  aliases?: string[];
  state?: Record<string, unknown>;
  stateChanges?: ExportedStateChange[];
  facts?: ExportedFact[];
  status: Status;
  confidence?: number;
  promise?: { set_up_in?: string; paid_off_in?: string; involves?: string[]; status: 'open' | 'paid' | 'dropped' };
};
export type ExportedBundle = {
  project: { name: string; description?: string };
  entities?: ExportedEntity[];
  relationships?: { from: string; to: string; kind: string; weight: number }[];
  chapters?: { id: string; title?: string; ordinal: number; text?: string }[];
  timeline?: { chapter: string; beats: { summary: string; entities?: string[] }[] }[];
};

/** Code-point order: the same in every database collation and locale. */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The object's keys in code-point order, whatever order the store keeps them in. */
const sortedKeys = (value: Record<string, unknown>) => Object.fromEntries(Object.entries(value).sort(([a], [b]) => byText(a, b)));

/** `value` with its empty lists, empty objects and empty strings left out, for optional fields. */
function present<T>(value: T): T | undefined {
  if (value === '' || value === null || value === undefined) return undefined;
  if (Array.isArray(value) && value.length === 0) return undefined;
  if (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) return undefined;
  return value;
}

/** An object without the keys whose value is undefined, so they are absent rather than undefined. */
function compact<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) if (value[key] === undefined) delete value[key];
  return value;
}

export class Exporter {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * The project as a bundle, read in one snapshot (repeatable read) so a writer working meanwhile cannot leave a fact
   * without its entity; a handful of set queries whatever the project's size.
   */
  async export(projectId: string): Promise<ExportedBundle> {
    return this.prisma.$transaction((tx) => this.read(tx, projectId), {
      isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead,
      timeout: 300_000,
      maxWait: 30_000,
    });
  }

  private async read(tx: TxClient, projectId: string): Promise<ExportedBundle> {
    const project = await tx.project.findUnique({ where: { id: projectId }, select: { name: true, description: true } });
    if (!project) throw projectNotFound(projectId);
    const where = { projectId };
    const entities = await tx.entity.findMany({
      where, select: { id: true, key: true, type: true, name: true, aliases: true, baseState: true, status: true, confidence: true },
    });
    // Live facts only: retired ones are the entity's history, not canon.
    const facts = await tx.fact.findMany({
      where: { projectId, retiredAt: null }, orderBy: { id: 'asc' },
      select: { id: true, entityId: true, text: true, status: true, fromChapterId: true, untilChapterId: true, secret: true },
    });
    const knowers = await tx.factKnower.findMany({ where, select: { factId: true, entityId: true, fromChapterId: true, fromLine: true } });
    const stateValues = await tx.stateValue.findMany({
      where, orderBy: { id: 'asc' }, select: { entityId: true, key: true, value: true, fromChapterId: true, fromLine: true, fromAnchor: true, untilChapterId: true },
    });
    const relationships = await tx.relationship.findMany({ where, select: { fromId: true, toId: true, kind: true, weight: true } });
    const ledger = await tx.promiseLedger.findMany({ where, select: { entityId: true, setUpChapterId: true, paidOffChapterId: true, status: true, involves: true } });
    const chapters = await tx.chapter.findMany({ where, select: { id: true, externalId: true, title: true, ordinal: true, text: true, contentHash: true } });
    const beats = await tx.beat.findMany({
      where, orderBy: [{ chapterId: 'asc' }, { position: 'asc' }], select: { chapterId: true, summary: true, entityIds: true, source: true, chapterHash: true },
    });

    chapters.sort((a, b) => a.ordinal - b.ordinal || byText(a.externalId, b.externalId));
    const chapterById = new Map(chapters.map((c) => [c.id, c]));
    const keyOf = new Map(entities.map((e) => [e.id, e.key]));
    const statusOf = new Map(entities.map((e) => [e.id, e.status]));

    // Who knows each fact, by the knower's key (a bundle names entities by key), in key order.
    const knownBy = new Map<string, ExportedKnower[]>();
    for (const k of knowers) {
      const entity = keyOf.get(k.entityId);
      if (entity === undefined) continue;
      const from = k.fromChapterId ? chapterById.get(k.fromChapterId)?.externalId : undefined;
      knownBy.set(k.factId, [...(knownBy.get(k.factId) ?? []), compact({ entity, from, line: from ? (k.fromLine ?? undefined) : undefined })]);
    }
    for (const list of knownBy.values()) list.sort((a, b) => byText(a.entity, b.entity));

    const factsOf = new Map<string, ExportedFact[]>();
    for (const f of facts) {
      const from = f.fromChapterId ? chapterById.get(f.fromChapterId)?.externalId : undefined;
      const until = f.untilChapterId ? chapterById.get(f.untilChapterId)?.externalId : undefined;
      const known_by = knownBy.get(f.id);
      const secret = f.secret ? (true as const) : undefined;
      const plain = !from && !until && f.status === statusOf.get(f.entityId) && !known_by && !secret;
      const fact: ExportedFact = plain ? f.text : compact({ text: f.text, from, until, status: f.status, known_by, secret });
      const list = factsOf.get(f.entityId) ?? [];
      list.push(fact);
      factsOf.set(f.entityId, list);
    }

    const stateChangesOf = this.stateChanges(stateValues, chapterById);
    // Entities deleted since are left out of what a promise involves.
    const promiseOf = new Map(
      ledger.map((l) => [
        l.entityId,
        compact({
          set_up_in: l.setUpChapterId ? chapterById.get(l.setUpChapterId)?.externalId : undefined,
          paid_off_in: l.paidOffChapterId ? chapterById.get(l.paidOffChapterId)?.externalId : undefined,
          involves: present(l.involves.map((id) => keyOf.get(id)).filter((k): k is string => k !== undefined).sort(byText)),
          status: l.status,
        }),
      ]),
    );

    const exportedEntities = entities
      .sort((a, b) => byText(a.key, b.key))
      .map((e) =>
        compact<ExportedEntity>({
          key: e.key,
          type: e.type,
          name: e.name,
          aliases: present(e.aliases),
          state: present(sortedKeys(e.baseState as Record<string, unknown>)),
          stateChanges: present(stateChangesOf.get(e.id)),
          facts: present(factsOf.get(e.id)),
          status: e.status,
          confidence: e.confidence ?? undefined,
          promise: promiseOf.get(e.id),
        }),
      );

    const exportedRelationships = relationships
      .map((r) => ({ from: keyOf.get(r.fromId)!, to: keyOf.get(r.toId)!, kind: r.kind, weight: r.weight }))
      .sort((a, b) => byText(a.from, b.from) || byText(a.to, b.to) || byText(a.kind, b.kind));

    // The beats the timeline shows: imported ones, and the model's while they match the chapter's text (stale ones
    // would be summarised again). Entities deleted since are left out of a beat.
    const beatsOf = new Map<string, typeof beats>();
    for (const b of beats) {
      const list = beatsOf.get(b.chapterId) ?? [];
      list.push(b);
      beatsOf.set(b.chapterId, list);
    }
    const timeline = chapters.flatMap((c) => {
      const chapterBeats = beatsOf.get(c.id) ?? [];
      const shown = chapterBeats.some((b) => b.source === 'import') || chapterBeats.every((b) => b.chapterHash === c.contentHash);
      if (chapterBeats.length === 0 || !shown) return [];
      const keys = (ids: string[]) => present(ids.flatMap((id) => (keyOf.has(id) ? [keyOf.get(id)!] : [])));
      return [{ chapter: c.externalId, beats: chapterBeats.map((b) => compact({ summary: b.summary, entities: keys(b.entityIds) })) }];
    });

    return compact<ExportedBundle>({
      project: compact({ name: project.name, description: present(project.description) }),
      entities: present(exportedEntities),
      relationships: present(exportedRelationships),
      chapters: present(chapters.map((c) => compact({ id: c.externalId, title: present(c.title), ordinal: c.ordinal, text: present(c.text) }))),
      timeline: present(timeline),
    });
  }

  /**
   * Timed state values grouped by their span, earliest start first (an open start before any chapter), then the
   * earliest end (an open end last), then the chapter ids; keys in code-point order. Where one span holds a key twice,
   * the later value wins, as it does in stateAt.
   */
  private stateChanges(
    values: { entityId: string; key: string; value: unknown; fromChapterId: string | null; fromLine: number | null; fromAnchor: string | null; untilChapterId: string | null }[],
    chapters: Map<string, { externalId: string; ordinal: number }>,
  ): Map<string, ExportedStateChange[]> {
    type Group = { from?: { externalId: string; ordinal: number }; line?: number; anchor?: string; until?: { externalId: string; ordinal: number }; state: Map<string, unknown> };
    const groups = new Map<string, Map<string, Group>>();
    for (const v of values) {
      const spans = groups.get(v.entityId) ?? new Map<string, Group>();
      groups.set(v.entityId, spans);
      const span = JSON.stringify([v.fromChapterId, v.fromLine, v.fromAnchor, v.untilChapterId]);
      const group = spans.get(span) ?? {
        from: v.fromChapterId ? chapters.get(v.fromChapterId) : undefined,
        line: v.fromLine ?? undefined,
        anchor: v.fromAnchor ?? undefined,
        until: v.untilChapterId ? chapters.get(v.untilChapterId) : undefined,
        state: new Map(),
      };
      spans.set(span, group);
      group.state.set(v.key, v.value);
    }
    // Ordinals are at least 0: -1 sorts an open start first, MAX_SAFE_INTEGER an open end last.
    const order = (a: Group, b: Group) =>
      (a.from?.ordinal ?? -1) - (b.from?.ordinal ?? -1) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      byText(a.anchor ?? '', b.anchor ?? '') ||
      (a.until?.ordinal ?? Number.MAX_SAFE_INTEGER) - (b.until?.ordinal ?? Number.MAX_SAFE_INTEGER) ||
      byText(a.from?.externalId ?? '', b.from?.externalId ?? '') ||
      byText(a.until?.externalId ?? '', b.until?.externalId ?? '');
    return new Map(
      [...groups].map(([entityId, spans]) => [
        entityId,
        [...spans.values()].sort(order).map((g) =>
          compact<ExportedStateChange>({
            from: g.from?.externalId,
            line: g.line,
            anchor: g.anchor,
            until: g.until?.externalId,
            state: sortedKeys(Object.fromEntries(g.state)),
          }),
        ),
      ]),
    );
  }
}
