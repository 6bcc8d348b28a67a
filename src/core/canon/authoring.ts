// Authoring: entities and relationships written one at a time, and a project deleted whole. Every write runs in one
// transaction under the project's writer lock (holdProject) and checks there that the project is still the account's,
// so a write racing a project delete answers 404 instead of failing on a foreign key; nothing is written on any error.
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { EntityType } from '../../generated/prisma/enums.ts';
import { rows, statement, utcTimestamp, type Literal, type SqlClient, type SqlTransaction, type Statement, type TransactionSql } from '../../db/sql.ts';
import { auditValues, recordAudit, type PendingAudit } from '../audit/inTransaction.ts';
import { newId } from '../../ids.ts';
import { LoreError } from '../errors.ts';
import {
  chaptersDigestSql, currentNamesHash, findEntityMentions, foundMentionsWrites, namesChange, recordEntityMentions, recordFoundMentions, type MentionRow, type NamesChange,
} from '../ingest/mentions.ts';
import { insertRows, rawDb, rowsInsert } from '../ingest/rows.ts';
import type { GraphOutbox } from '../relationships/outbox.ts';
import { stableStringify } from '../json.ts';
import { holdProject, holdProjectForNewEntity, holdProjectLock, nameText, projectLockName, refreshSearchTextSql, type TxClient } from './canon.ts';
import type { EntityReader, EntityRecord } from './entities.ts';
import { clashingNames, freeKeyOf, keyBase, nameClashesSql, requireNamesFreeOf, type NameClash } from './names.ts';
import { entityNotFound, projectNotFound } from './projects.ts';
import { latestStateRecompute, spansIn, stateAtSql, type ChapterRef } from './storyTime.ts';
import { removeAccountProjects, Slices } from './slices.ts';
import type { PipelinedAdmission } from '../metering/metering.ts';

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

// Whether the project is the account's, and the entity (locked for the change) when the project has it. It opens a
// state edit's transaction, whose one canon write (fieldsPatch) logs its own change: lore.changes_logged, set here for
// the transaction, spares the entity's update trigger (the fact28i_writes_log_their_changes migration).
const entityForUpdate = statement('entity_for_update', `
  SELECT EXISTS (SELECT 1 FROM "Project" WHERE id = $1 AND "accountId" = $2) AS owned, e.version, set_config('lore.changes_logged', 'on', true) AS logged
  FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT version FROM "Entity" WHERE id = $3 AND "projectId" = $1 FOR UPDATE) e ON true`);

// A change of the state, confidence or status alone (updateFields), sent with the BEGIN: only on the account's project
// ($7, $8), and with an expected version ($9) only at it. $2: a JSON merge patch of the timeless state, at the top level
// (mergeState's; null: unchanged), the latest state recomputed from it; $3: whether to set confidence to $4.
const patchedState = `(COALESCE(e."baseState", '{}'::jsonb) - ARRAY(SELECT key FROM jsonb_each($2::jsonb) WHERE jsonb_typeof(value) = 'null'))
  || COALESCE((SELECT jsonb_object_agg(key, value) FROM jsonb_each($2::jsonb) WHERE jsonb_typeof(value) <> 'null'), '{}'::jsonb)`;
// Its change is logged as the entity's update trigger (lore_entity_updated) would: neither names nor search text move.
const fieldsPatch = statement('entity_fields_patch', `
  WITH edited AS (UPDATE "Entity" e SET version = e.version + 1, "updatedAt" = $6::timestamp(3),
    "baseState" = CASE WHEN $2::jsonb IS NULL THEN e."baseState" ELSE ${patchedState} END,
    state = CASE WHEN $2::jsonb IS NULL THEN e.state ELSE ${stateAtSql('e', null, `(${patchedState})`)} END,
    confidence = CASE WHEN $3::boolean THEN $4::float8 ELSE e.confidence END,
    status = COALESCE($5::text::"ApprovalStatus", e.status)
  WHERE e.id = $1 AND e."projectId" = $7 AND EXISTS (SELECT 1 FROM "Project" WHERE id = $7 AND "accountId" = $8)
    AND ($9::int IS NULL OR e.version = $9::int)
    RETURNING e.id, e."projectId")
  INSERT INTO "CanonChange" ("projectId", version, scope, "entityIds") SELECT "projectId", -1, 'entities', ARRAY[id] FROM edited`);

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

type Names = { name: string; aliases: string[] };
type ChapterRows = ChapterRef[];
type CreateChecks = {
  owned: boolean; keyHolder: { id: string; name: string } | null; clashes: NameClash[]; takenKeys: string[]; chapters: ChapterRows; digest: string;
  namesVersion: string;
};
type UpdateChecks = {
  owned: boolean; name: string; aliases: string[]; type: EntityType; baseState: State; version: number | null; clashes: NameClash[]; chapters: ChapterRows;
  digest: string; namesVersion: string;
};

const isRename = (current: Names, next: Names) => next.name !== current.name || stableStringify(next.aliases) !== stableStringify(current.aliases);

// The chapters of the project ($1) among the ids in `ids`, as timed state values name them.
const spanChapters = (ids: string) => `(SELECT COALESCE(json_agg(json_build_object('id', id, 'externalId', "externalId", 'ordinal', ordinal)), '[]')
  FROM "Chapter" WHERE "projectId" = $1 AND "externalId" = ANY(${ids}::text[]))`;
const spanChapterIds = (changes: StateChangeInput[]) => [...new Set(changes.flatMap((c) => [c.from, c.until].filter((id): id is string => Boolean(id))))];

// A new entity's checks in one statement, under the project's lock: the project ($1) is the account's ($2), the key
// ($3) free, the names ($4, clashingNames) free; the keys taken that start with the name's slug ($5, when no key is
// given); the chapters its timed values name ($6); the chapters' digest (findEntityMentions).
const createChecks = statement('entity_create_checks', `
  SELECT EXISTS (SELECT 1 FROM "Project" WHERE id = $1 AND "accountId" = $2) AS owned,
    (SELECT json_build_object('id', id, 'name', name) FROM "Entity" WHERE "projectId" = $1 AND key = $3) AS "keyHolder",
    ${nameClashesSql('$1', '$4', 'NULL::text')} AS clashes,
    (SELECT COALESCE(array_agg(key), '{}') FROM "Entity" WHERE "projectId" = $1 AND starts_with(key, $5)) AS "takenKeys",
    ${spanChapters('$6')} AS chapters,
    ${chaptersDigestSql('$1')} AS digest, (SELECT "namesVersion"::text FROM "Project" WHERE id = $1) AS "namesVersion"`);

// An entity's checks before a change of its names, type or timed values, under the project's lock: the project ($1) is
// the account's ($2), the entity ($3, locked for the change), the names it is to have ($4) free, the chapters its
// timed values name ($5), the chapters' digest.
const updateChecks = statement('entity_update_checks', `
  SELECT EXISTS (SELECT 1 FROM "Project" WHERE id = $1 AND "accountId" = $2) AS owned, e.name, e.aliases, e.type::text AS type, e."baseState", e.version,
    ${nameClashesSql('$1', '$4', '$3::text')} AS clashes, ${spanChapters('$5')} AS chapters, ${chaptersDigestSql('$1')} AS digest,
    (SELECT "namesVersion"::text FROM "Project" WHERE id = $1) AS "namesVersion"
  FROM (SELECT 1) one LEFT JOIN LATERAL (
    SELECT name, aliases, type, "baseState", version FROM "Entity" WHERE id = $3 AND "projectId" = $1 FOR UPDATE
  ) e ON true`);

// createAtOnce's check under the locks that what the new entity's writes were built on before them still holds: the
// project ($1) is the account's ($2) at the names version $5, the key ($3) and the names ($4, clashingNames) free, the
// chapters' digest $6. Raises LC001 (lore_expect) otherwise.
const createExpected = statement('entity_create_expected', `
  SELECT lore_expect(EXISTS (SELECT 1 FROM "Project" WHERE id = $1 AND "accountId" = $2 AND "namesVersion"::text = $5)
    AND NOT EXISTS (SELECT 1 FROM "Entity" WHERE "projectId" = $1 AND key = $3)
    AND ${nameClashesSql('$1', '$4', 'NULL::text')}::text = '[]' AND ${chaptersDigestSql('$1')} = $6::text) AS expected`);
const changedState = 'LC001';

const clashesOnly = statement('entity_name_clashes', `SELECT ${nameClashesSql('$1', '$2', '$3::text')} AS clashes`);

// An entity's names before its project's lock is taken, when the project is the account's ($3).
const ownedEntityNames = statement('owned_entity_names', `
  SELECT e.name, e.aliases FROM "Entity" e JOIN "Project" p ON p.id = e."projectId" AND p."accountId" = $3 WHERE e.id = $1 AND e."projectId" = $2`);

// A new entity: its latest state is its base state until timed values are added (latestStateRecompute).
const entityInsert = statement('entity_insert', `
  INSERT INTO "Entity" (id, "projectId", key, type, name, aliases, "baseState", state, status, confidence, "nameText", "searchText", "createdAt", "updatedAt")
  VALUES ($1, $2, $3, $4::text::"EntityType", $5, $6::text[], $7::jsonb, $7::jsonb, $8::text::"ApprovalStatus", $9::float8, $10, $10,
    $11::timestamp(3), $11::timestamp(3))`);

const entityCandidateInsert = statement('entity_candidate_insert', `
  INSERT INTO "Candidate" (id, "projectId", kind, status, "entityId", source, "proposedBy", proposal, "createdAt")
  VALUES ($1, $2, 'entity', 'pending', $3, 'api', $4, $5::jsonb, $6::timestamp(3))`);

// Null parameters leave their column as it is; $8: whether to set confidence to $9. The version was checked under the row lock.
const entityUpdate = statement('entity_update', `
  UPDATE "Entity" e SET version = e.version + 1, "updatedAt" = $2::timestamp(3), type = COALESCE($3::text::"EntityType", e.type),
    name = COALESCE($4, e.name), aliases = COALESCE($5::text[], e.aliases), "nameText" = COALESCE($6, e."nameText"),
    "baseState" = COALESCE($7::jsonb, e."baseState"), confidence = CASE WHEN $8::boolean THEN $9::float8 ELSE e.confidence END,
    status = COALESCE($10::text::"ApprovalStatus", e.status)
  WHERE e.id = $1`);

const stateValuesDelete = statement('entity_state_values_delete', `DELETE FROM "StateValue" WHERE "entityId" = $1`);

/** State value rows for `changes`, their chapters checked; two changes with one span are refused (give one). */
function timedRowsOf(chapters: ChapterRef[], changes: StateChangeInput[]) {
  const spans = spansIn(chapters, changes.map((change, i) => ({ span: change, path: `input.stateChanges.${i}` })));
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

const stateValueRows = (projectId: string, entityId: string, timed: ReturnType<typeof timedRowsOf>) =>
  timed.map((row) => ({ id: newId('stv'), projectId, entityId, key: row.key, value: row.value, fromChapterId: row.fromChapterId, untilChapterId: row.untilChapterId }));

/** Takes the project's writer lock, then checks the project is (still) the account's. */
async function holdOwnedProject(tx: TxClient, accountId: string, projectId: string): Promise<void> {
  await holdProject(tx, projectId);
  const owned = await tx.$queryRaw<unknown[]>`SELECT 1 FROM "Project" WHERE id = ${projectId} AND "accountId" = ${accountId}`;
  if (owned.length === 0) throw projectNotFound(projectId);
}

/** How many projects' names version left by their last new entity each process keeps (createEntity). */
const namesLeftProjects = 64;

const nameFields = (name: string, aliases: string[]) => [{ path: 'input.name', name }, ...aliases.map((alias, i) => ({ path: `input.aliases.${i}`, name: alias }))];

/** Whether a new entity's names are free of each other (no name given twice): requireNamesFreeOf's own part. */
function namesFreeWithin(input: CreateEntityInput): boolean {
  try {
    requireNamesFreeOf(nameFields(input.name, input.aliases), []);
    return true;
  } catch {
    return false;
  }
}

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
  // Per project, the new entities in this process one after the other (the last one's turn), and the names version the
  // last one committed at.
  private readonly creating = new Map<string, Promise<void>>();
  private readonly namesLeft = new Map<string, string>();

  /** `yieldStore`: on PGlite, where every tenant's statements run one at a time, a project is deleted in slices. */
  constructor(
    private readonly prisma: PrismaClient,
    private readonly sql: SqlClient,
    private readonly sqlTransaction: SqlTransaction,
    private readonly entities: EntityReader,
    private readonly graphOutbox: GraphOutbox,
    private readonly yieldStore?: (sliceMs: number) => Promise<void>,
  ) {}

  /**
   * A suggested entity is also proposed (a pending candidate of kind entity by `keyId`), so the review queue shows it.
   * Straight through the driver in one transaction: its mentions are found before the project's locks are taken
   * (findEntityMentions), so they are held for one statement of checks and the writes; the writer lock shared, so facts
   * and state edits of the project go on meanwhile (holdProjectForNewEntity). A project's new entities go one at a time
   * in this process (as they do under the names lock), each sent whole in one round trip with its locks, on the names
   * the one before it left (createAtOnce); when what that was built on changed, with its checks under the locks first.
   */
  async createEntity(
    accountId: string, keyId: string, projectId: string, input: CreateEntityInput, admission?: PipelinedAdmission, audit?: PendingAudit,
  ): Promise<AuthoredEntity> {
    const id = newId('ent');
    const entity = { id, name: input.name, aliases: input.aliases };
    // Read before the transaction, each statement alone and the two side by side: what they read is checked under the
    // locks anyway (the chapters' digest, the names version). On PGlite, whose one session a transaction holds from its
    // BEGIN to its COMMIT, every other request's statements waited through these round trips too.
    const [foundBefore, namesBefore] = await Promise.all([findEntityMentions(this.sql, projectId, [entity], true), namesChange(this.sql, projectId, entity)]);
    return this.oneAtATime(projectId, async () => {
      let names = namesBefore;
      // The entity before it in this process committed meanwhile: the names it left are kept (no read).
      const left = this.namesLeft.get(projectId);
      if (left !== undefined && (names.version === undefined || BigInt(left) > BigInt(names.version))) names = await namesChange(this.sql, projectId, entity, left);
      if (foundBefore && names.version !== undefined && input.stateChanges.length === 0 && namesFreeWithin(input)) {
        try {
          return await this.createAtOnce(accountId, keyId, projectId, id, input, foundBefore, names, admission, audit);
        } catch (error) {
          if ((error as { code?: unknown }).code !== changedState) throw admission ? admission.failed(error) : error;
          // The admission ran and committed ahead of the transaction: not again, its rate limit read alone.
          admission?.failed(error);
          await admission?.recount();
          return this.createChecked(accountId, keyId, projectId, id, input, foundBefore, names, undefined, audit);
        }
      }
      return this.createChecked(accountId, keyId, projectId, id, input, foundBefore, names, admission, audit);
    });
  }

  /** Runs `work` after the project's new entities before it in this process are done (committed or failed). */
  private async oneAtATime<T>(projectId: string, work: () => Promise<T>): Promise<T> {
    const before = this.creating.get(projectId);
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const queue = (before ?? Promise.resolve()).then(() => mine);
    this.creating.set(projectId, queue);
    await before;
    try {
      return await work();
    } finally {
      done();
      if (this.creating.get(projectId) === queue) this.creating.delete(projectId);
    }
  }

  /** Once a new entity committed: the names version it left, which the next one in this process builds on. */
  private leftNames(projectId: string, version: string): void {
    this.namesLeft.delete(projectId);
    this.namesLeft.set(projectId, version);
    if (this.namesLeft.size > namesLeftProjects) this.namesLeft.delete(this.namesLeft.keys().next().value!);
  }

  /**
   * A new entity in one round trip: its admission ahead, the BEGIN with its locks, then lore_expect's check that what
   * its writes were built on before the locks still holds (the names version and so the names hash its chapters' mark
   * goes from, the chapters' digest, its key and names free, the project the account's), the writes, the answer's reads
   * with the audit entry, the graph outbox's row and the COMMIT. The names lock is held for that round trip alone,
   * where the checks' round trip first held it through a turn of this process's event loop, which under load queued
   * new entities behind each other. Its key is the name's slug (else a slug taken meanwhile fails the check).
   */
  private async createAtOnce(
    accountId: string, keyId: string, projectId: string, id: string, input: CreateEntityInput, found: { digest: string; rows: MentionRow[] },
    names: NamesChange, admission?: PipelinedAdmission, audit?: PendingAudit,
  ): Promise<AuthoredEntity> {
    const key = input.key ?? keyBase(input.name);
    const expected = { statement: createExpected, values: [projectId, accountId, key, clashingNames([input.name, ...input.aliases]), names.version!, found.digest] };
    const writes = this.entityWrites(projectId, keyId, id, key, input, [], found, names);
    const entry = auditValues(audit, undefined);
    const read = this.entityRead(accountId, projectId, id, entry);
    const graph = this.graphOutbox.nodesStatements(projectId, [{ id, label: input.name, type: input.type }]);
    const answer = await this.sqlTransaction(async (_sql, _locks, [, ...answered]) => {
      entry?.recorded();
      return this.authored(id, read, writes.length, answered);
    }, { ahead: admission, first: holdProjectForNewEntity(projectId), then: [expected, ...writes, read, { statement: authoredStatesStatement, values: [[id]] }, ...graph], commit: true });
    names.written(answer.namesVersion);
    this.leftNames(projectId, answer.namesVersion);
    return answer.entity;
  }

  /** A new entity's transaction with its checks under the locks first, then its writes and the COMMIT: two round trips. */
  private async createChecked(
    accountId: string, keyId: string, projectId: string, id: string, input: CreateEntityInput, foundBefore: { digest: string; rows: MentionRow[] } | undefined,
    namesBefore: NamesChange, admission?: PipelinedAdmission, audit?: PendingAudit,
  ): Promise<AuthoredEntity> {
    const entity = { id, name: input.name, aliases: input.aliases };
    let namesWritten: (() => void) | undefined;
    // The locks and the checks go with the BEGIN, in one round trip (the request's admission ahead of it): the names lock
    // is held from there to the COMMIT.
    const checked = {
      statement: createChecks,
      values: [projectId, accountId, input.key ?? null, clashingNames([input.name, ...input.aliases]), input.key === undefined ? keyBase(input.name) : null, spanChapterIds(input.stateChanges)],
    };
    const answer = await this.sqlTransaction(async (sql, _locks, [[checksRow]]) => {
      const checks = checksRow as CreateChecks;
      if (!checks.owned) throw projectNotFound(projectId);
      let found = foundBefore ?? (await findEntityMentions(sql, projectId, [entity]));
      let names = namesBefore;
      const timed = timedRowsOf(checks.chapters, input.stateChanges);
      if (checks.keyHolder) throw fieldError('name_taken', 'input.key', `${input.key} is already the key of ${checks.keyHolder.name} (${checks.keyHolder.id})`);
      requireNamesFreeOf(nameFields(input.name, input.aliases), checks.clashes);
      // What was read before the lock and changed since is read again.
      if (checks.digest !== found.digest) found = await findEntityMentions(sql, projectId, [entity]);
      if (checks.namesVersion !== names.version) names = await namesChange(sql, projectId, entity, checks.namesVersion);
      const key = input.key ?? freeKeyOf(keyBase(input.name), checks.takenKeys);
      // The writes, the graph outbox's row, the answer's reads with the audit entry and the COMMIT in one round trip: the
      // names lock is held for two (the BEGIN's and this). With a third for the COMMIT, the locks were held through a
      // turn of the gateway's event loop, which under load queued new entities behind each other.
      const writes = this.entityWrites(projectId, keyId, id, key, input, timed, found, names);
      // The audit entry goes with the answer's read, its targets those of the arguments completed there with the answer's ids.
      const entry = auditValues(audit, undefined);
      const read = this.entityRead(accountId, projectId, id, entry);
      this.graphOutbox.recordNodes(sql, projectId, [{ id, label: input.name, type: input.type }]);
      const answered = await sql.commit([...writes, read, { statement: authoredStatesStatement, values: [[id]] }]);
      entry?.recorded();
      const change = names;
      const done = this.authored(id, read, writes.length, answered);
      namesWritten = () => change.written(done.namesVersion);
      return done;
    }, { ahead: admission, first: holdProjectForNewEntity(projectId), then: [checked] }).catch((error: unknown) => {
      throw admission ? admission.failed(error) : error;
    });
    namesWritten?.();
    this.leftNames(projectId, answer.namesVersion);
    return answer.entity;
  }

  /** A new entity's writes: the last one answers the names version it leaves. */
  private entityWrites(
    projectId: string, keyId: string, id: string, key: string, input: CreateEntityInput, timed: ReturnType<typeof timedRowsOf>,
    found: { rows: MentionRow[] }, names: NamesChange,
  ): { statement: Statement; values: Literal[] }[] {
    const now = utcTimestamp(new Date());
    const baseState = JSON.stringify(mergeState({}, input.state));
    return [
      {
        statement: entityInsert,
        values: [id, projectId, key, input.type, input.name, input.aliases, baseState, input.status, input.confidence ?? null, nameText(input.name, input.aliases), now],
      },
      ...(timed.length > 0 ? [rowsInsert('StateValue', stateValueRows(projectId, id, timed)), { statement: latestStateRecompute, values: [[id]] }] : []),
      ...(input.status === 'suggested'
        ? [{ statement: entityCandidateInsert, values: [newId('cnd'), projectId, id, keyId, JSON.stringify({ name: input.name, type: input.type, aliases: input.aliases, facts: [] }), now] }]
        : []),
      ...foundMentionsWrites(projectId, id, found.rows, false, names),
    ];
  }

  private entityRead(accountId: string, projectId: string, id: string, entry: ReturnType<typeof auditValues>) {
    return entry
      ? this.entities.byIdAuditedBatched(accountId, projectId, id, [...entry.values.slice(0, 5), ...entry.values.slice(6), entry.values[5]])
      : this.entities.byIdsBatched(accountId, projectId, [id]);
  }

  /** The answer of a new entity's writes (`count` of them), its read and its authored states, in order. */
  private authored(id: string, read: ReturnType<AuthoringService['entityRead']>, count: number, answered: Record<string, unknown>[][]) {
    const namesVersion = (answered[count - 1][0] as { version: string }).version;
    const [record] = read.read(answered[count] as EntityRecord[])!;
    const [authored] = authoredStatesOf([id], answered[count + 1] as AuthoredStateRow[]);
    return { namesVersion, entity: { ...record, authored } };
  }

  /**
   * Raises the version by one, atomically: with expectedVersion only when the entity is still at it (409
   * version_conflict otherwise); without, under the entity's row lock, so the later of two writes wins whole. A rename's
   * mentions are found before the project's writer lock is taken, as createEntity's are.
   */
  async updateEntity(
    accountId: string, projectId: string, entityId: string, input: UpdateEntityInput, admission?: PipelinedAdmission, audit?: PendingAudit,
  ): Promise<AuthoredEntity> {
    if (input.type === undefined && input.name === undefined && input.aliases === undefined && input.stateChanges === undefined) {
      return this.updateFields(accountId, projectId, entityId, input, admission, audit);
    }
    await admission?.alone();
    const namesOf = (current: Names) => ({ name: input.name ?? current.name, aliases: input.aliases ?? current.aliases });
    let namesWritten: (() => void) | undefined;
    const answer = await this.sqlTransaction(async (sql) => {
      const naming = input.name !== undefined || input.aliases !== undefined;
      const [before] = naming ? await rows<Names>(sql, ownedEntityNames, [entityId, projectId, accountId]) : [];
      const renaming = before && isRename(before, namesOf(before));
      let found = renaming ? await findEntityMentions(sql, projectId, [{ id: entityId, ...namesOf(before) }]) : undefined;
      let names = renaming ? await namesChange(sql, projectId, { id: entityId, ...namesOf(before) }) : undefined;
      const wanted = before ? namesOf(before) : undefined;
      await holdProjectLock(sql, projectId);
      const [current] = await rows<UpdateChecks>(sql, updateChecks, [
        projectId, accountId, entityId, wanted ? clashingNames([wanted.name, ...wanted.aliases]) : [], spanChapterIds(input.stateChanges ?? []),
      ]);
      if (!current.owned) throw projectNotFound(projectId);
      if (current.version === null) throw entityNotFound(projectId, entityId);
      const expected = input.expectedVersion;
      if (expected !== undefined && expected !== current.version) throw versionConflict(entityId, current.version, expected);
      const timed = input.stateChanges && timedRowsOf(current.chapters, input.stateChanges);
      const { name, aliases } = namesOf(current);
      const renamed = isRename(current, { name, aliases });
      if (renamed) {
        // Names read before the lock that another write changed since: checked and looked for again under it.
        const unchanged = before !== undefined && !isRename(before, current);
        const clashes = unchanged ? current.clashes : (await rows<{ clashes: NameClash[] }>(sql, clashesOnly, [projectId, clashingNames([name, ...aliases]), entityId]))[0].clashes;
        requireNamesFreeOf(nameFields(name, aliases), clashes);
        if (!found || !unchanged || current.digest !== found.digest) found = await findEntityMentions(sql, projectId, [{ id: entityId, name, aliases }]);
        if (!names || !unchanged || current.namesVersion !== names.version) names = await namesChange(sql, projectId, { id: entityId, name, aliases }, current.namesVersion);
      }
      const type = input.type ?? current.type;
      await rows(sql, entityUpdate, [
        entityId, utcTimestamp(new Date()), input.type ?? null, renamed ? name : null, renamed ? aliases : null, renamed ? nameText(name, aliases) : null,
        input.state !== undefined ? JSON.stringify(mergeState(current.baseState, input.state)) : null, input.confidence !== undefined, input.confidence ?? null,
        input.status ?? null,
      ]);
      if (timed) {
        await rows(sql, stateValuesDelete, [entityId]);
        await insertRows(rawDb(sql), 'StateValue', stateValueRows(projectId, entityId, timed));
      }
      if (timed || input.state !== undefined) await rows(sql, latestStateRecompute, [[entityId]]);
      if (renamed) {
        const change = names!;
        const namesVersion = await recordFoundMentions(sql, projectId, entityId, found!.rows, true, change);
        namesWritten = () => change.written(namesVersion);
        await refreshSearchTextSql(sql, [entityId]);
      }
      if (name !== current.name || type !== current.type) this.graphOutbox.recordNodes(sql, projectId, [{ id: entityId, label: name, type }]);
      return this.answerSql(sql, accountId, projectId, entityId, audit);
    });
    // Once committed: the project's names as this write left them, for the next name writer.
    namesWritten?.();
    return answer;
  }

  /**
   * updateEntity for a change of the state, confidence or status alone, the commonest edit: nothing about names, the
   * graph or timed values moves, so it runs straight through the driver in one transaction of one round trip (the
   * BEGIN with the lock, the project and entity, the change with the state recomputed, the answer's two reads with the
   * audit entry, and the COMMIT). The project's writer lock is taken shared and the entity's row locked, so edits
   * of other entities go side by side (projectLockName).
   */
  private async updateFields(
    accountId: string, projectId: string, entityId: string, input: UpdateEntityInput, admission?: PipelinedAdmission, audit?: PendingAudit,
  ): Promise<AuthoredEntity> {
    type Current = { owned: boolean; version: number | null };
    const expected = input.expectedVersion;
    // The audit entry goes with the answer's read, its targets those of the arguments completed there with the answer's
    // ids, so the transaction commits in its one round trip.
    const entry = auditValues(audit, undefined);
    const answer = entry
      ? this.entities.byIdAuditedBatched(accountId, projectId, entityId, [...entry.values.slice(0, 5), ...entry.values.slice(6), entry.values[5]])
      : this.entities.byIdsBatched(accountId, projectId, [entityId]);
    return this.sqlTransaction<AuthoredEntity, Current>(async (_sql, [current], [, found, states]) => {
      // The change and the audit entry were written only where these checks pass; where one fails, nothing was.
      if (!current.owned) throw projectNotFound(projectId);
      if (current.version === null) throw entityNotFound(projectId, entityId);
      if (expected !== undefined && expected !== current.version) throw versionConflict(entityId, current.version, expected);
      const [record] = answer.read(found as EntityRecord[])!;
      const [authored] = authoredStatesOf([entityId], states as AuthoredStateRow[]);
      entry?.recorded();
      return { ...record, authored };
    }, {
      // The request's admission goes ahead of the BEGIN, in the same round trip, and the COMMIT after the answer.
      ahead: admission,
      commit: true,
      sharedLock: projectLockName(projectId),
      first: { statement: entityForUpdate, values: [projectId, accountId, entityId] },
      then: [
        {
          statement: fieldsPatch,
          values: [
            entityId, input.state === undefined ? null : JSON.stringify(input.state), input.confidence !== undefined, input.confidence ?? null,
            input.status ?? null, utcTimestamp(new Date()), projectId, accountId, expected ?? null,
          ],
        },
        answer,
        { statement: authoredStatesStatement, values: [[entityId]] },
      ],
    }).catch((error: unknown) => {
      throw admission ? admission.failed(error) : error;
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
      // The change logs hold no foreign key to the project; after the deletions above, which log theirs.
      await tx.$executeRaw`DELETE FROM "CanonChange" WHERE "projectId" = ${projectId}`;
      await tx.$executeRaw`DELETE FROM "NameChange" WHERE "projectId" = ${projectId}`;
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
    return authoredStatesOf(entityIds, await rows<AuthoredStateRow>(sql, authoredStatesStatement, [[...entityIds]]));
  }

  /** The entity as the write leaves it, read in the write's transaction, where the write's audit entry goes too. */
  private async answerSql(sql: TransactionSql, accountId: string, projectId: string, entityId: string, audit: PendingAudit | undefined): Promise<AuthoredEntity> {
    const [record] = (await this.entities.byIds(accountId, projectId, [entityId], sql))!;
    const [authored] = await this.authoredStates([entityId], sql);
    const answer = { ...record, authored };
    recordAudit(sql, audit, answer);
    return answer;
  }
}

type AuthoredStateRow = { entityId: string; baseState: State; from: string | null; until: string | null; key: string | null; value: unknown };

/** authoredStatesStatement's rows as each entity's timeless state and timed values, in the order of the ids. */
function authoredStatesOf(entityIds: readonly string[], found: AuthoredStateRow[]): AuthoredState[] {
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
