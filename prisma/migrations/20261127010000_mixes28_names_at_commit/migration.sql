-- New entities beside facts and state edits (issue 28, branch mixes28). A new entity now takes the project's writer lock
-- shared and a lock of the project's names exclusive (src/core/canon/canon.ts holdProjectForNewEntity), so new facts
-- and state edits of the project's entities go on while it runs. What still made them wait was the project's row: the
-- names trigger raised Project.namesVersion at the insert, so the row stayed locked until the new entity committed,
-- and every other writer's commit (which raises the canon version on that row) queued behind it. Now the names
-- version, like the canon version, is raised as the transaction commits: the trigger notes the project in the
-- transaction's setting lore.names_changed and logs a change that changes no page (so the commit's stamp runs), and
-- the stamp raises both versions in one update. The names version goes up by one per transaction that changed names
-- (it went up per statement), and stays what it was until the commit: src/core/names/projectNames.ts keeps no names
-- read inside such a transaction.

CREATE OR REPLACE FUNCTION lore_names_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  projects text[];
  noted text := COALESCE(current_setting('lore.names_changed', true), '');
BEGIN
  IF TG_OP = 'UPDATE' THEN
    projects := ARRAY(
      SELECT n."projectId" FROM changed n JOIN old_entities o ON o.id = n.id
      WHERE n.name IS DISTINCT FROM o.name OR n.aliases IS DISTINCT FROM o.aliases OR n."projectId" IS DISTINCT FROM o."projectId"
      UNION
      SELECT o."projectId" FROM changed n JOIN old_entities o ON o.id = n.id WHERE n."projectId" IS DISTINCT FROM o."projectId");
  ELSE
    projects := ARRAY(SELECT DISTINCT "projectId" FROM changed);
  END IF;
  IF cardinality(projects) = 0 THEN RETURN NULL; END IF;
  SELECT CASE WHEN noted = '' THEN ',' ELSE noted END || string_agg(p || ',', '') INTO noted
  FROM unnest(projects) p WHERE position(',' || p || ',' IN noted) = 0;
  IF noted IS NOT NULL THEN PERFORM set_config('lore.names_changed', noted, true); END IF;
  PERFORM lore_canon_changed(projects, 'none', NULL);
  RETURN NULL;
END
$$;

-- lore_stamp_canon_changes (the writelock_shared_writers migration), raising the names version too when the
-- transaction changed the project's names.
CREATE OR REPLACE FUNCTION lore_stamp_canon_changes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  stamped text := COALESCE(current_setting('lore.canon_stamped', true), '');
  names_changed boolean := position(',' || NEW."projectId" || ',' IN COALESCE(current_setting('lore.names_changed', true), '')) > 0;
  stamp bigint;
BEGIN
  IF position(',' || NEW."projectId" || ',' IN stamped) > 0 THEN RETURN NULL; END IF;
  PERFORM set_config('lore.canon_stamped', CASE WHEN stamped = '' THEN ',' ELSE stamped END || NEW."projectId" || ',', true);
  UPDATE "Project" SET "canonVersion" = "canonVersion" + 1, "namesVersion" = "namesVersion" + CASE WHEN names_changed THEN 1 ELSE 0 END
  WHERE id = NEW."projectId" RETURNING "canonVersion" INTO stamp;
  IF stamp IS NULL THEN
    DELETE FROM "CanonChange" WHERE "projectId" = NEW."projectId" AND "CanonChange".version = -1;
    RETURN NULL;
  END IF;
  UPDATE "CanonChange" SET version = stamp WHERE "projectId" = NEW."projectId" AND "CanonChange".version = -1;
  DELETE FROM "CanonChange" WHERE "projectId" = NEW."projectId" AND "CanonChange".version BETWEEN 0 AND stamp - 1000;
  RETURN NULL;
END
$$;
