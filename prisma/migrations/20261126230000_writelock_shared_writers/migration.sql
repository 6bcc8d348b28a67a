-- Writes to one project side by side (issue 28, branch writelock). Two things made every canon write of a project wait
-- for the one before it to commit: the project's writer lock, taken exclusive for the whole transaction, and the
-- project's canonVersion, raised by the first changing statement and so row-locked from there to the commit (fsync
-- included). Now a new fact and a change of an entity's state take the writer lock SHARED and lock their entity's row
-- (see src/core/canon/canon.ts), and the version is raised at commit: the changes are logged at version -1 and a
-- deferred trigger, fired once per project as the transaction commits, raises the version once and stamps them with it.
-- Versions still follow commit order (the row lock taken at commit is held through it) and still go up by one per
-- transaction with at least one logged row each, which the read cache (src/core/canon/canonChanges.ts) relies on.

-- A change logged for each project of p_projects that exists, to be stamped with the version its transaction commits
-- at (lore_stamp_canon_changes).
CREATE OR REPLACE FUNCTION lore_canon_changed(p_projects text[], p_scope text, p_entities text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "CanonChange" ("projectId", version, scope, "entityIds")
  SELECT p.id, -1, p_scope, COALESCE(p_entities, ARRAY[]::text[]) FROM "Project" p WHERE p.id = ANY(p_projects);
END
$$;

CREATE OR REPLACE FUNCTION lore_touch_inserted_entities() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "CanonChange" ("projectId", version, scope, "entityIds", names)
  SELECT c."projectId", -1, 'added', array_agg(c.id), array_agg(c."nameText")
  FROM changed c WHERE EXISTS (SELECT 1 FROM "Project" p WHERE p.id = c."projectId")
  GROUP BY c."projectId";
  RETURN NULL;
END
$$;

-- At commit, for each row logged at -1: the first of its project in the transaction raises the version and stamps the
-- project's rows of the transaction (the only ones at -1 it can see); the log keeps a project's last 1,000 versions.
-- A project deleted in the same transaction has nothing to stamp: its rows go.
CREATE FUNCTION lore_stamp_canon_changes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  stamped text := COALESCE(current_setting('lore.canon_stamped', true), '');
  stamp bigint;
BEGIN
  IF position(',' || NEW."projectId" || ',' IN stamped) > 0 THEN RETURN NULL; END IF;
  PERFORM set_config('lore.canon_stamped', CASE WHEN stamped = '' THEN ',' ELSE stamped END || NEW."projectId" || ',', true);
  UPDATE "Project" SET "canonVersion" = "canonVersion" + 1 WHERE id = NEW."projectId" RETURNING "canonVersion" INTO stamp;
  IF stamp IS NULL THEN
    DELETE FROM "CanonChange" WHERE "projectId" = NEW."projectId" AND "CanonChange".version = -1;
    RETURN NULL;
  END IF;
  UPDATE "CanonChange" SET version = stamp WHERE "projectId" = NEW."projectId" AND "CanonChange".version = -1;
  DELETE FROM "CanonChange" WHERE "projectId" = NEW."projectId" AND "CanonChange".version BETWEEN 0 AND stamp - 1000;
  RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER "CanonChange_stamp" AFTER INSERT ON "CanonChange" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.version = -1) EXECUTE FUNCTION lore_stamp_canon_changes();

-- lore_create_fact (the factwrites_create_fact migration) with the project's writer lock shared and its entity's row
-- locked instead: new facts of different entities go side by side, those of one entity (whose live texts are checked)
-- one at a time, and any writer holding the project's lock exclusive waits for them all.
CREATE OR REPLACE FUNCTION lore_create_fact(
  p_id text, p_candidate text, p_decision text, p_project text, p_entity text, p_text text, p_status text, p_content text,
  p_key text, p_at timestamp(3), p_lock text,
  p_audit_id text, p_account text, p_audit_key text, p_request text, p_operation text, p_targets text[], p_summary jsonb, p_audit_at timestamp(3)
) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  live text;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtextextended(p_lock, 0));
  IF NOT EXISTS (SELECT 1 FROM "Project" WHERE id = p_project) THEN RETURN 'project'; END IF;
  PERFORM 1 FROM "Entity" WHERE id = p_entity AND "projectId" = p_project FOR NO KEY UPDATE;
  IF NOT FOUND THEN RETURN 'entity'; END IF;
  SELECT id INTO live FROM "Fact" WHERE "entityId" = p_entity AND text = p_text AND "retiredAt" IS NULL LIMIT 1;
  IF live IS NOT NULL THEN RETURN 'live:' || live; END IF;
  INSERT INTO "Candidate" (id, "projectId", kind, status, "entityId", fact, content, source, "proposedBy", "createdAt")
  VALUES (p_candidate, p_project, 'fact', CASE WHEN p_decision IS NULL THEN 'pending' ELSE 'approved' END::"CandidateStatus", p_entity, p_text,
    p_content, 'api', p_key, p_at);
  IF p_decision IS NOT NULL THEN
    INSERT INTO "Decision" (id, "candidateId", status, "decidedBy", "decidedAt") VALUES (p_decision, p_candidate, 'approved', p_key, p_at);
  END IF;
  INSERT INTO "Fact" (id, "projectId", "entityId", text, status, source, "candidateId", "createdBy", "createdAt")
  VALUES (p_id, p_project, p_entity, p_text, p_status::"ApprovalStatus", 'api', p_candidate, p_key, p_at);
  IF p_status = 'approved' THEN
    UPDATE "Entity" e SET "searchText" = e."nameText" || COALESCE(E'\n' || (
      SELECT string_agg(f.text, E'\n' ORDER BY f.id) FROM "Fact" f WHERE f."entityId" = e.id AND f.status = 'approved' AND f."retiredAt" IS NULL
    ), '')
    WHERE e.id = p_entity;
  END IF;
  IF p_audit_id IS NOT NULL THEN
    INSERT INTO "AuditEntry" (id, "accountId", "keyId", "requestId", operation, targets, summary, "createdAt")
    VALUES (p_audit_id, p_account, p_audit_key, p_request, p_operation, p_targets, p_summary, p_audit_at);
  END IF;
  RETURN NULL;
END
$$;
