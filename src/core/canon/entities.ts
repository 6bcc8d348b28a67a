// Entities as recall, search and the entity query return them, each read in one statement that also checks the
// project belongs to the caller's account: the entity, its five latest mentions and its pending conflicts.
import type { ApprovalStatus, EntityType } from '../../generated/prisma/enums.ts';
import type { MentionItem } from './canon.ts';
import type { ReadCache } from './readCache.ts';
import { rows, statement, type SqlClient } from '../../db/sql.ts';
import type DataLoader from 'dataloader';
import { batchedRows } from '../../db/batch.ts';

export const lastMentionCount = 5;

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
  /** latest first */
  lastMentions: MentionItem[];
  pendingConflictIds: string[];
};

/**
 * The entities `picked` selects (from "Entity", in the owned project o) with their latest mentions and pending
 * conflicts, gathered for all of them at once. The answer has no row when the project is not the account's, and one
 * row with a null id when it is but nothing was picked, so "not found" and "no results" stay apart in one statement.
 */
function entityStatement(name: string, picked: string, order: string, extraColumns = '') {
  return statement(name, `
    WITH o AS (SELECT id FROM "Project" WHERE id = $1 AND "accountId" = $2),
    e AS MATERIALIZED (${picked}),
    latest AS MATERIALIZED (
      SELECT m.* FROM e CROSS JOIN LATERAL (
        SELECT id, "entityId", "chapterId", line, snippet, "createdAt", "sortKey" FROM "Mention"
        WHERE "entityId" = e.id ORDER BY "sortKey" DESC LIMIT ${lastMentionCount}
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
    )
    SELECT e.id, e."projectId", e.key, e.type::text AS type, e.name, e.aliases, e.state, e.status::text AS status,
           e.confidence, COALESCE(mentions.list, '[]') AS "lastMentions", COALESCE(pending.ids, '{}') AS "pendingConflictIds"
           ${extraColumns}
    FROM o LEFT JOIN e ON true LEFT JOIN mentions ON mentions.id = e.id LEFT JOIN pending ON pending.id = e.id
    ORDER BY ${order}`);
}

const inProject = `"projectId" = (SELECT id FROM o)`;

const canonVersions = statement('canon_versions', `SELECT id, "accountId", "canonVersion"::text AS version FROM "Project" WHERE id = ANY($1::text[])`);

type ProjectVersion = { id: string; accountId: string; version: string };
/** A project's canon version as read for one request (EntityReader.readVersion). */
export type VersionRead = Promise<ProjectVersion | null>;

/** A page and the canon version it was read at (undefined when the read cache is off and no version was read). */
export type Versioned<T> = { page: T; version: string | undefined };

// In name order along the (projectId, name, id) index, stopping at the limit: right for no filter and for one or two
// letters, which most names contain.
const recallScan = entityStatement(
  'recall_scan',
  `SELECT * FROM "Entity" WHERE ${inProject} AND ($3::text IS NULL OR "nameText" ILIKE $3::text) ORDER BY name, id LIMIT $4::int`,
  'e.name, e.id',
);

// Three letters and more: the matches come from the trigram index (OFFSET 0 keeps the planner from trading it for the
// name-order scan, which reads most of a large project to find a rare name), then are sorted.
const recallTrigram = entityStatement(
  'recall_trigram',
  `SELECT x.* FROM (SELECT * FROM "Entity" WHERE ${inProject} AND "nameText" ILIKE $3::text OFFSET 0) x ORDER BY x.name, x.id LIMIT $4::int`,
  'e.name, e.id',
);

const byIdsStatement = entityStatement('entities_by_id', `SELECT * FROM "Entity" WHERE ${inProject} AND id = ANY($3::text[])`, 'e.id');

const searchStatement = entityStatement(
  'search',
  `SELECT en.*, s.score FROM lore_search((SELECT id FROM o), $3, $4::float8, $5, $6, $7::int) s JOIN "Entity" en ON en.id = s.id`,
  'e.score::float8 DESC, e.id',
  ', e.score',
);

/** The rows of an owned project, or undefined when the project is not the account's. */
function owning<R extends EntityRecord>(result: R[]): R[] | undefined {
  if (result.length === 0) return undefined;
  return result.filter((row) => row.id !== null);
}

/** `%` and `_` in a recall query are literal characters, not patterns. */
const substringPattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export class EntityReader {
  private readonly versions: DataLoader<string, ProjectVersion | null>;

  constructor(
    private readonly sql: SqlClient,
    private readonly cache: ReadCache,
  ) {
    this.versions = batchedRows<ProjectVersion>(sql, canonVersions, (row) => row.id);
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
   * `read`'s page, served from the read cache while the project's canon version is unchanged; undefined when the
   * project is not the account's (the version lookup checks that, so a cached page never reaches another account).
   * `version`: the request's read of it, when started earlier.
   */
  async cachedPage<T extends object>(
    accountId: string,
    projectId: string,
    key: string,
    read: () => Promise<T | undefined>,
    version = this.readVersion(projectId),
  ): Promise<Versioned<T> | undefined> {
    if (!this.cache.enabled) {
      const page = await read();
      return page && { page, version: undefined };
    }
    const project = await version;
    if (project?.accountId !== accountId) return undefined;
    const page = await this.cache.through(`${projectId}\0${project.version}\0${key}`, read);
    return page && { page, version: `${projectId}@${project.version}` };
  }

  /** Entities whose name or an alias contains q (any case), by name. */
  async recall(
    accountId: string,
    projectId: string,
    q: string | undefined,
    limit: number,
    version?: VersionRead,
  ): Promise<Versioned<EntityRecord[]> | undefined> {
    const read = async () => {
      const statement = q && q.length >= 3 ? recallTrigram : recallScan;
      return owning(await rows<EntityRecord>(this.sql, statement, [projectId, accountId, q ? substringPattern(q) : null, limit]));
    };
    return this.cachedPage(accountId, projectId, `recall\0${limit}\0${q ?? ''}`, read, version);
  }

  /** The given entities of a project, in the order of the ids. */
  async byIds(accountId: string, projectId: string, ids: readonly string[]): Promise<EntityRecord[] | undefined> {
    const result = owning(await rows<EntityRecord>(this.sql, byIdsStatement, [projectId, accountId, ids]));
    if (!result) return undefined;
    const byId = new Map(result.map((row) => [row.id, row]));
    return ids.flatMap((id) => byId.get(id) ?? []);
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
