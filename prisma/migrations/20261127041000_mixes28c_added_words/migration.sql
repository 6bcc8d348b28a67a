-- Read cache (issue 28, branch mixes28c): a new entity drops only the search pages it could show. lore_search finds
-- an entity when its search vector matches the query's tsquery or the query's trigrams are similar enough to its
-- names; an entity sharing no word with a query without negation, and no trigram with it, matches neither, and ranks
-- no other entity otherwise (ts_rank and word_similarity read one entity each). So the insert logs, beside the new
-- entities' names, the words of their search vectors (as to_tsvector('simple') made them) in "words", and a cached
-- search page is kept when none of them can be a word of its query and no name shares a trigram with it
-- (src/core/canon/canonChanges.ts). Later changes of a new entity's search text in the same transaction are logged by
-- the update trigger as before.
ALTER TABLE "CanonChange" ADD COLUMN "words" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];

CREATE OR REPLACE FUNCTION lore_touch_inserted_entities() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "CanonChange" ("projectId", version, scope, "entityIds", names, words)
  SELECT c."projectId", -1, 'added', array_agg(c.id), array_agg(c."nameText"),
    ARRAY(SELECT DISTINCT w FROM changed d, unnest(tsvector_to_array(d."searchVector")) w WHERE d."projectId" = c."projectId")
  FROM changed c WHERE EXISTS (SELECT 1 FROM "Project" p WHERE p.id = c."projectId")
  GROUP BY c."projectId";
  RETURN NULL;
END
$$;
