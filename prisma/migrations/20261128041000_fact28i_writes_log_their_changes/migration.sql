-- A new fact and a state edit log their own canon change (issue 28, branch fact28i). PostgreSQL's CPU for such a write
-- goes per statement executed, and a fact fired four statement triggers (the candidate's and the fact's change logs,
-- the fact's embedding queued, the entity's update), each a function call with statements of its own, to log one row
-- of CanonChange and queue two embeddings: the statement that writes them now does that itself, once.

-- A statement that logs its own change sets lore.changes_logged for its duration (a state edit: for its transaction,
-- whose only canon write it is), and these triggers are then not fired at all. Every other write fires them as before.
DROP TRIGGER "Candidate_touch_insert" ON "Candidate";
CREATE TRIGGER "Candidate_touch_insert" AFTER INSERT ON "Candidate" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT
  WHEN (current_setting('lore.changes_logged', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION lore_touch_projects();
DROP TRIGGER "Fact_touch_insert" ON "Fact";
CREATE TRIGGER "Fact_touch_insert" AFTER INSERT ON "Fact" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT
  WHEN (current_setting('lore.changes_logged', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION lore_touch_projects();
DROP TRIGGER "Fact_embed_insert" ON "Fact";
CREATE TRIGGER "Fact_embed_insert" AFTER INSERT ON "Fact" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT
  WHEN (current_setting('lore.changes_logged', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION lore_queue_fact_embeddings();
DROP TRIGGER "Entity_update" ON "Entity";
CREATE TRIGGER "Entity_update" AFTER UPDATE ON "Entity" REFERENCING OLD TABLE AS old_entities NEW TABLE AS changed FOR EACH STATEMENT
  WHEN (current_setting('lore.changes_logged', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION lore_entity_updated();

-- lore_create_fact (the write28d_fact_writes migration): the same checks, writes and answers; the change logged and
-- the embeddings queued as those triggers did: an approved fact queues itself and its entity (whose search text it
-- changes) and logs the entity's appended words ('appended', the words of the fact's text) or, placed inside the
-- text, 'search'; a suggested one logs its entity ('entities': its card lists suggestions), where the candidate's
-- change of nothing was covered by it.
CREATE OR REPLACE FUNCTION lore_create_fact(
  p_id text, p_candidate text, p_decision text, p_project text, p_account text, p_entity text, p_text text, p_status text, p_content text,
  p_key text, p_at timestamp(3), p_lock text,
  p_audit_id text, p_audit_account text, p_audit_key text, p_request text, p_operation text, p_targets text[], p_summary jsonb, p_audit_at timestamp(3)
) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  live text;
  logged text;
  appended boolean;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtextextended(p_lock, 0));
  PERFORM 1 FROM "Entity" e
  WHERE e.id = p_entity AND e."projectId" = p_project AND EXISTS (SELECT 1 FROM "Project" WHERE id = p_project AND "accountId" = p_account)
  FOR NO KEY UPDATE OF e;
  IF NOT FOUND THEN
    RETURN CASE WHEN EXISTS (SELECT 1 FROM "Project" WHERE id = p_project AND "accountId" = p_account) THEN 'entity' ELSE 'project' END;
  END IF;
  -- Whether the entity has a live fact of this text, and whether the new fact's id sorts after all of its facts'.
  SELECT (SELECT id FROM "Fact" WHERE "entityId" = p_entity AND text = p_text AND "retiredAt" IS NULL),
    NOT EXISTS (SELECT 1 FROM "Fact" WHERE "entityId" = p_entity AND id >= p_id)
  INTO live, appended;
  IF live IS NOT NULL THEN RETURN 'live:' || live; END IF;
  logged := set_config('lore.changes_logged', 'on', true);
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
  ), change AS (
    INSERT INTO "CanonChange" ("projectId", version, scope, "entityIds", names)
    SELECT p_project, -1, CASE WHEN p_status <> 'approved' THEN 'entities' WHEN appended THEN 'appended' ELSE 'search' END, ARRAY[p_entity],
      CASE WHEN p_status = 'approved' AND appended THEN ARRAY(SELECT DISTINCT w FROM unnest(tsvector_to_array(to_tsvector('simple', p_text))) w)
        ELSE ARRAY[]::text[] END
  ), queued AS (
    INSERT INTO "EmbeddingOutbox" ("itemId", "projectId", kind, force)
    SELECT item, p_project, kind, false FROM (VALUES (p_entity, 'entity'), (p_id, 'fact')) q(item, kind) WHERE p_status = 'approved'
    ON CONFLICT ("itemId") DO UPDATE SET seq = nextval('"EmbeddingOutbox_seq"'), force = "EmbeddingOutbox".force OR EXCLUDED.force,
      attempts = 0, "lastError" = NULL, "nextAttemptAt" = CURRENT_TIMESTAMP
  )
  -- The search text is the names and the approved live facts in the order of their ids: a fact whose id comes after
  -- every fact of its entity (ids grow with time, so nearly every new one) goes at its end, without the entity's
  -- other facts read again; any other is placed by writing the whole text anew.
  UPDATE "Entity" e SET "searchText" = CASE
    WHEN appended THEN e."searchText" || E'\n' || p_text
    ELSE e."nameText" || COALESCE(E'\n' || (
      SELECT string_agg(t.text, E'\n' ORDER BY t.id) FROM (
        SELECT f.id, f.text FROM "Fact" f WHERE f."entityId" = e.id AND f.status = 'approved' AND f."retiredAt" IS NULL
        UNION ALL SELECT p_id, p_text
      ) t
    ), '') END
  WHERE e.id = p_entity AND p_status = 'approved';
  logged := set_config('lore.changes_logged', '', true);
  RETURN NULL;
END
$$;

-- The log's old versions go once every 64 versions of the project, not one at each commit: it keeps its last 1,000 to
-- 1,063 (readers find a pruned version by counting, canonChanges.ts, so more kept is only more to read from).
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
  IF stamp % 64 = 0 THEN
    DELETE FROM "CanonChange" WHERE "projectId" = NEW."projectId" AND "CanonChange".version BETWEEN 0 AND stamp - 1000;
  END IF;
  IF names_changed THEN
    UPDATE "NameChange" SET version = names WHERE "projectId" = NEW."projectId" AND "NameChange".version = -1;
    DELETE FROM "NameChange" WHERE "projectId" = NEW."projectId" AND "NameChange".version BETWEEN 0 AND names - 1000;
  END IF;
  RETURN NULL;
END
$$;
