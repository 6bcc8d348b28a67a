-- A new fact in fewer statements (issue 28, branch write28c). Profiled on the seeded 5,000-entity project, PostgreSQL's
-- CPU for one fact is spread thin over some forty statements (the function's, its triggers', the foreign keys'
-- checks), each paying an executor's start and end (plan revalidation, locks, catalog lookups), not over the rows
-- written: with every trigger switched off a fact cost half as much. Here the function checks the project and locks the
-- entity in one statement and writes the candidate, decision, fact, audit entry and search text in one; and an
-- entity's update runs one trigger where it ran three (embeddings, names, canon change), from one pass over its rows.

-- lore_create_fact (the writepath_admission migration): the same checks, writes and answers.
CREATE OR REPLACE FUNCTION lore_create_fact(
  p_id text, p_candidate text, p_decision text, p_project text, p_account text, p_entity text, p_text text, p_status text, p_content text,
  p_key text, p_at timestamp(3), p_lock text,
  p_audit_id text, p_audit_account text, p_audit_key text, p_request text, p_operation text, p_targets text[], p_summary jsonb, p_audit_at timestamp(3)
) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  live text;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtextextended(p_lock, 0));
  PERFORM 1 FROM "Entity" e
  WHERE e.id = p_entity AND e."projectId" = p_project AND EXISTS (SELECT 1 FROM "Project" WHERE id = p_project AND "accountId" = p_account)
  FOR NO KEY UPDATE OF e;
  IF NOT FOUND THEN
    RETURN CASE WHEN EXISTS (SELECT 1 FROM "Project" WHERE id = p_project AND "accountId" = p_account) THEN 'entity' ELSE 'project' END;
  END IF;
  SELECT id INTO live FROM "Fact" WHERE "entityId" = p_entity AND text = p_text AND "retiredAt" IS NULL LIMIT 1;
  IF live IS NOT NULL THEN RETURN 'live:' || live; END IF;
  -- One statement: its parts see the rows as they were before it (the entity's live facts without the new one, added
  -- by hand), and the foreign keys are checked after it, when every row is there.
  WITH candidate AS (
    INSERT INTO "Candidate" (id, "projectId", kind, status, "entityId", fact, content, source, "proposedBy", "createdAt")
    VALUES (p_candidate, p_project, 'fact', CASE WHEN p_decision IS NULL THEN 'pending' ELSE 'approved' END::"CandidateStatus", p_entity, p_text,
      p_content, 'api', p_key, p_at)
  ), decision AS (
    INSERT INTO "Decision" (id, "candidateId", status, "decidedBy", "decidedAt")
    SELECT p_decision, p_candidate, 'approved', p_key, p_at WHERE p_decision IS NOT NULL
  ), fact AS (
    INSERT INTO "Fact" (id, "projectId", "entityId", text, status, source, "candidateId", "createdBy", "createdAt")
    VALUES (p_id, p_project, p_entity, p_text, p_status::"ApprovalStatus", 'api', p_candidate, p_key, p_at)
  ), audit AS (
    INSERT INTO "AuditEntry" (id, "accountId", "keyId", "requestId", operation, targets, summary, "createdAt")
    SELECT p_audit_id, p_audit_account, p_audit_key, p_request, p_operation, p_targets, p_summary, p_audit_at WHERE p_audit_id IS NOT NULL
  )
  UPDATE "Entity" e SET "searchText" = e."nameText" || COALESCE(E'\n' || (
    SELECT string_agg(t.text, E'\n' ORDER BY t.id) FROM (
      SELECT f.id, f.text FROM "Fact" f WHERE f."entityId" = e.id AND f.status = 'approved' AND f."retiredAt" IS NULL
      UNION ALL SELECT p_id, p_text
    ) t
  ), '')
  WHERE e.id = p_entity AND p_status = 'approved';
  RETURN NULL;
END
$$;

-- An entity's update, once per statement: its embeddings queued when its search text changed
-- (lore_queue_entity_embeddings), its project's names noted when its names changed (lore_names_changed), and its
-- change logged (lore_touch_updated_entities, the writelock_appended_facts migration), in that order, as those three
-- triggers did.
CREATE FUNCTION lore_entity_updated() RETURNS trigger LANGUAGE plpgsql AS $$
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
DROP TRIGGER "Entity_embed_update" ON "Entity";
DROP TRIGGER "Entity_names_update" ON "Entity";
DROP TRIGGER "Entity_touch_update" ON "Entity";
DROP FUNCTION lore_touch_updated_entities();
CREATE TRIGGER "Entity_update" AFTER UPDATE ON "Entity" REFERENCING OLD TABLE AS old_entities NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION lore_entity_updated();
