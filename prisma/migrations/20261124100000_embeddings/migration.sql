-- Semantic search (issue 18): a vector of each entity's search text and of each approved fact, kept next to the canon,
-- and the outbox of what needs embedding.

-- What needs embedding: one row per item (an entity's search text, or a fact), queued by the triggers below in the
-- transaction that changes its text, and drained by the gateway's embedding worker. An item queued again keeps its one
-- row but takes a new seq, so a worker that embedded the older text does not remove it. Without a provider the table
-- holds at most one row per entity and fact, so a provider configured later embeds everything that waited.
CREATE SEQUENCE "EmbeddingOutbox_seq";
CREATE TABLE "EmbeddingOutbox" (
    "itemId" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "seq" BIGINT NOT NULL DEFAULT nextval('"EmbeddingOutbox_seq"'),
    "force" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "EmbeddingOutbox_pkey" PRIMARY KEY ("itemId")
);
CREATE INDEX "EmbeddingOutbox_seq_idx" ON "EmbeddingOutbox"("seq");
CREATE INDEX "EmbeddingOutbox_projectId_idx" ON "EmbeddingOutbox"("projectId");
ALTER TABLE "EmbeddingOutbox" ADD CONSTRAINT "EmbeddingOutbox_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Queues items (id, projectId, kind) again: a new seq, and a failed item's retry count starts over.
CREATE FUNCTION lore_queue_embeddings(p_items jsonb, p_force boolean) RETURNS void LANGUAGE sql AS $$
  INSERT INTO "EmbeddingOutbox" ("itemId", "projectId", "kind", "force")
  SELECT x.id, x."projectId", x.kind, p_force FROM jsonb_to_recordset(p_items) AS x(id text, "projectId" text, kind text)
  ON CONFLICT ("itemId") DO UPDATE SET "seq" = nextval('"EmbeddingOutbox_seq"'), "force" = "EmbeddingOutbox"."force" OR EXCLUDED."force",
    "attempts" = 0, "lastError" = NULL, "nextAttemptAt" = CURRENT_TIMESTAMP;
$$;

-- An entity is queued when its search text (name, aliases, approved facts) is new or changes.
CREATE FUNCTION lore_queue_entity_embeddings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM lore_queue_embeddings(COALESCE((SELECT jsonb_agg(jsonb_build_object('id', n.id, 'projectId', n."projectId", 'kind', 'entity'))
      FROM changed n WHERE n."searchText" <> ''), '[]'), false);
  ELSE
    PERFORM lore_queue_embeddings(COALESCE((SELECT jsonb_agg(jsonb_build_object('id', n.id, 'projectId', n."projectId", 'kind', 'entity'))
      FROM changed n JOIN previous o ON o.id = n.id WHERE n."searchText" <> '' AND n."searchText" IS DISTINCT FROM o."searchText"), '[]'), false);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER "Entity_embed_insert" AFTER INSERT ON "Entity" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_queue_entity_embeddings();
CREATE TRIGGER "Entity_embed_update" AFTER UPDATE ON "Entity" REFERENCING OLD TABLE AS previous NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_queue_entity_embeddings();

-- A fact is queued when it enters the canon (approved, live) and whenever its text, status or retirement changes: the
-- worker embeds it, or removes the vector of a fact that left the canon.
CREATE FUNCTION lore_queue_fact_embeddings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM lore_queue_embeddings(COALESCE((SELECT jsonb_agg(jsonb_build_object('id', n.id, 'projectId', n."projectId", 'kind', 'fact'))
      FROM changed n WHERE n.status = 'approved' AND n."retiredAt" IS NULL), '[]'), false);
  ELSE
    PERFORM lore_queue_embeddings(COALESCE((SELECT jsonb_agg(jsonb_build_object('id', n.id, 'projectId', n."projectId", 'kind', 'fact'))
      FROM changed n JOIN previous o ON o.id = n.id
      WHERE (n.text, n.status, n."retiredAt") IS DISTINCT FROM (o.text, o.status, o."retiredAt")), '[]'), false);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER "Fact_embed_insert" AFTER INSERT ON "Fact" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_queue_fact_embeddings();
CREATE TRIGGER "Fact_embed_update" AFTER UPDATE ON "Fact" REFERENCING OLD TABLE AS previous NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_queue_fact_embeddings();

-- A deleted entity or fact has nothing left to embed (its vector goes with it, by foreign key).
CREATE FUNCTION lore_unqueue_embeddings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "EmbeddingOutbox" WHERE "itemId" IN (SELECT id FROM gone);
  RETURN NULL;
END
$$;
CREATE TRIGGER "Entity_embed_delete" AFTER DELETE ON "Entity" REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION lore_unqueue_embeddings();
CREATE TRIGGER "Fact_embed_delete" AFTER DELETE ON "Fact" REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION lore_unqueue_embeddings();

-- Canon written before this migration: everything is queued once.
SELECT lore_queue_embeddings(COALESCE((SELECT jsonb_agg(jsonb_build_object('id', id, 'projectId', "projectId", 'kind', 'entity')) FROM "Entity" WHERE "searchText" <> ''), '[]'), false);
SELECT lore_queue_embeddings(COALESCE((SELECT jsonb_agg(jsonb_build_object('id', id, 'projectId', "projectId", 'kind', 'fact')) FROM "Fact" WHERE status = 'approved' AND "retiredAt" IS NULL), '[]'), false);

-- The vectors live where pgvector is: PGlite loads it, and a PostgreSQL server needs its package installed
-- (postgresql-15-pgvector or a build of it). Where the extension is missing, or cannot be created by this role, the
-- migration still succeeds without the table, and search stays lexical; the gateway calls this function again at
-- start when an embedding provider is configured, so installing pgvector later is enough. Returns whether the table
-- is there.
--
-- One row per item: the entity's search text (factId null) or one of its facts, with the model and dimension that
-- made it. The column takes vectors of any dimension; each dimension in use gets its own partial HNSW index and
-- nearest-neighbour function (lore_embedding_dimension below), made when the first vector of that dimension is stored.
CREATE FUNCTION lore_ensure_embeddings() RETURNS boolean LANGUAGE plpgsql AS $fn$
BEGIN
  IF to_regclass('"Embedding"') IS NOT NULL THEN RETURN true; END IF;
  PERFORM pg_advisory_xact_lock(4242003);
  IF to_regclass('"Embedding"') IS NOT NULL THEN RETURN true; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN RETURN false; END IF;
  BEGIN
    CREATE EXTENSION IF NOT EXISTS vector;
  EXCEPTION WHEN insufficient_privilege THEN
    RAISE WARNING 'pgvector is installed but this role cannot create the extension: run CREATE EXTENSION vector as a superuser';
    RETURN false;
  END;
  EXECUTE $ddl$
    CREATE TABLE "Embedding" (
      "itemId" TEXT NOT NULL,
      "projectId" TEXT NOT NULL,
      "entityId" TEXT NOT NULL,
      "factId" TEXT,
      "model" TEXT NOT NULL,
      "dimensions" INTEGER NOT NULL,
      "textHash" TEXT NOT NULL,
      "vector" vector NOT NULL,
      "embeddedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
      CONSTRAINT "Embedding_pkey" PRIMARY KEY ("itemId"),
      CONSTRAINT "Embedding_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE,
      CONSTRAINT "Embedding_entityId_fkey" FOREIGN KEY ("entityId") REFERENCES "Entity"("id") ON DELETE CASCADE ON UPDATE CASCADE,
      CONSTRAINT "Embedding_factId_fkey" FOREIGN KEY ("factId") REFERENCES "Fact"("id") ON DELETE CASCADE ON UPDATE CASCADE
    )$ddl$;
  EXECUTE 'CREATE INDEX "Embedding_projectId_model_idx" ON "Embedding"("projectId", "model")';
  EXECUTE 'CREATE INDEX "Embedding_entityId_idx" ON "Embedding"("entityId")';
  EXECUTE 'CREATE INDEX "Embedding_factId_idx" ON "Embedding"("factId")';
  -- Vectors arriving change what search answers: the read caches start over, as for any other write.
  EXECUTE 'CREATE TRIGGER "Embedding_touch_insert" AFTER INSERT ON "Embedding" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects()';
  EXECUTE 'CREATE TRIGGER "Embedding_touch_update" AFTER UPDATE ON "Embedding" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects()';
  EXECUTE 'CREATE TRIGGER "Embedding_touch_delete" AFTER DELETE ON "Embedding" REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects()';
  RETURN true;
END
$fn$;
SELECT lore_ensure_embeddings();

-- For one dimension: the HNSW index (cosine distance) over the vectors of that dimension, and
-- lore_nearest_<d>(project, model, query vector as text, max distance, limit): the entities of the project nearest to
-- the query, each by its nearest vector (its search text or one of its approved live facts), nearest first. The scan
-- is iterative (pgvector 0.8 and later), so the project and model filters cannot leave it short of the limit. It reads
-- twice the limit in vectors: an entity has its search text's and a few facts'.
CREATE FUNCTION lore_embedding_dimension(p_dimensions integer) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  iterative boolean := (SELECT string_to_array(extversion, '.')::int[] >= '{0,8,0}' FROM pg_extension WHERE extname = 'vector');
BEGIN
  IF to_regprocedure(format('lore_nearest_%s(text,text,text,float8,integer)', p_dimensions)) IS NOT NULL THEN RETURN; END IF;
  PERFORM pg_advisory_xact_lock(4242004);
  IF to_regprocedure(format('lore_nearest_%s(text,text,text,float8,integer)', p_dimensions)) IS NOT NULL THEN RETURN; END IF;
  -- HNSW indexes vectors of at most 2,000 dimensions; larger ones are searched exactly.
  IF p_dimensions <= 2000 THEN
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON "Embedding" USING hnsw ((vector::vector(%s)) vector_cosine_ops) WHERE dimensions = %s',
      'Embedding_hnsw_' || p_dimensions, p_dimensions, p_dimensions);
  END IF;
  EXECUTE format($f$
    CREATE FUNCTION lore_nearest_%1$s(p_project text, p_model text, p_query text, p_max_distance float8, p_limit integer)
    RETURNS TABLE ("entityId" text, distance float8) LANGUAGE plpgsql AS $body$
    BEGIN
      %2$s
      PERFORM set_config('hnsw.ef_search', LEAST(1000, GREATEST(40, p_limit * 2))::text, true);
      -- The plan is cheap; compiling it would cost more than running it.
      PERFORM set_config('jit', 'off', true);
      -- A fact that left the canon keeps its vector until the worker removes it: checked on the nearest few only (a
      -- check inside the index scan made PostgreSQL read every fact of the project for each search).
      RETURN QUERY
      SELECT n."entityId", min(n.distance) FROM (
        SELECT v."entityId", v."factId", (v.vector::vector(%1$s) <=> p_query::vector(%1$s))::float8 AS distance
        FROM "Embedding" v
        WHERE v."projectId" = p_project AND v.model = p_model AND v.dimensions = %1$s
        ORDER BY v.vector::vector(%1$s) <=> p_query::vector(%1$s)
        LIMIT p_limit * 2
      ) n
      WHERE n.distance <= p_max_distance
        AND (n."factId" IS NULL OR EXISTS (SELECT 1 FROM "Fact" f WHERE f.id = n."factId" AND f.status = 'approved' AND f."retiredAt" IS NULL))
      GROUP BY n."entityId"
      ORDER BY 2, 1
      LIMIT p_limit;
    END
    $body$$f$,
    p_dimensions,
    CASE WHEN iterative THEN $s$PERFORM set_config('hnsw.iterative_scan', 'relaxed_order', true);$s$ ELSE '' END);
END
$fn$;
