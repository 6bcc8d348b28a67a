-- Read cache (issue 28, branch mixload): a new entity changes only the recall pages whose filter its names match (and
-- search rankings), not every page of its project. Its insert logs scope 'added' with the new entities' ids and their
-- names as written ("nameText"), so a cached recall page is kept when none of them contains its filter
-- (src/core/canon/canonChanges.ts). The names are logged, not looked up later: a rename since would hide the name the
-- page was to be checked against.
ALTER TABLE "CanonChange" ADD COLUMN "names" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];

CREATE FUNCTION lore_touch_inserted_entities() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Raises each project's version once per transaction (and logs a row that changes no page), then logs what was added.
  PERFORM lore_canon_changed(ARRAY(SELECT DISTINCT "projectId" FROM changed), 'none', NULL);
  INSERT INTO "CanonChange" ("projectId", version, scope, "entityIds", names)
  SELECT p.id, p."canonVersion", 'added', array_agg(c.id), array_agg(c."nameText")
  FROM changed c JOIN "Project" p ON p.id = c."projectId"
  GROUP BY p.id, p."canonVersion";
  RETURN NULL;
END
$$;
DROP TRIGGER "Entity_touch_insert" ON "Entity";
CREATE TRIGGER "Entity_touch_insert" AFTER INSERT ON "Entity" REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_inserted_entities();

-- A chapter update changes what pages show only when the chapter's place, names or text change: a new entity's mention
-- bookkeeping (the mention hashes of every chapter of its project) and the other hashes of what was done with a text
-- change no page. The text is compared through its content hash, which every text writer sets with it, so that a
-- chapter's text is not read back for the comparison.
CREATE FUNCTION lore_touch_updated_chapters() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  scope text := 'none';
BEGIN
  IF EXISTS (SELECT 1 FROM changed n LEFT JOIN old_chapters o ON o.id = n.id
             WHERE o.id IS NULL OR (n."projectId", n."externalId", n.title, n.ordinal, n."contentHash", n.source, n."createdAt")
               IS DISTINCT FROM (o."projectId", o."externalId", o.title, o.ordinal, o."contentHash", o.source, o."createdAt")) THEN
    scope := 'all';
  END IF;
  PERFORM lore_canon_changed(ARRAY(SELECT "projectId" FROM changed UNION SELECT "projectId" FROM old_chapters), scope, NULL);
  RETURN NULL;
END
$$;
DROP TRIGGER "Chapter_touch_update" ON "Chapter";
CREATE TRIGGER "Chapter_touch_update" AFTER UPDATE ON "Chapter" REFERENCING OLD TABLE AS old_chapters NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_updated_chapters();
