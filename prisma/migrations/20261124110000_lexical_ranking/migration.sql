-- Lexical ranking with each candidate found by its own index and its name similarity computed as few times as it can
-- be (issue 18: hybrid search reads the best 1,000 lexical matches of every query, with the read cache off too).
--
-- The same rows in the same order with the same scores as before; what changes is how they are found:
-- - The full-text matches and the name matches are two branches of a UNION ALL (the second leaves out the rows of the
--   first), so each reads its own index. With the two conditions under one OR, the planner chose a sequential scan for
--   a query of common fact words (634 matches of 5,000 entities), which computed the name similarity of every entity
--   of the project.
-- - `p_q <% "nameText"` is `word_similarity(p_q, "nameText") >= pg_trgm.word_similarity_threshold`, and the threshold
--   is set to p_threshold just before: the second test of the same similarity (the old `similarity >= p_threshold`)
--   held for every row it saw, and cost one more similarity per name match.
-- - The query's tsquery is parsed once, into a variable, and the statement runs on its generic plan (planned once per
--   session): both branches read their index whatever the query, and planning it anew for each call (a custom plan,
--   as PL/pgSQL chose before) cost as much as running it for most queries. An index scan where a sequential one would
--   do slightly better (a query matching much of a project) gives the same rows.
CREATE OR REPLACE FUNCTION lore_search(p_project text, p_q text, p_threshold float8, p_after_score text, p_after_id text, p_limit int)
RETURNS TABLE (id text, score text) LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
DECLARE
  tsq tsquery := websearch_to_tsquery('simple', p_q);
BEGIN
  PERFORM set_config('pg_trgm.word_similarity_threshold', p_threshold::text, true);
  RETURN QUERY
  WITH ranked AS (
    SELECT e.id, (ts_rank(e."searchVector", tsq) + 2 * word_similarity(p_q, e."nameText"))::float8 AS score
    FROM "Entity" e
    WHERE e."projectId" = p_project AND e."searchVector" @@ tsq
    UNION ALL
    SELECT e.id, (ts_rank(e."searchVector", tsq) + 2 * word_similarity(p_q, e."nameText"))::float8
    FROM "Entity" e
    WHERE e."projectId" = p_project AND p_q <% e."nameText" AND NOT e."searchVector" @@ tsq
  )
  SELECT r.id, r.score::text FROM ranked r
  WHERE p_after_id IS NULL OR r.score < p_after_score::float8 OR (r.score = p_after_score::float8 AND r.id > p_after_id)
  ORDER BY r.score DESC, r.id ASC
  LIMIT p_limit;
END
$$;
