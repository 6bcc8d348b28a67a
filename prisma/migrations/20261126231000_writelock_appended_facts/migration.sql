-- Read cache (issue 28, branch writelock): a new approved fact appends its text to its entity's search text (after a
-- newline, when its id sorts after the entity's other facts), and then moves a search ranking only for a query that
-- has one of the appended words. lore_search ranks by ts_rank without length normalisation over to_tsvector('simple')
-- and by trigrams of the names: when the old text is kept whole and unmoved and none of the appended words is a word of
-- the query, the entity's match and score for that query stay what they were. Such a change is logged as scope
-- 'appended' with the appended words (as to_tsvector('simple') makes them) in "names", so a cached search page is
-- kept when no word of its query is among them and it does not show the entity (src/core/canon/canonChanges.ts).
-- Any other change of a search text stays scope 'search'.
CREATE OR REPLACE FUNCTION lore_touch_updated_entities() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  scope text := 'entities';
  words text[] := ARRAY[]::text[];
BEGIN
  IF EXISTS (SELECT 1 FROM changed n JOIN old_entities o ON o.id = n.id
             WHERE n."nameText" IS DISTINCT FROM o."nameText" OR n."projectId" IS DISTINCT FROM o."projectId") THEN
    scope := 'all';
  ELSIF EXISTS (SELECT 1 FROM changed n JOIN old_entities o ON o.id = n.id WHERE n."searchText" IS DISTINCT FROM o."searchText") THEN
    IF EXISTS (SELECT 1 FROM changed n JOIN old_entities o ON o.id = n.id
               WHERE n."searchText" IS DISTINCT FROM o."searchText" AND NOT starts_with(n."searchText", o."searchText" || E'\n')) THEN
      scope := 'search';
    ELSE
      scope := 'appended';
      words := ARRAY(
        SELECT DISTINCT w FROM changed n JOIN old_entities o ON o.id = n.id,
          unnest(tsvector_to_array(to_tsvector('simple', substr(n."searchText", length(o."searchText") + 2)))) w
        WHERE n."searchText" IS DISTINCT FROM o."searchText");
    END IF;
  END IF;
  INSERT INTO "CanonChange" ("projectId", version, scope, "entityIds", names)
  SELECT p.id, -1, scope, ARRAY(SELECT id FROM changed), words FROM "Project" p
  WHERE p.id IN (SELECT "projectId" FROM changed UNION SELECT "projectId" FROM old_entities);
  RETURN NULL;
END
$$;
