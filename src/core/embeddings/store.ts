// The vectors and their outbox in PostgreSQL (prisma/migrations/…_embeddings): what the worker reads and writes, what
// hybrid search reads, and the backlog GET /health shows. The vector table exists only where pgvector does.
import { createHash } from 'node:crypto';
import { rows, statement, type SqlClient } from '../../db/sql.ts';
import { rrfK } from './fusion.ts';
import { maxTextChars } from './provider.ts';

export type OutboxItem = { itemId: string; projectId: string; kind: 'entity' | 'fact'; seq: string; force: boolean; attempts: number };
/** An item's text as it stands (null: the item is gone, or a fact no longer in the canon) and the vector it has. */
export type ItemText = { itemId: string; entityId: string | null; text: string | null; model: string | null; textHash: string | null };
export type Backlog = { pending: number; oldestPendingAgeSeconds: number | null; lastError: string | null };
export const textHash = (text: string) => createHash('sha256').update(text.slice(0, maxTextChars)).digest('hex');

const ensureTable = statement('embeddings_ensure', 'SELECT lore_ensure_embeddings() AS ready');
const ensureDimension = statement('embeddings_dimension', 'SELECT lore_embedding_dimension($1::int)');

// Oldest first; an item that failed on its own waits for its next attempt.
const dueItems = statement('embeddings_due', `
  SELECT "itemId", "projectId", kind, seq::text, "force", attempts FROM "EmbeddingOutbox"
  WHERE "nextAttemptAt" <= LOCALTIMESTAMP AND ($2::text[] IS NULL OR "projectId" = ANY($2::text[]))
  ORDER BY seq LIMIT $1::int`);

const itemTexts = statement('embeddings_texts', `
  SELECT x.id AS "itemId", COALESCE(e.id, f."entityId") AS "entityId",
         CASE WHEN x.kind = 'entity' THEN e."searchText" WHEN f.status = 'approved' AND f."retiredAt" IS NULL THEN f.text END AS text,
         v.model, v."textHash"
  FROM unnest($1::text[], $2::text[]) AS x(id, kind)
  LEFT JOIN "Entity" e ON x.kind = 'entity' AND e.id = x.id
  LEFT JOIN "Fact" f ON x.kind = 'fact' AND f.id = x.id
  LEFT JOIN "Embedding" v ON v."itemId" = x.id`);

// The outbox rows done with, if nobody queued them again meanwhile (their seq unchanged).
const doneRows = `DELETE FROM "EmbeddingOutbox" o USING jsonb_to_recordset($1::jsonb) AS d("itemId" text, seq bigint) WHERE o."itemId" = d."itemId" AND o.seq = d.seq`;
const finish = statement('embeddings_done', doneRows);
const remove = statement('embeddings_remove', `WITH gone AS (DELETE FROM "Embedding" WHERE "itemId" = ANY($2::text[])) ${doneRows}`);
// Vectors of items still there (a deleted entity or fact takes its outbox row with it, and has nothing to store).
const write = statement('embeddings_write', `
  WITH x AS (SELECT * FROM jsonb_to_recordset($2::jsonb) AS x("itemId" text, "projectId" text, "entityId" text, "factId" text, "textHash" text, vector text)),
  written AS (
    INSERT INTO "Embedding" ("itemId", "projectId", "entityId", "factId", model, dimensions, "textHash", vector, "embeddedAt")
    SELECT x."itemId", x."projectId", x."entityId", x."factId", $3, $4::int, x."textHash", x.vector::vector, CURRENT_TIMESTAMP FROM x
    WHERE EXISTS (SELECT 1 FROM "Entity" e WHERE e.id = x."entityId") AND (x."factId" IS NULL OR EXISTS (SELECT 1 FROM "Fact" f WHERE f.id = x."factId"))
    ON CONFLICT ("itemId") DO UPDATE SET model = EXCLUDED.model, dimensions = EXCLUDED.dimensions, "textHash" = EXCLUDED."textHash",
      vector = EXCLUDED.vector, "embeddedAt" = EXCLUDED."embeddedAt"
    RETURNING 1
  )
  ${doneRows}`);
const failed = statement('embeddings_failed', `
  UPDATE "EmbeddingOutbox" SET attempts = attempts + 1, "lastError" = $3,
    "nextAttemptAt" = LOCALTIMESTAMP + make_interval(secs => LEAST($4::float8, $5::float8 * 2 ^ attempts))
  WHERE "itemId" = $1 AND seq = $2::bigint`);

const backlog = statement('embeddings_backlog', `
  SELECT COUNT(*)::int AS pending, EXTRACT(EPOCH FROM LOCALTIMESTAMP - MIN("createdAt"))::float8 AS age,
    (SELECT "lastError" FROM "EmbeddingOutbox" WHERE "lastError" IS NOT NULL ORDER BY seq LIMIT 1) AS error
  FROM "EmbeddingOutbox"`);
const pendingIn = statement('embeddings_pending_in', `SELECT COUNT(*)::int AS pending FROM "EmbeddingOutbox" WHERE "projectId" = ANY($1::text[])`);

// Everything of a project (or of every project) queued again, to be embedded even where its vector is current.
const queueAll = statement('embeddings_queue_all', `
  WITH items AS (
    SELECT id, "projectId", 'entity' AS kind FROM "Entity" WHERE "searchText" <> '' AND ($1::text IS NULL OR "projectId" = $1)
    UNION ALL
    SELECT id, "projectId", 'fact' FROM "Fact" WHERE status = 'approved' AND "retiredAt" IS NULL AND ($1::text IS NULL OR "projectId" = $1)
  )
  SELECT lore_queue_embeddings(COALESCE((SELECT jsonb_agg(jsonb_build_object('id', id, 'projectId', "projectId", 'kind', kind)) FROM items), '[]'), true),
         (SELECT COUNT(*)::int FROM items) AS queued`);

// Whether the project is the account's, and whether it has a vector of this model yet.
const probe = statement('search_vectors_probe', `
  SELECT EXISTS (SELECT 1 FROM "Project" WHERE id = $1 AND "accountId" = $2) AS owned,
         EXISTS (SELECT 1 FROM "Embedding" WHERE "projectId" = $1 AND model = $3) AS vectors`);

export class EmbeddingStore {
  private ready?: Promise<boolean>;
  private readonly dimensions = new Map<number, Promise<void>>();

  constructor(private readonly sql: SqlClient) {}

  /** Whether vectors can be kept here (pgvector present): made sure of once per process. */
  available(): Promise<boolean> {
    this.ready ??= rows<{ ready: boolean }>(this.sql, ensureTable, []).then(([row]) => row.ready);
    this.ready.catch(() => (this.ready = undefined)); // a lost connection: ask again next time
    return this.ready;
  }

  /** The HNSW index and nearest-neighbour function of a dimension, made once (lore_embedding_dimension). */
  ensureDimension(dimensions: number): Promise<void> {
    let made = this.dimensions.get(dimensions);
    if (!made) {
      made = rows(this.sql, ensureDimension, [dimensions]).then(() => undefined);
      made.catch(() => this.dimensions.delete(dimensions));
      this.dimensions.set(dimensions, made);
    }
    return made;
  }

  dueItems(limit: number, projectIds?: string[]): Promise<OutboxItem[]> {
    return rows<OutboxItem>(this.sql, dueItems, [limit, projectIds ?? null]);
  }

  async texts(items: OutboxItem[]): Promise<Map<string, ItemText>> {
    const found = await rows<ItemText>(this.sql, itemTexts, [items.map((i) => i.itemId), items.map((i) => i.kind)]);
    return new Map(found.map((row) => [row.itemId, row]));
  }

  /** Items with nothing (left) to embed: their vectors go, and so do their outbox rows. */
  async remove(items: OutboxItem[]): Promise<void> {
    if (items.length > 0) await rows(this.sql, remove, [JSON.stringify(items.map(({ itemId, seq }) => ({ itemId, seq }))), items.map((i) => i.itemId)]);
  }

  /** Items whose stored vector is current: only their outbox rows go. */
  async finish(items: OutboxItem[]): Promise<void> {
    if (items.length > 0) await rows(this.sql, finish, [JSON.stringify(items.map(({ itemId, seq }) => ({ itemId, seq })))]);
  }

  /** Stores the vectors (one statement: the vectors and the outbox rows they settle commit together). */
  async write(model: string, dimensions: number, vectors: { item: OutboxItem; entityId: string; hash: string; vector: number[] }[]): Promise<void> {
    await this.ensureDimension(dimensions);
    const settled = JSON.stringify(vectors.map(({ item }) => ({ itemId: item.itemId, seq: item.seq })));
    const values = vectors.map(({ item, entityId, hash, vector }) => ({
      itemId: item.itemId,
      projectId: item.projectId,
      entityId,
      factId: item.kind === 'fact' ? item.itemId : null,
      textHash: hash,
      vector: JSON.stringify(vector),
    }));
    await rows(this.sql, write, [settled, JSON.stringify(values), model, dimensions]);
  }

  /** An item the provider refused on its own: tried again later, less and less often (from `firstSeconds`, at most `maxSeconds`). */
  async failed(item: OutboxItem, error: string, firstSeconds: number, maxSeconds: number): Promise<void> {
    await rows(this.sql, failed, [item.itemId, item.seq, error, maxSeconds, firstSeconds]);
  }

  async backlog(): Promise<Backlog> {
    const [row] = await rows<{ pending: number; age: number | null; error: string | null }>(this.sql, backlog, []);
    return { pending: row.pending, oldestPendingAgeSeconds: row.age === null ? null : Math.max(0, Math.round(row.age)), lastError: row.error };
  }

  async pendingIn(projectIds: string[]): Promise<number> {
    const [row] = await rows<{ pending: number }>(this.sql, pendingIn, [projectIds]);
    return row.pending;
  }

  /** Queues every entity and approved fact of the project (or of all), to be embedded again; returns how many. */
  async queueAll(projectId?: string): Promise<number> {
    const [row] = await rows<{ queued: number }>(this.sql, queueAll, [projectId ?? null]);
    return row.queued;
  }

  async probe(accountId: string, projectId: string, model: string): Promise<{ owned: boolean; vectors: boolean }> {
    const [row] = await rows<{ owned: boolean; vectors: boolean }>(this.sql, probe, [projectId, accountId, model]);
    return row;
  }
}

/** How a hybrid search ranks by meaning: the query's vector and the depth of each ranking (hybrid.ts). */
export type HybridSearch = { model: string; vector: number[]; maxDistance: number; lexicalDepth: number; vectorDepth: number };

// A query vector's text, kept with the vector (QueryVectors keeps each query's for as long as it keeps the query): a
// provider's 1,536 dimensions are 30 kB of text to write on every search.
const vectorTexts = new WeakMap<number[], string>();
function vectorText(vector: number[]): string {
  let text = vectorTexts.get(vector);
  if (text === undefined) vectorTexts.set(vector, (text = JSON.stringify(vector)));
  return text;
}

/** Parameters $1 to $9 of fusedRanking's statements. */
export const hybridValues = (accountId: string, projectId: string, search: HybridSearch & { q: string; threshold: number }) => [
  projectId, accountId, search.q, search.threshold, search.lexicalDepth, search.model, vectorText(search.vector), search.maxDistance, search.vectorDepth,
];

/**
 * SQL: the fused ranking of a hybrid search, as CTEs after `o` (the project, when it is the account's), computed in
 * the statement that reads the page, so the whole ranking (a thousand ids and more) never travels to the gateway:
 * - `v`: the project, when it has a vector of the model ($6); without one both rankings stay empty.
 * - `ranked`: the lexical ranking (lore_search: its best $5 for query $3 at trigram threshold $4) and the $9
 *   entities nearest to the query vector ($7) within cosine distance $8, by their nearest vector of the model; each
 *   entity with 1 / (rrfK + its rank) from each ranking that finds it (reciprocal rank fusion, fusion.ts).
 * - `fused`: every entity found, by `position` (1 = best): summed score, highest first, equal scores by id in
 *   byte order.
 * - `start`: the position of the cursor $10 (an entity id; null: 0, the first page), null when the cursor is not
 *   in the ranking.
 * - `page`: the $11 ids after it.
 */
export const fusedRanking = (dimensions: number) => `
  v AS (SELECT id FROM o WHERE EXISTS (SELECT 1 FROM "Embedding" WHERE "projectId" = o.id AND model = $6)),
  ranked AS (
    SELECT s.id, 1::float8 / (${rrfK} + s.rank) AS score
    FROM v CROSS JOIN lore_search(v.id, $3, $4::float8, NULL, NULL, $5::int) WITH ORDINALITY AS s(id, lexical, rank)
    UNION ALL
    SELECT n."entityId", 1::float8 / (${rrfK} + n.rank)
    FROM v CROSS JOIN lore_nearest_${dimensions}(v.id, $6, $7, $8::float8, $9::int) WITH ORDINALITY AS n("entityId", distance, rank)
  ),
  fused AS MATERIALIZED (SELECT id, row_number() OVER (ORDER BY sum(score) DESC, id COLLATE "C") AS position FROM ranked GROUP BY id),
  start AS (SELECT CASE WHEN $10::text IS NULL THEN 0 ELSE (SELECT position FROM fused WHERE id = $10::text) END AS position),
  page AS (SELECT f.id, f.position FROM fused f, start WHERE f.position > start.position AND f.position <= start.position + $11::int)`;
