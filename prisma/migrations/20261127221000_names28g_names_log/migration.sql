-- A project's names kept incrementally (issue 28, branch names28g). Every transaction that adds, removes or renames
-- entities raised Project.namesVersion, and the next reader of the project's names in each gateway read all of them
-- again (5,000 rows) and rebuilt what it had made of them. Now the same triggers log which entities' names changed
-- (NameChange: at -1 until the commit's stamp gives them the names version the commit raises), so a reader holding the
-- names at version v reads only the entities logged after v, their names as they stand now (or none: deleted or moved
-- away). The log keeps a project's last 1,000 names versions; "namesLogFrom" is the version it reaches back to (a
-- reader holding an older one reads every name).
CREATE TABLE "NameChange" (
  id BIGSERIAL PRIMARY KEY,
  "projectId" TEXT NOT NULL,
  version BIGINT NOT NULL,
  "entityId" TEXT NOT NULL
);
CREATE INDEX "NameChange_projectId_version_idx" ON "NameChange" ("projectId", version);
ALTER TABLE "Project" ADD COLUMN "namesLogFrom" BIGINT NOT NULL DEFAULT 0;
UPDATE "Project" SET "namesLogFrom" = "namesVersion";

-- Logs `p_entities` (their ids and projects) as changed in names, for the projects that still exist.
CREATE FUNCTION lore_log_names(p_entities jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "NameChange" ("projectId", version, "entityId")
  SELECT DISTINCT c.project, -1, c.id FROM jsonb_to_recordset(p_entities) AS c(id text, project text)
  WHERE EXISTS (SELECT 1 FROM "Project" p WHERE p.id = c.project);
END
$$;

-- lore_names_changed (the mixes28_names_at_commit migration) for inserts and deletes, logging the entities too.
CREATE OR REPLACE FUNCTION lore_names_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  projects text[] := ARRAY(SELECT DISTINCT "projectId" FROM changed);
  noted text := COALESCE(current_setting('lore.names_changed', true), '');
BEGIN
  IF cardinality(projects) = 0 THEN RETURN NULL; END IF;
  SELECT CASE WHEN noted = '' THEN ',' ELSE noted END || string_agg(p || ',', '') INTO noted
  FROM unnest(projects) p WHERE position(',' || p || ',' IN noted) = 0;
  IF noted IS NOT NULL THEN PERFORM set_config('lore.names_changed', noted, true); END IF;
  PERFORM lore_log_names((SELECT jsonb_agg(jsonb_build_object('id', id, 'project', "projectId")) FROM changed));
  PERFORM lore_canon_changed(projects, 'none', NULL);
  RETURN NULL;
END
$$;

-- lore_entity_updated (the write28c_fewer_statements migration), logging the renamed or moved entities too (a moved
-- one in both projects).
CREATE OR REPLACE FUNCTION lore_entity_updated() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
  projects text[];
  noted text;
  scope text := 'entities';
  words text[] := ARRAY[]::text[];
BEGIN
  SELECT bool_or(n."projectId" IS DISTINCT FROM o."projectId") AS moved,
         bool_or(n.name IS DISTINCT FROM o.name OR n.aliases IS DISTINCT FROM o.aliases) AS named,
         bool_or(n."nameText" IS DISTINCT FROM o."nameText") AS name_text,
         bool_or(n."searchText" IS DISTINCT FROM o."searchText") AS searched,
         bool_or(n."searchText" IS DISTINCT FROM o."searchText" AND NOT starts_with(n."searchText", o."searchText" || E'\n')) AS rewritten
  INTO r FROM changed n JOIN old_entities o ON o.id = n.id;
  IF r.searched THEN
    PERFORM lore_queue_embeddings(COALESCE((SELECT jsonb_agg(jsonb_build_object('id', n.id, 'projectId', n."projectId", 'kind', 'entity'))
      FROM changed n JOIN old_entities o ON o.id = n.id WHERE n."searchText" <> '' AND n."searchText" IS DISTINCT FROM o."searchText"), '[]'), false);
  END IF;
  IF r.named OR r.moved THEN
    projects := ARRAY(
      SELECT n."projectId" FROM changed n JOIN old_entities o ON o.id = n.id
      WHERE n.name IS DISTINCT FROM o.name OR n.aliases IS DISTINCT FROM o.aliases OR n."projectId" IS DISTINCT FROM o."projectId"
      UNION
      SELECT o."projectId" FROM changed n JOIN old_entities o ON o.id = n.id WHERE n."projectId" IS DISTINCT FROM o."projectId");
    noted := COALESCE(current_setting('lore.names_changed', true), '');
    SELECT CASE WHEN noted = '' THEN ',' ELSE noted END || string_agg(p || ',', '') INTO noted
    FROM unnest(projects) p WHERE position(',' || p || ',' IN noted) = 0;
    IF noted IS NOT NULL THEN PERFORM set_config('lore.names_changed', noted, true); END IF;
    PERFORM lore_log_names((
      SELECT jsonb_agg(x) FROM changed n JOIN old_entities o ON o.id = n.id,
        LATERAL (VALUES (jsonb_build_object('id', n.id, 'project', n."projectId")), (jsonb_build_object('id', o.id, 'project', o."projectId"))) v(x)
      WHERE n.name IS DISTINCT FROM o.name OR n.aliases IS DISTINCT FROM o.aliases OR n."projectId" IS DISTINCT FROM o."projectId"));
    PERFORM lore_canon_changed(projects, 'none', NULL);
  END IF;
  IF r.name_text OR r.moved THEN
    scope := 'all';
  ELSIF r.rewritten THEN
    scope := 'search';
  ELSIF r.searched THEN
    scope := 'appended';
    words := ARRAY(
      SELECT DISTINCT w FROM changed n JOIN old_entities o ON o.id = n.id,
        unnest(tsvector_to_array(to_tsvector('simple', substr(n."searchText", length(o."searchText") + 2)))) w
      WHERE n."searchText" IS DISTINCT FROM o."searchText");
  END IF;
  INSERT INTO "CanonChange" ("projectId", version, scope, "entityIds", names)
  SELECT p.id, -1, scope, ARRAY(SELECT id FROM changed), words FROM "Project" p
  WHERE p.id IN (SELECT "projectId" FROM changed UNION SELECT "projectId" FROM old_entities);
  RETURN NULL;
END
$$;

-- lore_stamp_canon_changes (the mixes28_names_at_commit migration), stamping the transaction's names log with the names
-- version it raises, and keeping the project's last 1,000 names versions of it.
CREATE OR REPLACE FUNCTION lore_stamp_canon_changes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  stamped text := COALESCE(current_setting('lore.canon_stamped', true), '');
  names_changed boolean := position(',' || NEW."projectId" || ',' IN COALESCE(current_setting('lore.names_changed', true), '')) > 0;
  stamp bigint;
  names bigint;
BEGIN
  IF position(',' || NEW."projectId" || ',' IN stamped) > 0 THEN RETURN NULL; END IF;
  PERFORM set_config('lore.canon_stamped', CASE WHEN stamped = '' THEN ',' ELSE stamped END || NEW."projectId" || ',', true);
  UPDATE "Project" SET "canonVersion" = "canonVersion" + 1, "namesVersion" = "namesVersion" + CASE WHEN names_changed THEN 1 ELSE 0 END,
    "namesLogFrom" = CASE WHEN names_changed THEN GREATEST("namesLogFrom", "namesVersion" + 1 - 1000) ELSE "namesLogFrom" END
  WHERE id = NEW."projectId" RETURNING "canonVersion", "namesVersion" INTO stamp, names;
  IF stamp IS NULL THEN
    DELETE FROM "CanonChange" WHERE "projectId" = NEW."projectId" AND "CanonChange".version = -1;
    DELETE FROM "NameChange" WHERE "projectId" = NEW."projectId" AND "NameChange".version = -1;
    RETURN NULL;
  END IF;
  UPDATE "CanonChange" SET version = stamp WHERE "projectId" = NEW."projectId" AND "CanonChange".version = -1;
  DELETE FROM "CanonChange" WHERE "projectId" = NEW."projectId" AND "CanonChange".version BETWEEN 0 AND stamp - 1000;
  IF names_changed THEN
    UPDATE "NameChange" SET version = names WHERE "projectId" = NEW."projectId" AND "NameChange".version = -1;
    DELETE FROM "NameChange" WHERE "projectId" = NEW."projectId" AND "NameChange".version BETWEEN 0 AND names - 1000;
  END IF;
  RETURN NULL;
END
$$;
