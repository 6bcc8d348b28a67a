-- What each canon version changed, so a read cache keeps the pages a write cannot have changed (src/core/canon/
-- canonChanges.ts): one row per changing statement, at the version it raised to. scope: 'all' (any page may have
-- changed: entities added, removed or renamed, chapters, conflicts), 'search' (search rankings moved: search texts,
-- vectors; recall pages only through entityIds), 'entities' (only pages showing one of entityIds), 'none' (nothing recall
-- or search show). Every version has at least one row, so a reader can tell a complete log from a pruned one.
CREATE TABLE "CanonChange" (
    "id" BIGSERIAL NOT NULL,
    "projectId" TEXT NOT NULL,
    "version" BIGINT NOT NULL,
    "scope" TEXT NOT NULL,
    "entityIds" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],

    CONSTRAINT "CanonChange_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "CanonChange_projectId_version_idx" ON "CanonChange"("projectId", "version");

-- A project's canonVersion goes up once per transaction (a write's several statements share one version: fewer row
-- versions of the project and one step for the caches), and each statement logs what it changed at that version. The
-- log keeps a project's last 1,000 versions.
CREATE FUNCTION lore_canon_changed(p_projects text[], p_scope text, p_entities text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  touched text := COALESCE(current_setting('lore.canon_touched', true), '');
  fresh text[];
BEGIN
  fresh := ARRAY(SELECT DISTINCT p FROM unnest(p_projects) p WHERE position(',' || p || ',' IN touched) = 0);
  IF cardinality(fresh) > 0 THEN
    UPDATE "Project" SET "canonVersion" = "canonVersion" + 1 WHERE id = ANY(fresh);
    PERFORM set_config('lore.canon_touched', CASE WHEN touched = '' THEN ',' ELSE touched END || array_to_string(fresh, ',') || ',', true);
    DELETE FROM "CanonChange" c USING "Project" p
    WHERE p.id = ANY(fresh) AND c."projectId" = p.id AND c.version <= p."canonVersion" - 1000;
  END IF;
  INSERT INTO "CanonChange" ("projectId", version, scope, "entityIds")
  SELECT p.id, p."canonVersion", p_scope, COALESCE(p_entities, ARRAY[]::text[]) FROM "Project" p WHERE p.id = ANY(p_projects);
END
$$;

CREATE OR REPLACE FUNCTION lore_touch_projects() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME IN ('Fact', 'Mention', 'StateValue') THEN
    PERFORM lore_canon_changed(ARRAY(SELECT DISTINCT "projectId" FROM changed), 'entities', ARRAY(SELECT DISTINCT "entityId" FROM changed));
  ELSIF TG_TABLE_NAME = 'Embedding' THEN
    PERFORM lore_canon_changed(ARRAY(SELECT DISTINCT "projectId" FROM changed), 'search', NULL);
  ELSIF TG_TABLE_NAME IN ('Relationship', 'Beat', 'Candidate') THEN
    PERFORM lore_canon_changed(ARRAY(SELECT DISTINCT "projectId" FROM changed), 'none', NULL);
  ELSE
    PERFORM lore_canon_changed(ARRAY(SELECT DISTINCT "projectId" FROM changed), 'all', NULL);
  END IF;
  RETURN NULL;
END
$$;

-- An entity's update changes every page only when its names change (recall and search find it by them), search
-- rankings when its search text does, and otherwise only the pages that show it.
CREATE FUNCTION lore_touch_updated_entities() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  scope text := 'entities';
BEGIN
  IF EXISTS (SELECT 1 FROM changed n JOIN old_entities o ON o.id = n.id
             WHERE n."nameText" IS DISTINCT FROM o."nameText" OR n."projectId" IS DISTINCT FROM o."projectId") THEN
    scope := 'all';
  ELSIF EXISTS (SELECT 1 FROM changed n JOIN old_entities o ON o.id = n.id WHERE n."searchText" IS DISTINCT FROM o."searchText") THEN
    scope := 'search';
  END IF;
  PERFORM lore_canon_changed(ARRAY(SELECT DISTINCT "projectId" FROM changed UNION SELECT "projectId" FROM old_entities), scope, ARRAY(SELECT id FROM changed));
  RETURN NULL;
END
$$;
DROP TRIGGER "Entity_touch_update" ON "Entity";
CREATE TRIGGER "Entity_touch_update" AFTER UPDATE ON "Entity" REFERENCING OLD TABLE AS old_entities NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_updated_entities();
