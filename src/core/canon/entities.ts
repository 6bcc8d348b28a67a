// Entities as recall, search and the entity query return them, each read in one statement that also checks the
// project belongs to the caller's account: the entity, its five latest mentions, its pending conflicts and its live
// facts, with the state and facts as of a chapter when asked.
import type { ApprovalStatus, EntityType } from '../../generated/prisma/enums.ts';
import type { MentionItem } from './canon.ts';
import type { Admits, CanonChanges, Change, PageKind } from './canonChanges.ts';
import type { ReadCache, Refresh } from './readCache.ts';
import type { EntityCards, ReadCards } from './entityCards.ts';
import { holdsSql, stateAtSql, unknownChapter } from './storyTime.ts';
import { rows, statement, type Literal, type SqlClient, type Statement } from '../../db/sql.ts';
import { fusedRanking, hybridValues, type HybridSearch } from '../embeddings/store.ts';
import type DataLoader from 'dataloader';
import { batched } from '../../db/batch.ts';

export const lastMentionCount = 5;
/** How many approved, and how many suggested, facts an entity shows at most (the first by id). */
export const factsPerEntity = 50;

/** A live fact as recall shows it: `from` and `until` are chapter ids, null where open. */
export type StoryFact = { id: string; text: string; from: string | null; until: string | null };

export type EntityRecord = {
  id: string;
  projectId: string;
  key: string;
  type: EntityType;
  name: string;
  aliases: string[];
  state: unknown;
  status: ApprovalStatus;
  confidence: number | null;
  /** raised by every edit of the entity (optimistic concurrency) */
  version: number;
  /** latest first */
  lastMentions: MentionItem[];
  pendingConflictIds: string[];
  /** live facts holding at the chapter read at (else after the last chapter), by id */
  approvedFacts: StoryFact[];
  suggestedFacts: StoryFact[];
};

/**
 * SQL: a column of the chapter `id` (an SQL expression) points at, null when it points at none. Looked up by primary
 * key only where there is one: most facts have no span, and a join planned for the few that do cost more than the
 * rest of the facts' reading.
 */
const chapterOf = (id: string, column: string) => `CASE WHEN ${id} IS NULL THEN NULL ELSE (SELECT ${column} FROM "Chapter" WHERE id = ${id}) END`;

/**
 * The entities `picked` selects (from "Entity", in the owned project o) with their latest mentions, pending conflicts
 * and live facts, gathered for all of them at once. The answer has no row when the project is not the account's, and
 * one row with a null id when it is but nothing was picked, so "not found" and "no results" stay apart in one
 * statement. `asOf`: the parameter holding a chapter id, for the state and facts as of that chapter, where every row
 * also tells whether the project has it ("asOfKnown"), so an unknown one costs no statement of its own. Without it,
 * the latest: Entity.state and the facts with no end, in the plainest SQL, as the hottest reads deserve (a CASE on a
 * parameter choosing between the two made the planner's cost estimate of a search page cross PostgreSQL's JIT
 * threshold, and compiling cost 50 ms a statement). `ctes`: more CTEs after o, for `picked` and `extraColumns` to read.
 */
function entityStatement(
  name: string,
  picked: string,
  order: string,
  { asOf, extraColumns = '', ctes }: { asOf?: string; extraColumns?: string; ctes?: string } = {},
) {
  const at = '(SELECT ordinal FROM asof)';
  // As of a chapter, the mentions up to it in reading order: sort keys start with the chapter's zero-padded ordinal
  // (canon.ts mentionSortKey), so those of the next ordinal and later sort after this bound.
  const mentionsBefore = `(SELECT lpad((ordinal + 1)::text, 8, '0') FROM asof)`;
  const factHolds = asOf
    ? holdsSql(chapterOf('x."fromChapterId"', 'ordinal'), chapterOf('x."untilChapterId"', 'ordinal'), at)
    : 'x."untilChapterId" IS NULL';
  return statement(name, `
    WITH o AS (SELECT id FROM "Project" WHERE id = $1 AND "accountId" = $2),
    ${ctes ? `${ctes},` : ''}
    ${asOf ? `asof AS (SELECT ordinal FROM "Chapter" WHERE "projectId" = (SELECT id FROM o) AND "externalId" = ${asOf}::text),` : ''}
    e AS MATERIALIZED (${picked}),
    latest AS MATERIALIZED (
      SELECT m.* FROM e CROSS JOIN LATERAL (
        SELECT id, "entityId", "chapterId", line, snippet, "createdAt", "sortKey" FROM "Mention"
        WHERE "entityId" = e.id ${asOf ? `AND "sortKey" < ${mentionsBefore}` : ''} ORDER BY "sortKey" DESC LIMIT ${lastMentionCount}
      ) m
    ),
    mentions AS (
      SELECT m."entityId" AS id,
             json_agg(json_build_object('id', m.id, 'chapter', c."externalId", 'line', m.line, 'snippet', m.snippet,
                                        'timestamp', to_char(m."createdAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                      ORDER BY m."sortKey" DESC) AS list
      FROM latest m JOIN "Chapter" c ON c.id = m."chapterId" GROUP BY m."entityId"
    ),
    pending AS (
      SELECT ce."entityId" AS id, array_agg(ce."conflictId" ORDER BY ce."conflictId") AS ids
      FROM "ConflictEntity" ce JOIN "Conflict" k ON k.id = ce."conflictId" AND k.status = 'pending'
      WHERE ce."entityId" IN (SELECT id FROM e) GROUP BY ce."entityId"
    ),
    facts AS (
      SELECT f."entityId" AS id, f.status,
             json_agg(json_build_object('id', f.id, 'text', f.text, 'from', f."from", 'until', f."until") ORDER BY f.id) AS list
      FROM e CROSS JOIN (VALUES ('approved'::"ApprovalStatus"), ('suggested'::"ApprovalStatus")) s(status) CROSS JOIN LATERAL (
        SELECT x.id, x."entityId", x.status, x.text, ${chapterOf('x."fromChapterId"', '"externalId"')} AS "from",
               ${chapterOf('x."untilChapterId"', '"externalId"')} AS "until"
        FROM "Fact" x
        WHERE x."entityId" = e.id AND x.status = s.status AND x."retiredAt" IS NULL
          AND ${factHolds}
        ORDER BY x.id LIMIT ${factsPerEntity}
      ) f
      GROUP BY f."entityId", f.status
    )
    SELECT e.id, e."projectId", e.key, e.type::text AS type, e.name, e.aliases,
           ${asOf ? stateAtSql('e', at) : 'e.state'} AS state,
           e.status::text AS status, e.confidence, e.version, COALESCE(mentions.list, '[]') AS "lastMentions",
           COALESCE(pending.ids, '{}') AS "pendingConflictIds", COALESCE(approved.list, '[]') AS "approvedFacts",
           COALESCE(suggested.list, '[]') AS "suggestedFacts" ${asOf ? ', EXISTS (SELECT 1 FROM asof) AS "asOfKnown"' : ''}
           ${extraColumns}
    FROM o LEFT JOIN e ON true LEFT JOIN mentions ON mentions.id = e.id LEFT JOIN pending ON pending.id = e.id
      LEFT JOIN facts approved ON approved.id = e.id AND approved.status = 'approved'
      LEFT JOIN facts suggested ON suggested.id = e.id AND suggested.status = 'suggested'
    ORDER BY ${order}`);
}

const inProject = `"projectId" = (SELECT id FROM o)`;

// With each version, the changes logged since the version this process knows the project's log up to ($2, null: none
// kept), when they are few: a page kept across writes then needs no second round trip to learn what they changed.
const learnedChanges = 100;
const canonVersions = statement('canon_versions', `
  SELECT p.id, p."accountId", p."canonVersion"::text AS version, k.known::float8 AS known,
    CASE WHEN k.known IS NOT NULL AND p."canonVersion" > k.known AND p."canonVersion" - k.known <= ${learnedChanges} THEN (
      SELECT COALESCE(json_agg(json_build_object('version', c.version::float8, 'scope', c.scope, 'entityIds', c."entityIds", 'names', c.names,
                                                 'words', c.words) ORDER BY c.version), '[]')
      FROM "CanonChange" c WHERE c."projectId" = p.id AND c.version > k.known AND c.version <= p."canonVersion") END AS changes
  FROM unnest($1::text[], $2::float8[]) k(id, known) JOIN "Project" p ON p.id = k.id`);

type ProjectVersion = { id: string; accountId: string; version: string };
type VersionRow = ProjectVersion & { known: number | null; changes: Change[] | null };
/** A project's canon version as read for one request (EntityReader.readVersion). */
export type VersionRead = Promise<ProjectVersion | null>;

/** A page and the canon version it was read at (undefined when the read cache is off and no version was read). */
export type Versioned<T> = { page: T; version: string | undefined };

// In name order along the (projectId, name, id) index, stopping at the limit: right for no filter and for one or two
// letters, which most names contain.
const recallScanPicked = `SELECT * FROM "Entity" WHERE ${inProject} AND ($3::text IS NULL OR "nameText" ILIKE $3::text) ORDER BY name, id LIMIT $4::int`;
// Three letters and more: the matches come from the trigram index (OFFSET 0 keeps the planner from trading it for the
// name-order scan, which reads most of a large project to find a rare name), then are sorted.
const recallTrigramPicked = `SELECT x.* FROM (SELECT * FROM "Entity" WHERE ${inProject} AND "nameText" ILIKE $3::text OFFSET 0) x ORDER BY x.name, x.id LIMIT $4::int`;
const recallStatements = {
  latest: { scan: entityStatement('recall_scan', recallScanPicked, 'e.name, e.id'), trigram: entityStatement('recall_trigram', recallTrigramPicked, 'e.name, e.id') },
  asOf: {
    scan: entityStatement('recall_scan_as_of', recallScanPicked, 'e.name, e.id', { asOf: '$5' }),
    trigram: entityStatement('recall_trigram_as_of', recallTrigramPicked, 'e.name, e.id', { asOf: '$5' }),
  },
};

const byIdsPicked = `SELECT * FROM "Entity" WHERE ${inProject} AND id = ANY($3::text[])`;
const byIdsStatement = entityStatement('entities_by_id', byIdsPicked, 'e.id');
// One entity (an entity's page): by its id alone. PostgreSQL plans a prepared statement again on every run while it
// expects its generic plan to cost more, which it does for a list parameter (ten ids guessed): planning the page's read
// took 1.1 ms of PostgreSQL's CPU and running it 0.25. With one id, the generic plan is kept and runs as fast.
const byIdStatement = entityStatement('entity_by_id', `SELECT * FROM "Entity" WHERE ${inProject} AND id = $3::text`, 'e.id');
// byIdStatement's entity as a write in this transaction leaves it, with the write's audit entry (auditInsert's values
// but the targets: $4-$10; $11, the targets of the mutation's arguments) inserted by the same statement when this
// transaction wrote the entity, its targets completed with the ids of the answer (the entity and its authored state,
// authoredStatesOf's), as the gateway would add them: the entry needs no round trip of its own after the answer.
const byIdAuditedStatement = statement('entity_by_id_audited', `
  WITH a AS (${byIdStatement.text}),
  spans AS (
    SELECT min(r.position) AS first, json_object_agg(r.key, r.value ORDER BY r.position) AS state
    FROM (
      SELECT v."fromChapterId", v."untilChapterId", v.key, v.value,
             row_number() OVER (ORDER BY fc.ordinal NULLS FIRST, uc.ordinal NULLS LAST, v.id) AS position
      FROM "StateValue" v LEFT JOIN "Chapter" fc ON fc.id = v."fromChapterId" LEFT JOIN "Chapter" uc ON uc.id = v."untilChapterId"
      WHERE v."entityId" = $3::text
    ) r GROUP BY r."fromChapterId", r."untilChapterId"
  ),
  audit AS (
    INSERT INTO "AuditEntry" (id, "accountId", "keyId", "requestId", operation, targets, summary, "createdAt")
    SELECT $4, $5, $6, $7, $8,
           -- The answer's fields in order: its ids, its state (user JSON), the ids of its mentions, pending conflicts and
           -- facts (the only id fields of those lists' items), then its authored state (user JSON).
           lore_audit_targets(
             lore_audit_ids(
               lore_audit_targets(lore_audit_ids($11::text[], ARRAY[a.id, a."projectId"]), json_build_object('state', a.state), 4),
               ARRAY(SELECT m->>'id' FROM json_array_elements(a."lastMentions") m) || a."pendingConflictIds"
                 || ARRAY(SELECT f->>'id' FROM json_array_elements(a."approvedFacts") f) || ARRAY(SELECT f->>'id' FROM json_array_elements(a."suggestedFacts") f)),
             json_build_object(
               'state', e."baseState",
               'stateChanges', COALESCE((SELECT json_agg(json_build_object('state', spans.state) ORDER BY spans.first) FROM spans), '[]')),
             3),
           $9::jsonb, $10::timestamp(3)
    FROM a JOIN "Entity" e ON e.id = a.id
    WHERE e.xmin = pg_current_xact_id_if_assigned()::xid
  )
  SELECT * FROM a`);
const byIdsAsOfStatement = entityStatement('entities_by_id_as_of', byIdsPicked, 'e.id', { asOf: '$4' });

const searchStatement = entityStatement(
  'search',
  `SELECT en.*, s.score FROM lore_search((SELECT id FROM o), $3, $4::float8, $5, $6, $7::int) s JOIN "Entity" en ON en.id = s.id`,
  'e.score::float8 DESC, e.id',
  { extraColumns: ', e.score' },
);

// A page of a hybrid search, per dimension of the query vector (store.ts fusedRanking): each row also says whether the
// project has vectors of the model, where the cursor stands in the ranking (null: not in it) and, where there is a
// next page, the page's last id. `hybrid_ranking`: the page's ids alone, with the project's canon version, for the
// entity cards (entityCards.ts); `hybrid_search`: ranking and rows in one statement, where a write came in between.
const pageMeta = `EXISTS (SELECT 1 FROM v) AS vectors, (SELECT position::int FROM start) AS start,
  (SELECT f.id FROM fused f, start WHERE f.position = start.position + $11::int AND EXISTS (SELECT 1 FROM fused g WHERE g.position = f.position + 1)) AS "nextStartingAfter"`;
const hybridStatements = new Map<number, { ranking: Statement; page: Statement }>();
const hybridStatement = (dimensions: number) => {
  let s = hybridStatements.get(dimensions);
  if (!s) {
    const picked = `SELECT en.*, p.position FROM page p JOIN "Entity" en ON en.id = p.id AND en."projectId" = (SELECT id FROM o)`;
    s = {
      ranking: statement(`hybrid_ranking_${dimensions}`, `
        WITH o AS (SELECT id, "canonVersion" FROM "Project" WHERE id = $1 AND "accountId" = $2), ${fusedRanking(dimensions)}
        SELECT p.id, o."canonVersion"::float8 AS version, ${pageMeta}
        FROM o LEFT JOIN page p ON true ORDER BY p.position`),
      page: entityStatement(`hybrid_search_${dimensions}`, picked, 'e.position', { ctes: fusedRanking(dimensions), extraColumns: `, ${pageMeta}` }),
    };
    hybridStatements.set(dimensions, s);
  }
  return s;
};

// Entity cards (entityCards.ts) with the canon version they were read at, in the same statement.
const cardsStatement = entityStatement('entity_cards', byIdsPicked, 'e.id', {
  extraColumns: ', (SELECT "canonVersion"::float8 FROM "Project" WHERE id = (SELECT id FROM o)) AS "canonVersion"',
});

const hybridPageValues = (accountId: string, projectId: string, search: HybridSearch & { q: string; threshold: number; startingAfter?: string; limit: number }) =>
  [...hybridValues(accountId, projectId, search), search.startingAfter ?? null, search.limit];

/** A row of the ranking statement: a page's id (null on the row of a page without one) and the page's facts. */
export type RankedRow = { id: string | null; version: number; vectors: boolean; start: number | null; nextStartingAfter: string | null };

/**
 * The ranking statement of a hybrid search page alone (no row when the project is not the account's): what
 * EntityReader.hybridSearch sends first, and all the database does for an uncached search whose entities' cards are
 * kept; the bench's floor runs it as it is.
 */
export const hybridRanking = (
  sql: SqlClient, accountId: string, projectId: string, search: HybridSearch & { q: string; threshold: number; startingAfter?: string; limit: number },
): Promise<RankedRow[]> => rows<RankedRow>(sql, hybridStatement(search.vector.length).ranking, hybridPageValues(accountId, projectId, search));

/** A page of a hybrid search: `vectors` false (and nothing else) when the project has no vector of the model. */
export type HybridPage =
  | { vectors: false }
  | { vectors: true; cursorFound: boolean; data: EntityRecord[]; hasMore: boolean; nextStartingAfter: string | null };

/**
 * The rows of an owned project, or undefined when the project is not the account's; a validation_error naming as_of
 * when the statement was asked as of a chapter the project does not have.
 */
function owning<R extends EntityRecord>(result: (R & { asOfKnown?: boolean })[], asOf?: string): R[] | undefined {
  if (result.length === 0) return undefined;
  const found = result.filter((row) => row.id !== null);
  if (asOf === undefined) return found;
  if (!result[0].asOfKnown) throw unknownChapter(asOf, 'as_of');
  return found.map(({ asOfKnown: _, ...row }) => row as unknown as R);
}

/**
 * Whether names could match a recall filter (`"nameText" ILIKE %q%`): for ASCII text, a case-blind substring test that
 * matches whenever the database's does; beyond ASCII, case folding is the database's collation's, so any name could.
 */
const mayContain = (q: string): Admits => {
  const needle = q.toLowerCase();
  const ascii = /^[\x00-\x7f]*$/;
  if (!ascii.test(q)) return { name: () => true };
  return { name: (nameText) => !ascii.test(nameText) || nameText.toLowerCase().includes(needle) };
};

/** `%` and `_` in a recall query are literal characters, not patterns. */
const substringPattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const byIdsValues = (accountId: string, projectId: string, ids: readonly string[]): { statement: Statement; values: Literal[] } =>
  ids.length === 1
    ? { statement: byIdStatement, values: [projectId, accountId, ids[0]] }
    : { statement: byIdsStatement, values: [projectId, accountId, [...ids]] };

export class EntityReader {
  private readonly versions: DataLoader<string, ProjectVersion | null>;

  constructor(
    private readonly sql: SqlClient,
    private readonly cache: ReadCache,
    private readonly entityCards: EntityCards,
    private readonly changes?: CanonChanges,
  ) {
    this.versions = batched(async (keys) => {
      const ids = [...new Set(keys)];
      const found = await rows<VersionRow>(sql, canonVersions, [ids, ids.map((id) => this.changes?.knownTo(id) ?? null)]);
      const byId = new Map<string, ProjectVersion>();
      for (const { known, changes, ...row } of found) {
        if (known !== null && changes) this.changes!.learn(row.id, known, Number(row.version), changes);
        byId.set(row.id, row);
      }
      return keys.map((key) => byId.get(key) ?? null);
    });
  }

  /**
   * Starts reading a project's canon version for a request that answers through `cachedPage`, so that the read can
   * share a round trip with the request's admission (rate limit and quota); undefined when the read cache is off.
   */
  readVersion(projectId: string): VersionRead | undefined {
    if (!this.cache.enabled) return undefined;
    const read = this.versions.load(projectId);
    // Marked handled: a request refused admission never awaits its read (whoever does still sees the rejection).
    read.catch(() => undefined);
    return read;
  }

  /**
   * `read`'s page, served from the read cache while no change to the project's canon since it was read could have
   * touched it (readCache.ts); undefined when the project is not the account's (the version lookup checks that, so a
   * cached page never reaches another account). `ids`: the entities the page shows; `admits`: which new entities it
   * could show, when not any. `version`: the request's read of it, when started earlier. A page `keep` refuses is
   * answered but not kept, and carries no version (so no cache further up keeps it either).
   */
  async cachedPage<T extends object>(
    accountId: string,
    projectId: string,
    kind: PageKind,
    key: string,
    read: () => Promise<T | undefined>,
    ids: (page: T) => Iterable<string>,
    version = this.readVersion(projectId),
    keep: (page: T) => boolean = () => true,
    admits?: Admits,
    refresh?: Refresh<T>,
  ): Promise<Versioned<T> | undefined> {
    if (!this.cache.enabled) {
      const page = await read();
      return page && { page, version: undefined };
    }
    const project = await version;
    if (project?.accountId !== accountId) return undefined;
    const found = await this.cache.through(projectId, Number(project.version), kind, key, read, ids, keep, admits, refresh);
    return found && { page: found.page, version: found.stamp };
  }

  /**
   * The latest entities (as recall, search and cards show them) `ids` of a project, with the canon version they were
   * read at; undefined when the project is not the account's.
   */
  async cards(accountId: string, projectId: string, ids: readonly string[]): Promise<ReadCards | undefined> {
    const found = await rows<EntityRecord & { canonVersion: number }>(this.sql, cardsStatement, [projectId, accountId, [...ids]]);
    if (found.length === 0) return undefined;
    return { version: found[0].canonVersion, records: found.flatMap(({ canonVersion: _, ...row }) => (row.id === null ? [] : [row])) };
  }

  /**
   * `list` (a page's latest entities) with the entities `ids` read again, each keeping what the page adds to it (a
   * search score or position): for a page whose own entities alone changed since it was read (ReadCache.through).
   */
  async spliced<E extends EntityRecord>(accountId: string, projectId: string, list: readonly E[], ids: readonly string[]): Promise<{ list: E[]; version: number } | undefined> {
    const fresh = await this.cards(accountId, projectId, ids);
    if (!fresh || fresh.records.length !== ids.length) return undefined;
    const byId = new Map(fresh.records.map((record) => [record.id, record]));
    return { list: list.map((e) => { const record = byId.get(e.id); return record ? { ...e, ...record } : e; }), version: fresh.version };
  }

  /**
   * Entities whose name or an alias contains q (any case), by name; `asOf` (a chapter id): their state and facts as
   * of that chapter, else the latest. An unknown chapter is a validation_error naming as_of.
   */
  async recall(
    accountId: string,
    projectId: string,
    q: string | undefined,
    limit: number,
    version?: VersionRead,
    asOf?: string,
  ): Promise<Versioned<EntityRecord[]> | undefined> {
    const read = async () => {
      const statements = asOf === undefined ? recallStatements.latest : recallStatements.asOf;
      const statement = q && q.length >= 3 ? statements.trigram : statements.scan;
      const values = [projectId, accountId, q ? substringPattern(q) : null, limit, ...(asOf === undefined ? [] : [asOf])];
      return owning(await rows<EntityRecord & { asOfKnown?: boolean }>(this.sql, statement, values), asOf);
    };
    const key = `${limit}\0${asOf ?? ''}\0${q ?? ''}`;
    // Only the latest page is made of the entities' cards; one as of a chapter is read again whole.
    const refresh: Refresh<EntityRecord[]> | undefined = asOf === undefined
      ? async (page, ids) => { const fresh = await this.spliced(accountId, projectId, page, ids); return fresh && { page: fresh.list, version: fresh.version }; }
      : undefined;
    return this.cachedPage(accountId, projectId, 'recall', key, read, (page) => page.map((e) => e.id), version, undefined, q ? mayContain(q) : undefined, refresh);
  }

  /**
   * The given entities of a project, in the order of the ids; `sql`: read inside a writer's transaction instead;
   * `asOf` (a chapter id): their state and facts as of that chapter.
   */
  /**
   * byIds as a statement for a writer to send in a batch of its own (sqlTransaction's start), and how to read its rows
   * into what byIds answers.
   */
  byIdsBatched(accountId: string, projectId: string, ids: readonly string[]) {
    return {
      ...byIdsValues(accountId, projectId, ids),
      read: (found: EntityRecord[]): EntityRecord[] | undefined => {
        const result = owning(found);
        if (!result) return undefined;
        const byId = new Map(result.map((row) => [row.id, row]));
        return ids.flatMap((id) => byId.get(id) ?? []);
      },
    };
  }

  /**
   * byIdsBatched for one entity a write of this transaction changed, the write's audit entry (`audit`: auditValues'
   * values, their targets those of the arguments) inserted with it, its targets completed with the answer's ids.
   */
  byIdAuditedBatched(accountId: string, projectId: string, id: string, audit: readonly Literal[]) {
    return { ...this.byIdsBatched(accountId, projectId, [id]), statement: byIdAuditedStatement, values: [projectId, accountId, id, ...audit] };
  }

  async byIds(accountId: string, projectId: string, ids: readonly string[], sql: SqlClient = this.sql, asOf?: string): Promise<EntityRecord[] | undefined> {
    const latest = byIdsValues(accountId, projectId, ids);
    const result =
      asOf === undefined
        ? owning(await rows<EntityRecord>(sql, latest.statement, latest.values))
        : owning(await rows<EntityRecord & { asOfKnown?: boolean }>(sql, byIdsAsOfStatement, [projectId, accountId, ids, asOf]), asOf);
    if (!result) return undefined;
    const byId = new Map(result.map((row) => [row.id, row]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /**
   * A page of a hybrid search (store.ts fusedRanking): the `limit` entities after `startingAfter` in the fused
   * ranking; undefined when the project is not the account's. The statement ranks; the entities come from their
   * cards, as they stand at the canon version it read.
   */
  async hybridSearch(
    accountId: string,
    projectId: string,
    search: HybridSearch & { q: string; threshold: number; startingAfter?: string; limit: number },
  ): Promise<HybridPage | undefined> {
    const ranked = await hybridRanking(this.sql, accountId, projectId, search);
    if (ranked.length === 0) return undefined;
    const [{ version, vectors, start, nextStartingAfter }] = ranked;
    if (!vectors) return { vectors };
    const ids = ranked.flatMap((row) => row.id ?? []);
    const data = await this.entityCards.at(projectId, version, ids, (missing) => this.cards(accountId, projectId, missing));
    if (data) return { vectors, cursorFound: start !== null, data, hasMore: nextStartingAfter !== null, nextStartingAfter };
    // A write between the ranking and the cards: the page in one statement, at one version.
    const result = await rows<EntityRecord & { vectors: boolean; start: number | null; nextStartingAfter: string | null }>(
      this.sql, hybridStatement(search.vector.length).page, hybridPageValues(accountId, projectId, search),
    );
    if (result.length === 0) return undefined;
    const [page] = result;
    if (!page.vectors) return { vectors: false };
    return {
      vectors: true,
      cursorFound: page.start !== null,
      data: result.flatMap(({ vectors: _, start: __, nextStartingAfter: ___, ...row }) => (row.id === null ? [] : [row])),
      hasMore: page.nextStartingAfter !== null,
      nextStartingAfter: page.nextStartingAfter,
    };
  }

  /**
   * Ranked search (the lore_search function: full text over names, aliases and approved facts, trigram similarity
   * over names and aliases), `limit + 1` rows so the caller knows whether there is a next page.
   */
  async search(
    accountId: string,
    projectId: string,
    search: { q: string; threshold: number; after?: { score: string; id: string }; limit: number },
  ): Promise<(EntityRecord & { score: string })[] | undefined> {
    const result = await rows<EntityRecord & { score: string }>(this.sql, searchStatement, [
      projectId, accountId, search.q, search.threshold, search.after?.score ?? null, search.after?.id ?? null, search.limit + 1,
    ]);
    return owning(result);
  }
}
