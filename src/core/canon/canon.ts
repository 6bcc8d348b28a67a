// Canon reads and writes: recall filters, mention pages, approval with provenance, and the search text kept on each
// entity for full-text and trigram matching.
import { Prisma, type PrismaClient } from '../../generated/prisma/client.ts';
import { newId } from '../../ids.ts';
import { LoreError } from '../errors.ts';
import type { EntityHeading } from './overview.ts';
import { rows, statement, type SqlClient } from '../../db/sql.ts';

export type TxClient = Prisma.TransactionClient;

/** A relationship seen from one of its ends: outgoing when that entity is its `from` (it is `kind` of other). */
export type EntityRelationship = {
  id: string;
  kind: string;
  weight: number;
  direction: 'outgoing' | 'incoming';
  other: { id: string; name: string; type: EntityHeading['type']; aliases: string[]; status: EntityHeading['status'] };
};

/**
 * A PostgreSQL advisory lock on `name` for the rest of the transaction (the commit or rollback releases it): writers
 * that read, decide and then write take it, so racing ones run one after the other.
 */
export const holdUntilCommit = (tx: TxClient, name: string) => tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${name}, 0))`;

/**
 * The name of a project's writer lock (holdProject), for a writer that takes it in a statement of its own. Most writers
 * take it exclusive. A write confined to one existing entity that reads nothing of the others (a new fact without story
 * time or knowers, lore_create_fact; a change of an entity's state, confidence or status, AuthoringService.updateFields)
 * takes it shared and locks its entity's row for the rest: such writes to different entities run side by side, those
 * to one entity one after the other. A new entity takes it shared too, with the project's names lock exclusive
 * (holdProjectForNewEntity). A writer that changes existing names, chapters or the whole project (renames, imports,
 * retcons, deletions) still runs alone. The project's canon version is raised as each commits (the writelock_shared_writers
 * migration), so it does not queue them either.
 */
export const projectLockName = (projectId: string) => JSON.stringify(['project writes', projectId]);
const projectLock = statement('hold_project', 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))');

/** holdProject's lock for a writer going straight through the driver (src/db/sql.ts); the caller then checks the project. */
export const holdProjectLock = (sql: SqlClient, projectId: string) => rows(sql, projectLock, [projectLockName(projectId)]);

/** The name of the lock a new entity holds exclusive on its project's names (holdProjectForNewEntity). */
export const namesLockName = (projectId: string) => JSON.stringify(['project names', projectId]);
// The writer lock shared, then (the subquery is not flattened, so it is taken first) the names lock exclusive.
const newEntityLocks = statement('hold_project_new_entity', `
  SELECT pg_advisory_xact_lock(hashtextextended($2, 0)) FROM (SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0)) OFFSET 0) writers`);

/**
 * The locks of a new entity (AuthoringService.createEntity): it adds to the project's names and keys, and reads of the
 * rest only the names and the chapters, which only writers holding the project's lock exclusive change. So it takes
 * that lock shared, and new facts and state edits of other entities go on beside it, and the project's names lock
 * exclusive, so new entities run one at a time: each checks its names and key free, and marks the chapters' mentions
 * up to date under the names the one before it left (src/core/ingest/mentions.ts). The statement that takes them, for
 * a writer to send with its BEGIN (sqlTransaction's start).
 */
export const holdProjectForNewEntity = (projectId: string) => ({ statement: newEntityLocks, values: [projectLockName(projectId), namesLockName(projectId)] });

/**
 * One project's writers that read before they write (imports, authoring, review, stored conflicts, the model's beats),
 * one at a time. The project is looked for once the lock is held: a write that waited behind the project's deletion
 * answers not_found instead of failing on a foreign key.
 */
export async function holdProject(tx: TxClient, projectId: string): Promise<void> {
  await holdUntilCommit(tx, projectLockName(projectId));
  const found = await tx.$queryRaw<unknown[]>`SELECT 1 FROM "Project" WHERE id = ${projectId}`;
  if (found.length === 0) throw new LoreError('not_found', `Project ${projectId} not found.`);
}

export function nameText(name: string, aliases: string[]): string {
  return [name, ...aliases].join('\n');
}

/** Rewrites an entity's search text from its name, aliases and approved live facts. */
const searchTextRefresh = statement('refresh_search_text', `
  UPDATE "Entity" e SET "searchText" = e."nameText" || COALESCE(E'\n' || (
    SELECT string_agg(f.text, E'\n' ORDER BY f.id) FROM "Fact" f WHERE f."entityId" = e.id AND f.status = 'approved' AND f."retiredAt" IS NULL
  ), '')
  WHERE e.id = ANY($1::text[])`);

/** Rewrites an entity's search text from its name, aliases and approved live facts. */
export async function refreshSearchText(tx: TxClient, entityIds: string[]): Promise<void> {
  if (entityIds.length === 0) return;
  await tx.$executeRawUnsafe(searchTextRefresh.text, entityIds);
}

/** refreshSearchText for a writer going straight through the driver. */
export const refreshSearchTextSql = (sql: SqlClient, entityIds: string[]) => rows(sql, searchTextRefresh, [entityIds]);

/** `timestamp`: when the mention was recorded, ISO 8601 in UTC. */
export type MentionItem = { id: string; chapter: string; line: number; snippet: string; timestamp: string };
export type Page<T> = { data: T[]; hasMore: boolean; nextStartingAfter: string | null };

export const mentionSortKey = (ordinal: number, line: number, column: number, id: string) =>
  `${String(ordinal).padStart(8, '0')}:${String(line).padStart(8, '0')}:${String(column).padStart(6, '0')}:${id}`;

export type ApproveInput = { projectId: string; entityId: string; fact?: string; content?: string; decidedBy: string };
export type ApproveResult = { entityId: string; status: 'approved'; candidateId: string; decisionId: string };

export class CanonService {
  constructor(private readonly prisma: PrismaClient) {}

  /** Live facts of each entity (retired ones are its history), in the order of the ids, each list by id. */
  async factsOf(entityIds: readonly string[]) {
    const facts = await this.prisma.fact.findMany({ where: { entityId: { in: [...entityIds] }, retiredAt: null }, orderBy: { id: 'asc' } });
    const byEntity = new Map(entityIds.map((id) => [id, [] as typeof facts]));
    for (const fact of facts) byEntity.get(fact.entityId)?.push(fact);
    return entityIds.map((id) => byEntity.get(id)!);
  }

  /**
   * Each entity's relationships by either end, with the entity at the other end, in the order of the ids, each list by
   * kind then id: one statement for any number of entities (an entity page, a page of recall).
   */
  async relationshipsOf(entityIds: readonly string[]): Promise<EntityRelationship[][]> {
    const ids = [...entityIds];
    const end = { select: { id: true, name: true, type: true, aliases: true, status: true } } as const;
    const found = await this.prisma.relationship.findMany({
      where: { OR: [{ fromId: { in: ids } }, { toId: { in: ids } }] },
      select: { id: true, fromId: true, toId: true, kind: true, weight: true, from: end, to: end },
      orderBy: [{ kind: 'asc' }, { id: 'asc' }],
    });
    const byEntity = new Map(ids.map((id) => [id, [] as EntityRelationship[]]));
    for (const r of found) {
      const edge = { id: r.id, kind: r.kind, weight: r.weight };
      byEntity.get(r.fromId)?.push({ ...edge, direction: 'outgoing', other: r.to as EntityRelationship['other'] });
      // A self-loop is listed once.
      if (r.toId !== r.fromId) byEntity.get(r.toId)?.push({ ...edge, direction: 'incoming', other: r.from as EntityRelationship['other'] });
    }
    return ids.map((id) => byEntity.get(id)!);
  }

  async mentions(projectId: string, entityId: string, limit: number, startingAfter?: string): Promise<Page<MentionItem>> {
    let after: string | undefined;
    if (startingAfter) {
      const cursor = await this.prisma.mention.findFirst({ where: { id: startingAfter, entityId, projectId }, select: { sortKey: true } });
      if (!cursor) throw new LoreError('invalid_cursor', `starting_after ${startingAfter} is not a mention of this entity.`);
      after = cursor.sortKey;
    }
    const rows = await this.prisma.mention.findMany({
      where: { entityId, projectId, ...(after ? { sortKey: { gt: after } } : {}) },
      orderBy: { sortKey: 'asc' },
      take: limit + 1,
      select: { id: true, line: true, snippet: true, createdAt: true, chapter: { select: { externalId: true } } },
    });
    const page = rows.slice(0, limit);
    return {
      data: page.map((m) => ({ id: m.id, chapter: m.chapter.externalId, line: m.line, snippet: m.snippet, timestamp: m.createdAt.toISOString() })),
      hasMore: rows.length > limit,
      nextStartingAfter: rows.length > limit ? page[page.length - 1].id : null,
    };
  }

  /**
   * Records the proposal (candidate) and the decision with who and when, adds the fact as approved canon when one is
   * given, and marks the entity approved.
   */
  async approve(input: ApproveInput): Promise<ApproveResult> {
    return this.prisma.$transaction(async (tx) => {
      const candidate = await tx.candidate.create({
        data: {
          status: 'approved',
          id: newId('cnd'),
          projectId: input.projectId,
          entityId: input.entityId,
          fact: input.fact,
          content: input.content,
          source: 'api',
          proposedBy: input.decidedBy,
        },
      });
      const decision = await tx.decision.create({
        data: { id: newId('dec'), candidateId: candidate.id, status: 'approved', decidedBy: input.decidedBy },
      });
      if (input.fact) {
        const live = await tx.fact.findFirst({ where: { entityId: input.entityId, text: input.fact, retiredAt: null }, select: { id: true } });
        if (live) await tx.fact.update({ where: { id: live.id }, data: { status: 'approved', source: 'api', candidateId: candidate.id } });
        else {
          await tx.fact.create({
            data: { id: newId('fct'), projectId: input.projectId, entityId: input.entityId, text: input.fact, status: 'approved', source: 'api', candidateId: candidate.id, createdBy: input.decidedBy },
          });
        }
      }
      await tx.entity.update({ where: { id: input.entityId }, data: { status: 'approved', version: { increment: 1 } } });
      await refreshSearchText(tx, [input.entityId]);
      await tx.project.update({ where: { id: input.projectId }, data: { updatedAt: new Date() } });
      return { entityId: input.entityId, status: 'approved' as const, candidateId: candidate.id, decisionId: decision.id };
    });
  }
}
