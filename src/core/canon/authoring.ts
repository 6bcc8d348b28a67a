// Authoring: entities and relationships written one at a time, and a project deleted whole. Every write runs in one
// transaction under the project's writer lock (holdProject) and checks there that the project is still the account's,
// so a write racing a project delete answers 404 instead of failing on a foreign key; nothing is written on any error.
import { Prisma, type PrismaClient } from '../../generated/prisma/client.ts';
import type { EntityType } from '../../generated/prisma/enums.ts';
import { rows, statement, utcTimestamp, type SqlClient, type SqlTransaction } from '../../db/sql.ts';
import { recordAudit } from '../audit/inTransaction.ts';
import { newId } from '../../ids.ts';
import { LoreError } from '../errors.ts';
import { currentNamesHash, recordEntityMentions } from '../ingest/mentions.ts';
import type { GraphOutbox } from '../relationships/outbox.ts';
import { stableStringify } from '../json.ts';
import { holdProject, holdProjectLock, nameText, refreshSearchText, type TxClient } from './canon.ts';
import type { EntityReader, EntityRecord } from './entities.ts';
import { freeEntityKey, requireNamesFree } from './names.ts';
import { entityNotFound, projectNotFound } from './projects.ts';
import { recomputeLatestState, resolveSpans, stateAtSql } from './storyTime.ts';
import { removeAccountProjects, Slices } from './slices.ts';

type State = Record<string, unknown>;
type Approval = 'approved' | 'suggested';

/** Timed state values with the same span, as written and as read back: `from`/`until` are chapter ids. */
export type StateChange = { from: string | null; until: string | null; state: State };
/** An entity's state as its author wrote it: the timeless values and the timed ones. */
export type AuthoredState = { state: State; stateChanges: StateChange[] };
/** An entity as a write leaves it, read in the writer's transaction. */
export type AuthoredEntity = EntityRecord & { authored: AuthoredState };

export type StateChangeInput = { from?: string | null; until?: string | null; state: State };
export type CreateEntityInput = {
  key?: string;
  type: EntityType;
  name: string;
  aliases: string[];
  state: State;
  stateChanges: StateChangeInput[];
  confidence?: number;
  status: Approval;
};
/** Absent fields stay as they are; `confidence: null` clears it; `state` is merged (a null value removes its key). */
export type UpdateEntityInput = {
  type?: EntityType;
  name?: string;
  aliases?: string[];
  state?: State;
  stateChanges?: StateChangeInput[];
  confidence?: number | null;
  status?: Approval;
  expectedVersion?: number;
};

export type RelationshipRecord = { id: string; from: string; to: string; kind: string; weight: number };
export type CreateRelationshipInput = { from: string; to: string; kind: string; weight: number };
export type UpdateRelationshipInput = { kind?: string; weight?: number };
export type Deleted = { id: string; deleted: true };

const transaction = { timeout: 120_000, maxWait: 30_000 };

// Whether the project is the account's, and the entity (locked for the change) when the project has it.
const entityForUpdate = statement('entity_for_update', `
  SELECT EXISTS (SELECT 1 FROM "Project" WHERE id = $1 AND "accountId" = $2) AS owned, e."baseState", e.version
  FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT "baseState", version FROM "Entity" WHERE id = $3 AND "projectId" = $1 FOR UPDATE) e ON true`);

// $2: the new timeless state (null: unchanged), the latest state recomputed from it; $3: whether to set confidence to $4.
const fieldsUpdate = statement('entity_fields_update', `
  UPDATE "Entity" e SET version = e.version + 1, "updatedAt" = $6::timestamp(3),
    "baseState" = COALESCE($2::jsonb, e."baseState"),
    state = CASE WHEN $2::jsonb IS NULL THEN e.state ELSE ${stateAtSql('e', null, '$2::jsonb')} END,
    confidence = CASE WHEN $3::boolean THEN $4::float8 ELSE e.confidence END,
    status = COALESCE($5::text::"ApprovalStatus", e.status)
  WHERE e.id = $1`);

const authoredStatesStatement = statement('authored_states', `
  SELECT e.id AS "entityId", e."baseState", fc."externalId" AS "from", uc."externalId" AS "until", v.key, v.value
  FROM "Entity" e
  LEFT JOIN "StateValue" v ON v."entityId" = e.id
  LEFT JOIN "Chapter" fc ON fc.id = v."fromChapterId"
  LEFT JOIN "Chapter" uc ON uc.id = v."untilChapterId"
  WHERE e.id = ANY($1::text[])
  ORDER BY e.id, fc.ordinal NULLS FIRST, uc.ordinal NULLS LAST, v.id`);
// A large project's rows go in one transaction.
const projectDeletion = { timeout: 600_000, maxWait: 30_000 };
/** The owner of projects being deleted in slices: accounts of this name hold no keys. */
const deletingAccountName = 'lore: deletion in progress';

const fieldError = (code: 'not_found' | 'name_taken' | 'already_exists' | 'validation_error', path: string, message: string, detail = `${path}: ${message}`) =>
  new LoreError(code, detail, { errors: [{ path, message }] });

const relationshipNotFound = (projectId: string, relationshipId: string) =>
  new LoreError('not_found', `Relationship ${relationshipId} not found in project ${projectId}.`);

const versionConflict = (entityId: string, current: number, expected: number) =>
  new LoreError('version_conflict', `Entity ${entityId} is at version ${current}, not ${expected}: read it again, then repeat the change.`, {
    currentVersion: current,
    errors: [{ path: 'input.expectedVersion', message: `the entity is at version ${current}` }],
  });

/** The entity statements of src/core/canon/entities.ts, run inside a writer's transaction (to answer with its write). */
function inTransaction(tx: TxClient): SqlClient {
  return { query: async (config) => ({ rows: await tx.$queryRawUnsafe(config.text, ...(config.values ?? [])) }) as never };
}

/** Takes the project's writer lock, then checks the project is (still) the account's. */
async function holdOwnedProject(tx: TxClient, accountId: string, projectId: string): Promise<void> {
  await holdProject(tx, projectId);
  const owned = await tx.$queryRaw<unknown[]>`SELECT 1 FROM "Project" WHERE id = ${projectId} AND "accountId" = ${accountId}`;
  if (owned.length === 0) throw projectNotFound(projectId);
}

const nameFields = (name: string, aliases: string[]) => [{ path: 'input.name', name }, ...aliases.map((alias, i) => ({ path: `input.aliases.${i}`, name: alias }))];

/** A JSON merge patch at the top level: a null value removes its key, any other value replaces it. */
function mergeState(current: State, patch: State): State {
  const merged = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

export class AuthoringService {
  /** `yieldStore`: on PGlite, where every tenant's statements run one at a time, a project is deleted in slices. */
  constructor(
    private readonly prisma: PrismaClient,
    private readonly sql: SqlClient,
    private readonly sqlTransaction: SqlTransaction,
    private readonly entities: EntityReader,
    private readonly graphOutbox: GraphOutbox,
    private readonly yieldStore?: (sliceMs: number) => Promise<void>,
  ) {}

  /** A suggested entity is also proposed (a pending candidate of kind entity by `keyId`), so the review queue shows it. */
  async createEntity(accountId: string, keyId: string, projectId: string, input: CreateEntityInput): Promise<AuthoredEntity> {
    return this.prisma.$transaction(async (tx) => {
      await holdOwnedProject(tx, accountId, projectId);
      const timed = await this.timedRows(tx, projectId, input.stateChanges);
      if (input.key !== undefined) {
        const holder = await tx.entity.findUnique({ where: { projectId_key: { projectId, key: input.key } }, select: { id: true, name: true } });
        if (holder) throw fieldError('name_taken', 'input.key', `${input.key} is already the key of ${holder.name} (${holder.id})`);
      }
      await requireNamesFree(tx, projectId, nameFields(input.name, input.aliases));
      const previousNames = await currentNamesHash(tx, projectId);
      const id = newId('ent');
      const baseState = mergeState({}, input.state) as Prisma.InputJsonObject;
      const names = nameText(input.name, input.aliases);
      await tx.entity.create({
        data: {
          id, projectId, key: input.key ?? (await freeEntityKey(tx, projectId, input.name)), type: input.type, name: input.name, aliases: input.aliases,
          baseState, state: baseState, status: input.status, confidence: input.confidence ?? null, nameText: names, searchText: names,
        },
      });
      await this.writeTimed(tx, projectId, id, timed);
      if (input.status === 'suggested') {
        await tx.candidate.create({
          data: {
            id: newId('cnd'), projectId, kind: 'entity', status: 'pending', entityId: id, source: 'api', proposedBy: keyId,
            proposal: { name: input.name, type: input.type, aliases: input.aliases, facts: [] },
          },
        });
      }
      await recomputeLatestState(tx, [id]);
      await recordEntityMentions(tx, projectId, [id], previousNames);
      await refreshSearchText(tx, [id]);
      await this.graphOutbox.record(tx, projectId, { nodes: [{ id, label: input.name, type: input.type }], edges: [] });
      return this.answer(tx, accountId, projectId, id);
    }, transaction);
  }

  /**
   * Raises the version by one, atomically: with expectedVersion only when the entity is still at it (409
   * version_conflict otherwise); without, under the entity's row lock, so the later of two writes wins whole.
   */
  async updateEntity(accountId: string, projectId: string, entityId: string, input: UpdateEntityInput): Promise<AuthoredEntity> {
    if (input.type === undefined && input.name === undefined && input.aliases === undefined && input.stateChanges === undefined) {
      return this.updateFields(accountId, projectId, entityId, input);
    }
    return this.prisma.$transaction(async (tx) => {
      await holdOwnedProject(tx, accountId, projectId);
      const [current] = await tx.$queryRaw<{ name: string; aliases: string[]; type: EntityType; baseState: State; version: number }[]>`
        SELECT name, aliases, type::text AS type, "baseState", version FROM "Entity" WHERE id = ${entityId} AND "projectId" = ${projectId} FOR UPDATE`;
      if (!current) throw entityNotFound(projectId, entityId);
      const expected = input.expectedVersion;
      if (expected !== undefined && expected !== current.version) throw versionConflict(entityId, current.version, expected);
      const timed = input.stateChanges && (await this.timedRows(tx, projectId, input.stateChanges));

      const name = input.name ?? current.name;
      const aliases = input.aliases ?? current.aliases;
      const renamed = name !== current.name || stableStringify(aliases) !== stableStringify(current.aliases);
      if (renamed) await requireNamesFree(tx, projectId, nameFields(name, aliases), entityId);
      const previousNames = renamed ? await currentNamesHash(tx, projectId) : '';

      const { count } = await tx.entity.updateMany({
        where: { id: entityId, projectId, ...(expected !== undefined ? { version: expected } : {}) },
        data: {
          version: { increment: 1 },
          ...(input.type !== undefined ? { type: input.type } : {}),
          ...(renamed ? { name, aliases, nameText: nameText(name, aliases) } : {}),
          ...(input.state !== undefined ? { baseState: mergeState(current.baseState, input.state) as Prisma.InputJsonObject } : {}),
          ...(input.confidence !== undefined ? { confidence: input.confidence } : {}),
          ...(input.status !== undefined ? { status: input.status } : {}),
        },
      });
      if (count === 0) throw versionConflict(entityId, current.version, expected ?? current.version);
      if (timed) {
        await tx.stateValue.deleteMany({ where: { entityId } });
        await this.writeTimed(tx, projectId, entityId, timed);
      }
      if (timed || input.state !== undefined) await recomputeLatestState(tx, [entityId]);
      if (renamed) {
        await recordEntityMentions(tx, projectId, [entityId], previousNames);
        await refreshSearchText(tx, [entityId]);
      }
      const type = input.type ?? current.type;
      if (name !== current.name || type !== current.type) await this.graphOutbox.record(tx, projectId, { nodes: [{ id: entityId, label: name, type }], edges: [] });
      return this.answer(tx, accountId, projectId, entityId);
    }, transaction);
  }

  /**
   * updateEntity for a change of the state, confidence or status alone, the commonest edit: nothing about names, the
   * graph or timed values moves, so it runs straight through the driver in one transaction of seven statements (the
   * lock; the project and entity; the change, with the state recomputed; the answer's two reads; the audit entry).
   */
  private async updateFields(accountId: string, projectId: string, entityId: string, input: UpdateEntityInput): Promise<AuthoredEntity> {
    return this.sqlTransaction(async (sql) => {
      await holdProjectLock(sql, projectId);
      const [current] = await rows<{ owned: boolean; baseState: State | null; version: number | null }>(sql, entityForUpdate, [projectId, accountId, entityId]);
      if (!current.owned) throw projectNotFound(projectId);
      if (current.version === null) throw entityNotFound(projectId, entityId);
      const expected = input.expectedVersion;
      if (expected !== undefined && expected !== current.version) throw versionConflict(entityId, current.version, expected);
      const baseState = input.state === undefined ? null : JSON.stringify(mergeState(current.baseState ?? {}, input.state));
      await rows(sql, fieldsUpdate, [
        entityId, baseState, input.confidence !== undefined, input.confidence ?? null, input.status ?? null, utcTimestamp(new Date()),
      ]);
      const [record] = (await this.entities.byIds(accountId, projectId, [entityId], sql))!;
      const [authored] = await this.authoredStates([entityId], sql);
      const answer = { ...record, authored };
      await recordAudit(sql, answer);
      return answer;
    });
  }

  /**
   * The entity goes with its facts, state values, mentions, relationships and conflict links (foreign keys cascade);
   * beats no longer name it; proposals about it stay on record (their entity becomes null).
   */
  async deleteEntity(accountId: string, projectId: string, entityId: string): Promise<Deleted> {
    return this.prisma.$transaction(async (tx) => {
      await holdOwnedProject(tx, accountId, projectId);
      const found = await tx.entity.findFirst({ where: { id: entityId, projectId }, select: { id: true } });
      if (!found) throw entityNotFound(projectId, entityId);
      const previousNames = await currentNamesHash(tx, projectId);
      await tx.$executeRaw`
        UPDATE "Beat" SET "entityIds" = array_remove("entityIds", ${entityId}) WHERE "projectId" = ${projectId} AND ${entityId} = ANY("entityIds")`;
      await tx.entity.delete({ where: { id: entityId } });
      // Its mentions went with it; this marks the chapters that were up to date as up to date under the names left.
      await recordEntityMentions(tx, projectId, [entityId], previousNames);
      await this.graphOutbox.recordDeletes(tx, projectId, { nodes: [entityId], edges: [] });
      return { id: entityId, deleted: true as const };
    }, transaction);
  }

  async createRelationship(accountId: string, projectId: string, input: CreateRelationshipInput): Promise<RelationshipRecord> {
    return this.prisma.$transaction(async (tx) => {
      await holdOwnedProject(tx, accountId, projectId);
      const ends = new Set((await tx.entity.findMany({ where: { projectId, id: { in: [input.from, input.to] } }, select: { id: true } })).map((e) => e.id));
      for (const end of ['from', 'to'] as const) {
        if (!ends.has(input[end])) throw fieldError('not_found', `input.${end}`, `no entity ${input[end]} in project ${projectId}`);
      }
      const existing = await tx.relationship.findUnique({
        where: { projectId_fromId_toId_kind: { projectId, fromId: input.from, toId: input.to, kind: input.kind } },
        select: { id: true },
      });
      if (existing) throw fieldError('already_exists', 'input.kind', `${input.from} is already ${input.kind} ${input.to} (${existing.id})`);
      const relationship = { id: newId('rel'), from: input.from, to: input.to, kind: input.kind, weight: input.weight };
      await tx.relationship.create({ data: { id: relationship.id, projectId, fromId: input.from, toId: input.to, kind: input.kind, weight: input.weight } });
      await this.graphOutbox.record(tx, projectId, { nodes: [], edges: [relationship] });
      return relationship;
    }, transaction);
  }

  async updateRelationship(accountId: string, projectId: string, relationshipId: string, input: UpdateRelationshipInput): Promise<RelationshipRecord> {
    return this.prisma.$transaction(async (tx) => {
      await holdOwnedProject(tx, accountId, projectId);
      const [current] = await tx.$queryRaw<RelationshipRecord[]>`
        SELECT id, "fromId" AS "from", "toId" AS "to", kind, weight FROM "Relationship" WHERE id = ${relationshipId} AND "projectId" = ${projectId} FOR UPDATE`;
      if (!current) throw relationshipNotFound(projectId, relationshipId);
      const updated = { ...current, kind: input.kind ?? current.kind, weight: input.weight ?? current.weight };
      if (updated.kind !== current.kind) {
        const clash = await tx.relationship.findUnique({
          where: { projectId_fromId_toId_kind: { projectId, fromId: current.from, toId: current.to, kind: updated.kind } },
          select: { id: true },
        });
        if (clash) throw fieldError('already_exists', 'input.kind', `${current.from} is already ${updated.kind} ${current.to} (${clash.id})`);
        // Neo4j keys an edge by its ends and kind: the old edge goes, the new one is added.
        await this.graphOutbox.recordDeletes(tx, projectId, { nodes: [], edges: [{ id: current.id, from: current.from, to: current.to }] });
      }
      await tx.relationship.update({ where: { id: relationshipId }, data: { kind: updated.kind, weight: updated.weight } });
      await this.graphOutbox.record(tx, projectId, { nodes: [], edges: [updated] });
      return updated;
    }, transaction);
  }

  async deleteRelationship(accountId: string, projectId: string, relationshipId: string): Promise<Deleted> {
    return this.prisma.$transaction(async (tx) => {
      await holdOwnedProject(tx, accountId, projectId);
      const found = await tx.relationship.findFirst({ where: { id: relationshipId, projectId }, select: { id: true, fromId: true, toId: true } });
      if (!found) throw relationshipNotFound(projectId, relationshipId);
      await tx.relationship.delete({ where: { id: relationshipId } });
      await this.graphOutbox.recordDeletes(tx, projectId, { nodes: [], edges: [{ id: found.id, from: found.fromId, to: found.toId }] });
      return { id: relationshipId, deleted: true as const };
    }, transaction);
  }

  /**
   * Everything of the project, in one transaction: each table's rows by the project's own index (relationships first,
   * as their cascade from entities has no index to use), then the project. Idempotency records and audit entries
   * belong to the account and stay. On PGlite, where that transaction would hold every tenant's requests for its
   * length, the one transaction hands the project to an account of its own that no key belongs to (from then on it is
   * gone for everyone), and its rows are then removed in slices before the answer; what a crash leaves of them, the
   * next deletion removes.
   */
  async deleteProject(accountId: string, projectId: string): Promise<Deleted> {
    if (this.yieldStore) {
      const slices = new Slices(this.prisma, this.yieldStore);
      const leftovers = await this.prisma.account.findMany({ where: { name: deletingAccountName }, select: { id: true } });
      const deleting = newId('acc');
      await this.prisma.$transaction(async (tx) => {
        await this.detachForDeletion(tx, accountId, projectId);
        await tx.account.create({ data: { id: deleting, name: deletingAccountName } });
        await tx.project.update({ where: { id: projectId }, data: { accountId: deleting } });
      }, projectDeletion);
      for (const id of [deleting, ...leftovers.map((a) => a.id)]) await removeAccountProjects(this.prisma, slices, id);
      return { id: projectId, deleted: true as const };
    }
    return this.prisma.$transaction(async (tx) => {
      await this.detachForDeletion(tx, accountId, projectId);
      await tx.$executeRaw`DELETE FROM "Relationship" WHERE "projectId" = ${projectId}`;
      await tx.$executeRaw`DELETE FROM "Candidate" WHERE "projectId" = ${projectId}`;
      await tx.$executeRaw`DELETE FROM "Conflict" WHERE "projectId" = ${projectId}`;
      await tx.$executeRaw`DELETE FROM "Fact" WHERE "projectId" = ${projectId}`;
      await tx.$executeRaw`DELETE FROM "StateValue" WHERE "entityId" IN (SELECT id FROM "Entity" WHERE "projectId" = ${projectId})`;
      await tx.$executeRaw`DELETE FROM "Mention" WHERE "entityId" IN (SELECT id FROM "Entity" WHERE "projectId" = ${projectId})`;
      await tx.$executeRaw`DELETE FROM "Beat" WHERE "projectId" = ${projectId}`;
      await tx.$executeRaw`DELETE FROM "Entity" WHERE "projectId" = ${projectId}`;
      await tx.$executeRaw`DELETE FROM "ChapterWordBucket" WHERE "projectId" = ${projectId}`;
      await tx.$executeRaw`DELETE FROM "Chapter" WHERE "projectId" = ${projectId}`;
      await tx.$executeRaw`DELETE FROM "Project" WHERE id = ${projectId}`;
      return { id: projectId, deleted: true as const };
    }, projectDeletion);
  }

  /** Holds the account's project for its deletion and tells the graph store it goes; not found when it is another's. */
  private async detachForDeletion(tx: TxClient, accountId: string, projectId: string): Promise<void> {
    await holdProject(tx, projectId);
    const owned = await tx.$queryRaw<unknown[]>`SELECT 1 FROM "Project" WHERE id = ${projectId} AND "accountId" = ${accountId} FOR UPDATE`;
    if (owned.length === 0) throw projectNotFound(projectId);
    await this.graphOutbox.recordProjectDeleted(tx, projectId);
  }

  /** The timeless state and the timed values (grouped by span, in story order) of each entity, in the order of the ids. */
  async authoredStates(entityIds: readonly string[], sql: SqlClient = this.sql): Promise<AuthoredState[]> {
    const found = await rows<{ entityId: string; baseState: State; from: string | null; until: string | null; key: string | null; value: unknown }>(
      sql, authoredStatesStatement, [[...entityIds]]);
    const byEntity = new Map<string, { state: State; spans: Map<string, StateChange> }>();
    for (const row of found) {
      let entity = byEntity.get(row.entityId);
      if (!entity) byEntity.set(row.entityId, (entity = { state: row.baseState, spans: new Map() }));
      if (row.key === null) continue;
      const span = JSON.stringify([row.from, row.until]);
      let change = entity.spans.get(span);
      if (!change) entity.spans.set(span, (change = { from: row.from, until: row.until, state: {} }));
      change.state[row.key] = row.value;
    }
    return entityIds.map((id) => {
      const entity = byEntity.get(id);
      return { state: entity?.state ?? {}, stateChanges: entity ? [...entity.spans.values()] : [] };
    });
  }

  /** The entity as the write leaves it, read in the write's transaction, where the write's audit entry goes too. */
  private async answer(tx: TxClient, accountId: string, projectId: string, entityId: string): Promise<AuthoredEntity> {
    const sql = inTransaction(tx);
    const [record] = (await this.entities.byIds(accountId, projectId, [entityId], sql))!;
    const [authored] = await this.authoredStates([entityId], sql);
    const answer = { ...record, authored };
    await recordAudit(sql, answer);
    return answer;
  }

  /** State value rows for `changes`, their chapters checked; two changes with one span are refused (give one). */
  private async timedRows(tx: TxClient, projectId: string, changes: StateChangeInput[]) {
    const spans = await resolveSpans(tx, projectId, changes.map((change, i) => ({ span: change, path: `input.stateChanges.${i}` })));
    const seen = new Map<string, number>();
    spans.forEach((span, i) => {
      const key = JSON.stringify([span.fromChapterId, span.untilChapterId]);
      const earlier = seen.get(key);
      if (earlier !== undefined) {
        throw fieldError('validation_error', `input.stateChanges.${i}`, `has the same from and until as input.stateChanges.${earlier}; put their values in one change`);
      }
      seen.set(key, i);
    });
    return changes.flatMap((change, i) => Object.entries(change.state).map(([key, value]) => ({ key, value, ...spans[i] })));
  }

  private async writeTimed(tx: TxClient, projectId: string, entityId: string, rows: Awaited<ReturnType<AuthoringService['timedRows']>>) {
    if (rows.length === 0) return;
    await tx.stateValue.createMany({
      data: rows.map((row) => ({
        id: newId('stv'), projectId, entityId, key: row.key, fromChapterId: row.fromChapterId, untilChapterId: row.untilChapterId,
        value: row.value === null ? Prisma.JsonNull : (row.value as Prisma.InputJsonValue),
      })),
    });
  }
}
