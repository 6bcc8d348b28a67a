// Facts written one at a time: created with their provenance, changed by a retcon (the old fact is retired into the
// entity's history and a new one written), retired; and what depends on a fact or an entity (stored conflicts that
// cite it, beats that involve it, mentions from the fact's first chapter on), so the writer knows what to revisit.
import { Prisma, type Fact, type PrismaClient } from '../../generated/prisma/client.ts';
import type { ConflictStatus } from '../../generated/prisma/enums.ts';
import { newId } from '../../ids.ts';
import { LoreError } from '../errors.ts';
import { holdProject, projectLockName, refreshSearchText, type MentionItem, type TxClient } from './canon.ts';
import { projectNotFound } from './projects.ts';
import { rows, statement, utcTimestamp, type SqlClient, type SqlTransaction } from '../../db/sql.ts';
import type { PipelinedAdmission } from '../metering/metering.ts';
import { auditValues, type PendingAudit } from '../audit/inTransaction.ts';
import { resolveSpan, type ResolvedSpan } from './storyTime.ts';
import { recordKnowledge, resolveKnowers, type KnowerInput } from '../knowledge/knowledge.ts';

export type FactStatus = 'approved' | 'suggested';

export type NewFact = {
  projectId: string;
  entityId: string;
  text: string;
  from?: string;
  until?: string;
  status: FactStatus;
  content?: string;
  keyId: string;
  /** the account the project must be: another account's project is not found, as a missing one */
  accountId: string;
  /** who knows it, from when; absent: common knowledge unless secret */
  knownBy?: KnowerInput[];
  /** the request's admission, to send with the write (or alone before it) */
  admission?: PipelinedAdmission;
  /** the mutation's audit entry, stored with the write where it can be (src/core/audit/inTransaction.ts) */
  audit?: PendingAudit;
  /** nobody knows it until someone learns it (knownBy) */
  secret?: boolean;
};
/** `fact`: the fact as stored, when the write knows it whole (so the answer needs no read of it). */
export type CreatedFact = { id: string; candidateId: string; decisionId: string | null; fact?: Fact };

/** A retcon's changes: an absent field keeps the fact's value; `from` or `until` null makes that end open. */
export type FactChanges = { text?: string; from?: string | null; until?: string | null; status?: FactStatus; knownBy?: KnowerInput[]; secret?: boolean };

export type DependentConflict = { id: string; status: ConflictStatus; kind: string; title: string };
export type DependentBeat = { id: string; chapter: string; summary: string };
export type Dependents = { conflicts: DependentConflict[]; beats: DependentBeat[]; mentions: MentionItem[]; mentionCount: number };

/** `dependents` is read only when the caller asks for it. */
export type RetconResult = { fact: Fact | null; replaced: Fact; decisionId: string | null; dependents: () => Promise<Dependents> };

/** Most conflicts, beats and mentions a dependents answer lists (mentionCount still counts them all). */
export const dependentsLimit = 200;

type LiveFact = Fact & { fromChapter: { externalId: string; ordinal: number } | null; untilChapter: { externalId: string; ordinal: number } | null };

const fieldError = (code: 'validation_error' | 'already_exists' | 'version_conflict', path: string, message: string) =>
  new LoreError(code, `${path}: ${message}`, { errors: [{ path, message }] });

const isUniqueViolation = (error: unknown) =>
  (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') || (error as { code?: unknown }).code === '23505'; // the driver's

// The whole write of a fact without story time or knowers, in one statement (the migrations factwrites_create_fact,
// writelock_shared_writers and writepath_admission say what lore_create_fact does): the fact ($1), its candidate ($2)
// and decision ($3, null when suggested), the project ($4) as the account's ($5), the audit entry ($13-$20, null:
// none). Null once written, else what refused it.
const createFactCall = statement('create_fact_owned', `
  SELECT lore_create_fact($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::timestamp(3), $12, $13, $14, $15, $16, $17, $18::text[], $19::jsonb,
    $20::timestamp(3)) AS refused`);

export class FactService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly sql: SqlClient,
    private readonly sqlTransaction: SqlTransaction,
  ) {}

  /** A new live fact with its provenance: a candidate (approved, or pending for a suggested fact) and for an approved fact the key's decision. */
  async create(input: NewFact): Promise<CreatedFact> {
    // Story time and who knows the fact need the chapters and entities they name: those go through the full path.
    if (input.from === undefined && input.until === undefined && !input.knownBy?.length && !input.secret) return this.createTimeless(input);
    await input.admission?.alone();
    return this.writing(() =>
      this.prisma.$transaction(async (tx) => {
        await holdProject(tx, input.projectId);
        const owned = await tx.project.findFirst({ where: { id: input.projectId, accountId: input.accountId }, select: { id: true } });
        if (!owned) throw projectNotFound(input.projectId);
        const entity = await tx.entity.findFirst({ where: { id: input.entityId, projectId: input.projectId }, select: { id: true } });
        if (!entity) throw fieldError('validation_error', 'entityId', `${input.entityId} is not an entity of this project`);
        const span = await resolveSpan(tx, input.projectId, { from: input.from, until: input.until }, 'input');
        await requireTextFree(tx, input.entityId, input.text);
        const knownBy = input.knownBy ? await resolveKnowers(tx, input.projectId, input.knownBy, 'input.knownBy') : [];
        const created = await write(tx, { ...input, id: newId('fct'), span });
        if (knownBy.length > 0 || input.secret) await recordKnowledge(tx, input.projectId, [{ entityId: input.entityId, text: input.text, secret: input.secret ?? false, knownBy }]);
        await refreshSearchText(tx, [input.entityId]);
        return created;
      }),
    );
  }

  /**
   * create for a fact without story time or knowers, the commonest: one statement (lore_create_fact) with the
   * project's writer lock (shared) and its entity's row lock, the checks, the writes and the audit entry, in a
   * transaction of its own.
   */
  private async createTimeless(input: NewFact): Promise<CreatedFact> {
    const approved = input.status === 'approved';
    const created = { id: newId('fct'), candidateId: newId('cnd'), decisionId: approved ? newId('dec') : null };
    const now = new Date();
    const fact: Fact = {
      id: created.id, projectId: input.projectId, entityId: input.entityId, text: input.text, status: input.status, source: 'api',
      candidateId: created.candidateId, fromChapterId: null, untilChapterId: null, createdBy: input.keyId, createdAt: now, retiredAt: null,
      retiredBy: null, replacedById: null, secret: false,
    };
    const audit = auditValues(input.audit, fact);
    const values = [
      created.id, created.candidateId, created.decisionId, input.projectId, input.accountId, input.entityId, input.text, input.status, input.content ?? null,
      input.keyId, utcTimestamp(now), projectLockName(input.projectId), ...(audit?.values ?? Array.from({ length: 8 }, () => null)),
    ];
    const { admission } = input;
    const [{ refused }] = await this.writing(() =>
      admission
        ? // One round trip: the request's admission, then the write in a transaction of its own.
          this.sqlTransaction<{ refused: string | null }[], { refused: string | null }>(async (_sql, found) => found, {
            ahead: admission, first: { statement: createFactCall, values }, commit: true,
          }).catch((error: unknown) => {
            throw admission.failed(error);
          })
        : rows<{ refused: string | null }>(this.sql, createFactCall, values),
    );
    if (refused === 'project') throw projectNotFound(input.projectId);
    if (refused === 'entity') throw fieldError('validation_error', 'entityId', `${input.entityId} is not an entity of this project`);
    if (refused) throw fieldError('already_exists', 'input.text', `is already a live fact of this entity (${refused.slice('live:'.length)})`);
    audit?.recorded();
    return { ...created, fact };
  }

  /**
   * A retcon: the live fact is retired (when, by which key, replaced by which fact) and a new fact written with the
   * changes, keeping what was not changed, with provenance of its own.
   */
  async update(projectId: string, factId: string, changes: FactChanges, keyId: string): Promise<RetconResult> {
    const done = await this.writing(() =>
      this.prisma.$transaction(async (tx) => {
        await holdProject(tx, projectId);
        const old = await liveFact(tx, projectId, factId);
        const next = {
          text: changes.text ?? old.text,
          from: changes.from !== undefined ? changes.from : (old.fromChapter?.externalId ?? null),
          until: changes.until !== undefined ? changes.until : (old.untilChapter?.externalId ?? null),
          status: changes.status ?? old.status,
        };
        // Who knows it follows the fact into its new version unless the retcon changes it.
        const oldKnowers = await tx.factKnower.findMany({ where: { factId: old.id }, select: { entityId: true, fromChapterId: true, fromLine: true }, orderBy: { entityId: 'asc' } });
        const knownBy = changes.knownBy ? await resolveKnowers(tx, projectId, changes.knownBy, 'input.knownBy') : oldKnowers;
        const secret = changes.secret ?? old.secret;
        const sameKnowledge = secret === old.secret && JSON.stringify([...knownBy].sort((a, b) => (a.entityId < b.entityId ? -1 : 1))) === JSON.stringify(oldKnowers);
        if (next.text === old.text && next.from === (old.fromChapter?.externalId ?? null) && next.until === (old.untilChapter?.externalId ?? null) && next.status === old.status && sameKnowledge) {
          throw fieldError('validation_error', 'input', 'changes nothing: give a new text, from, until, status, knownBy or secret');
        }
        const span = await resolveSpan(tx, projectId, next, 'input');
        if (next.text !== old.text) await requireTextFree(tx, old.entityId, next.text);
        const id = newId('fct');
        await retireRow(tx, old, keyId, id, `replaced by ${id}`);
        const created = await write(tx, { projectId, entityId: old.entityId, text: next.text, status: next.status, keyId, id, span });
        if (knownBy.length > 0 || secret) await recordKnowledge(tx, projectId, [{ entityId: old.entityId, text: next.text, secret, knownBy }]);
        await refreshSearchText(tx, [old.entityId]);
        return { id, oldId: old.id, decisionId: created.decisionId };
      }),
    );
    const [fact, replaced] = await Promise.all([this.byId(done.id), this.byId(done.oldId)]);
    return { fact, replaced, decisionId: done.decisionId, dependents: () => this.dependentsOf(projectId, [fact, replaced]) };
  }

  /** Retires a live fact: it leaves the canon and stays in the entity's history; the reason is kept with the decision. */
  async retire(projectId: string, factId: string, reason: string | undefined, keyId: string): Promise<RetconResult> {
    const done = await this.prisma.$transaction(async (tx) => {
      await holdProject(tx, projectId);
      const old = await liveFact(tx, projectId, factId);
      const decisionId = await retireRow(tx, old, keyId, null, reason ?? null);
      await refreshSearchText(tx, [old.entityId]);
      return { decisionId };
    });
    const replaced = await this.byId(factId);
    return { fact: null, replaced, decisionId: done.decisionId, dependents: () => this.dependentsOf(projectId, [replaced]) };
  }

  /** What depends on a fact (live or retired) or on an entity of the project; 404 when it is not the project's. */
  async dependents(projectId: string, target: { factId: string } | { entityId: string }): Promise<Dependents> {
    if ('factId' in target) {
      const fact = await this.prisma.fact.findFirst({ where: { id: target.factId, projectId } });
      if (!fact) throw new LoreError('not_found', `Fact ${target.factId} not found in project ${projectId}.`);
      return this.dependentsOf(projectId, [fact]);
    }
    const entity = await this.prisma.entity.findFirst({ where: { id: target.entityId, projectId }, select: { id: true } });
    if (!entity) throw new LoreError('not_found', `Entity ${target.entityId} not found in project ${projectId}.`);
    return this.collect(projectId, entity.id, [entity.id], null);
  }

  /** Retired facts of each entity, in the order of the ids, each list newest retirement first. */
  async historyOf(entityIds: readonly string[]): Promise<Fact[][]> {
    const facts = await this.prisma.fact.findMany({
      where: { entityId: { in: [...entityIds] }, retiredAt: { not: null } },
      orderBy: [{ retiredAt: 'desc' }, { id: 'desc' }],
    });
    const byEntity = new Map(entityIds.map((id) => [id, [] as Fact[]]));
    for (const fact of facts) byEntity.get(fact.entityId)?.push(fact);
    return entityIds.map((id) => byEntity.get(id)!);
  }

  private byId(id: string): Promise<Fact> {
    return this.prisma.fact.findUniqueOrThrow({ where: { id } });
  }

  /**
   * For facts of one entity (a retcon's old and new): conflicts citing any of them or the entity, and mentions from
   * the earliest chapter any of them holds from (every chapter when one holds from the start).
   */
  private async dependentsOf(projectId: string, facts: Fact[]): Promise<Dependents> {
    const starts = facts.map((f) => f.fromChapterId);
    const fromIds = starts.filter((id): id is string => id !== null);
    let since: number | null = null;
    if (fromIds.length === starts.length) {
      const chapters = await this.prisma.chapter.findMany({ where: { id: { in: fromIds } }, select: { ordinal: true } });
      since = Math.min(...chapters.map((c) => c.ordinal));
    }
    const entityId = facts[0].entityId;
    return this.collect(projectId, entityId, [...facts.map((f) => f.id), entityId], since);
  }

  /** Four set queries, whatever the numbers involved. `since`: the first chapter ordinal whose mentions count; null for all. */
  private async collect(projectId: string, entityId: string, refs: string[], since: number | null): Promise<Dependents> {
    // A mention's sort key starts with its chapter's zero-padded ordinal (mentionSortKey), so "from chapter n on" is a range of the index.
    const mentionWhere = { projectId, entityId, ...(since !== null ? { sortKey: { gte: String(since).padStart(8, '0') } } : {}) };
    const [conflicts, beats, mentions, mentionCount] = await Promise.all([
      this.prisma.conflict.findMany({
        where: { projectId, refs: { hasSome: refs } },
        orderBy: { id: 'desc' },
        take: dependentsLimit,
        select: { id: true, status: true, kind: true, title: true },
      }),
      this.prisma.beat.findMany({
        where: { projectId, entityIds: { has: entityId } },
        orderBy: [{ chapter: { ordinal: 'asc' } }, { chapterId: 'asc' }, { position: 'asc' }],
        take: dependentsLimit,
        select: { id: true, summary: true, chapter: { select: { externalId: true } } },
      }),
      this.prisma.mention.findMany({
        where: mentionWhere,
        orderBy: { sortKey: 'asc' },
        take: dependentsLimit,
        select: { id: true, line: true, snippet: true, createdAt: true, chapter: { select: { externalId: true } } },
      }),
      this.prisma.mention.count({ where: mentionWhere }),
    ]);
    return {
      conflicts,
      beats: beats.map((b) => ({ id: b.id, chapter: b.chapter.externalId, summary: b.summary })),
      mentions: mentions.map((m) => ({ id: m.id, chapter: m.chapter.externalId, line: m.line, snippet: m.snippet, timestamp: m.createdAt.toISOString() })),
      mentionCount,
    };
  }

  /** A write racing one that does not take the project lock (approve) can still meet the live-text index: the same 409. */
  private async writing<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw fieldError('already_exists', 'input.text', 'is already a live fact of this entity');
      throw error;
    }
  }
}

async function liveFact(tx: TxClient, projectId: string, factId: string): Promise<LiveFact> {
  const fact = await tx.fact.findFirst({
    where: { id: factId, projectId },
    include: { fromChapter: { select: { externalId: true, ordinal: true } }, untilChapter: { select: { externalId: true, ordinal: true } } },
  });
  if (!fact) throw new LoreError('not_found', `Fact ${factId} not found in project ${projectId}.`);
  if (fact.retiredAt) {
    // History is not rewritten: a retired fact is an out-of-date version of the canon.
    const replaced = fact.replacedById ? `; it was replaced by ${fact.replacedById}, change that one instead` : '';
    throw fieldError('version_conflict', 'factId', `was retired at ${fact.retiredAt.toISOString()}${replaced}`);
  }
  return fact;
}

async function requireTextFree(tx: TxClient, entityId: string, text: string): Promise<void> {
  const live = await tx.fact.findFirst({ where: { entityId, text, retiredAt: null }, select: { id: true } });
  if (live) throw fieldError('already_exists', 'input.text', `is already a live fact of this entity (${live.id})`);
}

async function write(
  tx: TxClient,
  fact: { id: string; projectId: string; entityId: string; text: string; status: FactStatus; content?: string; keyId: string; span: ResolvedSpan },
): Promise<CreatedFact> {
  const approved = fact.status === 'approved';
  const candidate = await tx.candidate.create({
    data: {
      id: newId('cnd'), projectId: fact.projectId, kind: 'fact', status: approved ? 'approved' : 'pending', entityId: fact.entityId,
      fact: fact.text, content: fact.content, source: 'api', proposedBy: fact.keyId,
    },
    select: { id: true },
  });
  const decision = approved
    ? await tx.decision.create({ data: { id: newId('dec'), candidateId: candidate.id, status: 'approved', decidedBy: fact.keyId }, select: { id: true } })
    : null;
  await tx.fact.create({
    data: {
      id: fact.id, projectId: fact.projectId, entityId: fact.entityId, text: fact.text, status: fact.status, source: 'api', candidateId: candidate.id,
      fromChapterId: fact.span.fromChapterId, untilChapterId: fact.span.untilChapterId, createdBy: fact.keyId,
    },
  });
  return { id: fact.id, candidateId: candidate.id, decisionId: decision?.id ?? null };
}

/**
 * Retires a live fact. Its proposal leaves the review queue if it was still there, and a retirement (not a
 * replacement) is recorded on the proposal as a rejection with its reason: who withdrew the fact, when and why.
 */
async function retireRow(tx: TxClient, fact: Fact, keyId: string, replacedById: string | null, reason: string | null): Promise<string | null> {
  await tx.fact.update({ where: { id: fact.id }, data: { retiredAt: new Date(), retiredBy: keyId, replacedById } });
  if (!fact.candidateId) return null;
  const candidate = await tx.candidate.findUnique({ where: { id: fact.candidateId }, select: { status: true } });
  if (!candidate || (replacedById && candidate.status !== 'pending')) return null;
  await tx.candidate.update({ where: { id: fact.candidateId }, data: { status: 'rejected' } });
  const decision = await tx.decision.create({ data: { id: newId('dec'), candidateId: fact.candidateId, status: 'rejected', reason, decidedBy: keyId }, select: { id: true } });
  return replacedById ? null : decision.id;
}
