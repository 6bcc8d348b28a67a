-- The search text's tsvector, kept by PostgreSQL itself (not in schema.prisma: Prisma does not model generated
-- columns, and never writes this one): matching and ranking read it instead of parsing each candidate's text again.
ALTER TABLE "Entity" ADD COLUMN "searchVector" tsvector GENERATED ALWAYS AS (to_tsvector('simple', "searchText")) STORED;
DROP INDEX "Entity_search_fts_idx";
CREATE INDEX "Entity_searchVector_idx" ON "Entity" USING GIN ("searchVector");

-- Each candidate's name similarity is computed once, and the full-text side reads the stored vector.
CREATE OR REPLACE FUNCTION lore_search(p_project text, p_q text, p_threshold float8, p_after_score text, p_after_id text, p_limit int)
RETURNS TABLE (id text, score text) LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  PERFORM set_config('pg_trgm.word_similarity_threshold', p_threshold::text, true);
  RETURN QUERY
  WITH query AS (SELECT websearch_to_tsquery('simple', p_q) AS tsq),
  candidates AS (
    SELECT e.id, e."searchVector" AS vector, query.tsq, e."searchVector" @@ query.tsq AS matched,
           word_similarity(p_q, e."nameText") AS similarity
    FROM "Entity" e, query
    WHERE e."projectId" = p_project AND (e."searchVector" @@ query.tsq OR p_q <% e."nameText")
  ),
  ranked AS (
    SELECT c.id, (ts_rank(c.vector, c.tsq) + 2 * c.similarity)::float8 AS score
    FROM candidates c WHERE c.matched OR c.similarity >= p_threshold
  )
  SELECT r.id, r.score::text FROM ranked r
  WHERE p_after_id IS NULL OR r.score < p_after_score::float8 OR (r.score = p_after_score::float8 AND r.id > p_after_id)
  ORDER BY r.score DESC, r.id ASC
  LIMIT p_limit;
END
$$;
