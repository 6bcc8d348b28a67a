// Reads for people looking at a whole project at once (the dashboard): entities of a type in name order a page at a
// time, the mention map (entities × chapters), the names recognised in a chapter and where a fact came from. Each is
// one or two statements whatever the size of the project.
import type { EntityType } from '../../generated/prisma/enums.ts';
import { Prisma, type PrismaClient } from '../../generated/prisma/client.ts';
import { LoreError } from '../errors.ts';
import type { Page } from './canon.ts';

export type EntityHeading = { id: string; name: string; type: EntityType; aliases: string[]; status: 'approved' | 'suggested' };
export type EntityList = Page<EntityHeading> & { total: number };
export type MentionMapRow = { entityId: string; name: string; type: EntityType; total: number; counts: number[] };
export type MentionMap = { chapters: { id: string; title: string; ordinal: number }[]; rows: MentionMapRow[] };
export type ChapterName = { entityId: string; name: string; aliases: string[]; type: EntityType; line: number; column: number };
export type FactProvenance = {
  candidateId: string;
  proposedBy: string;
  proposedAt: Date;
  content: string | null;
  source: string;
  decidedBy: string | null;
  decidedAt: Date | null;
  decision: 'approved' | 'rejected' | null;
};

const headingSelect = { id: true, name: true, type: true, aliases: true, status: true } as const;

/**
 * A canon id a conflict cites, resolved for a reader: what it is, a label (an entity's name, a fact's text, a
 * relationship as "from kind to", a beat's summary), the entity to open for it and, for a beat, its chapter.
 */
export type CitedCanon = { id: string; kind: 'entity' | 'fact' | 'relationship' | 'beat'; label: string; entityId: string | null; chapter: string | null };

export class CanonOverview {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * The canon each list of refs cites, in its order, each list scoped to its project; refs that name nothing (since
   * deleted, or never canon) are left out. Four statements for any number of lists.
   */
  async cited(lists: readonly { projectId: string; refs: string[] }[]): Promise<CitedCanon[][]> {
    const ids = [...new Set(lists.flatMap((l) => l.refs))];
    const projectIds = [...new Set(lists.map((l) => l.projectId))];
    const where = { id: { in: ids }, projectId: { in: projectIds } };
    const [entities, facts, relationships, beats] = ids.length === 0 ? [[], [], [], []] : await Promise.all([
      this.prisma.entity.findMany({ where, select: { id: true, projectId: true, name: true } }),
      this.prisma.fact.findMany({ where, select: { id: true, projectId: true, text: true, entityId: true } }),
      this.prisma.relationship.findMany({ where, select: { id: true, projectId: true, kind: true, fromId: true, from: { select: { name: true } }, to: { select: { name: true } } } }),
      this.prisma.beat.findMany({ where, select: { id: true, projectId: true, summary: true, chapter: { select: { externalId: true } } } }),
    ]);
    const found = new Map<string, CitedCanon & { projectId: string }>();
    for (const e of entities) found.set(e.id, { id: e.id, projectId: e.projectId, kind: 'entity', label: e.name, entityId: e.id, chapter: null });
    for (const f of facts) found.set(f.id, { id: f.id, projectId: f.projectId, kind: 'fact', label: f.text, entityId: f.entityId, chapter: null });
    for (const r of relationships) {
      found.set(r.id, { id: r.id, projectId: r.projectId, kind: 'relationship', label: `${r.from.name} ${r.kind.replaceAll('_', ' ')} ${r.to.name}`, entityId: r.fromId, chapter: null });
    }
    for (const b of beats) found.set(b.id, { id: b.id, projectId: b.projectId, kind: 'beat', label: b.summary, entityId: null, chapter: b.chapter.externalId });
    return lists.map((l) =>
      l.refs.flatMap((ref) => {
        const hit = found.get(ref);
        if (!hit || hit.projectId !== l.projectId) return [];
        const { projectId: _, ...cited } = hit;
        return [cited];
      }),
    );
  }

  /** Entities of the project (of one type when given) in name order; `startingAfter`: the last entity id of the previous page. */
  async entityList(projectId: string, type: EntityType | undefined, limit: number, startingAfter?: string): Promise<EntityList> {
    let after: { name: string; id: string } | undefined;
    if (startingAfter) {
      const cursor = await this.prisma.entity.findFirst({ where: { id: startingAfter, projectId }, select: { name: true, id: true } });
      if (!cursor) throw new LoreError('invalid_cursor', `starting_after ${startingAfter} is not an entity of this project.`);
      after = cursor;
    }
    const where = { projectId, ...(type && { type }) };
    const [rows, total] = await Promise.all([
      this.prisma.entity.findMany({
        where: { ...where, ...(after && { OR: [{ name: { gt: after.name } }, { name: after.name, id: { gt: after.id } }] }) },
        orderBy: [{ name: 'asc' }, { id: 'asc' }],
        take: limit + 1,
        select: headingSelect,
      }),
      this.prisma.entity.count({ where }),
    ]);
    const data = rows.slice(0, limit);
    return { data, total, hasMore: rows.length > limit, nextStartingAfter: rows.length > limit ? data[data.length - 1].id : null };
  }

  /**
   * How often each entity is mentioned in each chapter, for the `limit` most mentioned entities (of one type when
   * given), most mentioned first; counts follow the chapters in reading order. One grouped statement over the
   * project's mentions (found through its chapters, which index them), then the names of the entities kept.
   */
  async mentionMap(projectId: string, type: EntityType | undefined, limit: number): Promise<MentionMap> {
    const [chapters, counts] = await Promise.all([
      this.prisma.chapter.findMany({ where: { projectId }, orderBy: [{ ordinal: 'asc' }, { id: 'asc' }], select: { id: true, externalId: true, title: true, ordinal: true } }),
      this.prisma.$queryRaw<{ entityId: string; chapterId: string; n: number }[]>`
        SELECT m."entityId", m."chapterId", count(*)::int AS n
        FROM "Chapter" c JOIN "Mention" m ON m."chapterId" = c.id
        ${type ? Prisma.sql`JOIN "Entity" e ON e.id = m."entityId" AND e.type = ${type}::"EntityType"` : Prisma.empty}
        WHERE c."projectId" = ${projectId}
        GROUP BY m."entityId", m."chapterId"`,
    ]);
    const column = new Map(chapters.map((c, i) => [c.id, i]));
    const byEntity = new Map<string, { total: number; counts: number[] }>();
    for (const { entityId, chapterId, n } of counts) {
      const row = byEntity.get(entityId) ?? { total: 0, counts: new Array<number>(chapters.length).fill(0) };
      row.total += n;
      row.counts[column.get(chapterId)!] += n;
      byEntity.set(entityId, row);
    }
    const kept = [...byEntity.entries()].sort((a, b) => b[1].total - a[1].total || (a[0] < b[0] ? -1 : 1)).slice(0, limit);
    const entities = await this.prisma.entity.findMany({ where: { id: { in: kept.map(([id]) => id) } }, select: { id: true, name: true, type: true } });
    const byId = new Map(entities.map((e) => [e.id, e]));
    return {
      chapters: chapters.map((c) => ({ id: c.externalId, title: c.title, ordinal: c.ordinal })),
      rows: kept.flatMap(([id, row]) => {
        const entity = byId.get(id);
        return entity ? [{ entityId: id, name: entity.name, type: entity.type, ...row }] : [];
      }),
    };
  }

  /** The names recognised in a chapter (its mentions, with the entity's names), in reading order. */
  async chapterNames(projectId: string, chapterId: string): Promise<ChapterName[]> {
    const chapter = await this.prisma.chapter.findUnique({ where: { projectId_externalId: { projectId, externalId: chapterId } }, select: { id: true } });
    if (!chapter) return [];
    const mentions = await this.prisma.mention.findMany({
      where: { chapterId: chapter.id },
      orderBy: [{ line: 'asc' }, { column: 'asc' }],
      select: { line: true, column: true, entity: { select: { id: true, name: true, aliases: true, type: true } } },
    });
    return mentions.map((m) => ({ entityId: m.entity.id, name: m.entity.name, aliases: m.entity.aliases, type: m.entity.type, line: m.line, column: m.column }));
  }

  /** Where facts came from: their candidates with the latest decision, in the order of the candidate ids. */
  async provenance(candidateIds: readonly string[]): Promise<(FactProvenance | null)[]> {
    const candidates = await this.prisma.candidate.findMany({
      where: { id: { in: [...candidateIds] } },
      select: {
        id: true, proposedBy: true, createdAt: true, content: true, source: true,
        decisions: { orderBy: { decidedAt: 'desc' }, take: 1, select: { status: true, decidedBy: true, decidedAt: true } },
      },
    });
    const byId = new Map(candidates.map((c) => {
      const decision = c.decisions[0];
      return [c.id, {
        candidateId: c.id, proposedBy: c.proposedBy, proposedAt: c.createdAt, content: c.content, source: c.source,
        decidedBy: decision?.decidedBy ?? null, decidedAt: decision?.decidedAt ?? null, decision: decision?.status ?? null,
      } satisfies FactProvenance];
    }));
    return candidateIds.map((id) => byId.get(id) ?? null);
  }
}
