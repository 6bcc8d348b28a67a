-- AlterTable
ALTER TABLE "Project" ADD COLUMN     "canonVersion" BIGINT NOT NULL DEFAULT 0;

-- Rate limits move from RateLimiterPrisma to rate-limiter-flexible's RateLimiterPostgres (one statement per request).
-- DropTable
DROP TABLE "RateLimiterFlexible";

-- CreateTable
CREATE TABLE "RateLimit" (
    "key" VARCHAR(255) NOT NULL,
    "points" INTEGER NOT NULL DEFAULT 0,
    "expire" BIGINT,

    CONSTRAINT "RateLimit_pkey" PRIMARY KEY ("key")
);

-- Ranked search in one round trip: the trigram operator `<%` takes its threshold from a setting, which must be set in
-- the same transaction before the query runs. Scores are returned as text so a page cursor compares exactly.
CREATE FUNCTION lore_search(p_project text, p_q text, p_threshold float8, p_after_score text, p_after_id text, p_limit int)
RETURNS TABLE (id text, score text) LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  PERFORM set_config('pg_trgm.word_similarity_threshold', p_threshold::text, true);
  RETURN QUERY
  WITH query AS (SELECT websearch_to_tsquery('simple', p_q) AS tsq),
  ranked AS (
    SELECT e.id, (ts_rank(to_tsvector('simple', e."searchText"), query.tsq) + 2 * word_similarity(p_q, e."nameText"))::float8 AS score
    FROM "Entity" e, query
    WHERE e."projectId" = p_project
      AND (to_tsvector('simple', e."searchText") @@ query.tsq
        OR (p_q <% e."nameText" AND word_similarity(p_q, e."nameText") >= p_threshold))
  )
  SELECT r.id, r.score::text FROM ranked r
  WHERE p_after_id IS NULL OR r.score < p_after_score::float8 OR (r.score = p_after_score::float8 AND r.id > p_after_id)
  ORDER BY r.score DESC, r.id ASC
  LIMIT p_limit;
END
$$;

-- Any change to what recall and search answer raises the project's canonVersion, once per statement (an import's
-- bulk insert of 100,000 mentions touches the project row once). Conflict links change only with their conflict or
-- entity, whose own triggers fire; relationships and beats do not appear in recall or search.
CREATE FUNCTION lore_touch_projects() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "Project" SET "canonVersion" = "canonVersion" + 1 WHERE id IN (SELECT DISTINCT "projectId" FROM changed);
  RETURN NULL;
END
$$;
CREATE TRIGGER "Entity_touch_insert" AFTER INSERT ON "Entity" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Entity_touch_update" AFTER UPDATE ON "Entity" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Entity_touch_delete" AFTER DELETE ON "Entity" REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Fact_touch_insert" AFTER INSERT ON "Fact" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Fact_touch_update" AFTER UPDATE ON "Fact" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Fact_touch_delete" AFTER DELETE ON "Fact" REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Mention_touch_insert" AFTER INSERT ON "Mention" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Mention_touch_update" AFTER UPDATE ON "Mention" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Mention_touch_delete" AFTER DELETE ON "Mention" REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Chapter_touch_insert" AFTER INSERT ON "Chapter" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Chapter_touch_update" AFTER UPDATE ON "Chapter" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Chapter_touch_delete" AFTER DELETE ON "Chapter" REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Conflict_touch_insert" AFTER INSERT ON "Conflict" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Conflict_touch_update" AFTER UPDATE ON "Conflict" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Conflict_touch_delete" AFTER DELETE ON "Conflict" REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
