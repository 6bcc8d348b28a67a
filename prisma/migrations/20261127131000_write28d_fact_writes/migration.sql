-- A new fact in less of PostgreSQL's time (issue 28, branch write28d): measured on the seeded 5,000-entity project,
-- about a tenth of the fact's CPU in the database.

-- lore_create_fact (the write28c_fewer_statements migration) rewrote its entity's search text from all of the entity's
-- approved live facts, reading each of them again on every new fact. The same text is the old one with the new fact at
-- its end whenever the new fact's id sorts last among the entity's facts; the checks, writes and answers are as before.

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
  -- The search text is the names and the approved live facts in the order of their ids: a fact whose id comes after
  -- every fact of its entity (ids grow with time, so nearly every new one) goes at its end, without the entity's
  -- other facts read again; any other is placed by writing the whole text anew.
  UPDATE "Entity" e SET "searchText" = CASE
    WHEN NOT EXISTS (SELECT 1 FROM "Fact" f WHERE f."entityId" = e.id AND f.id >= p_id) THEN e."searchText" || E'\n' || p_text
    ELSE e."nameText" || COALESCE(E'\n' || (
      SELECT string_agg(t.text, E'\n' ORDER BY t.id) FROM (
        SELECT f.id, f.text FROM "Fact" f WHERE f."entityId" = e.id AND f.status = 'approved' AND f."retiredAt" IS NULL
        UNION ALL SELECT p_id, p_text
      ) t
    ), '') END
  WHERE e.id = p_entity AND p_status = 'approved';
  RETURN NULL;
END
$$;

-- A change logged by a table's trigger (lore_touch_projects) that the transaction has already logged for the project:
-- a new fact logged its entity's appended words (its search text's update), the same entity again (its insert) and
-- a change of nothing (its candidate's insert), three rows of CanonChange each written, stamped with the version at
-- commit and indexed twice, where the first says everything the other two do. A change of nothing ('none') only
-- raises the version, which any other row of the transaction raises as well; a change of entities is covered by a row
-- of the transaction (version -1 until its commit) of all the project or of those entities (each scope but 'none'
-- drops the pages and cards of its entities; canonChanges.ts).
CREATE OR REPLACE FUNCTION lore_canon_changed(p_projects text[], p_scope text, p_entities text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "CanonChange" ("projectId", version, scope, "entityIds")
  SELECT p.id, -1, p_scope, COALESCE(p_entities, ARRAY[]::text[]) FROM "Project" p
  WHERE p.id = ANY(p_projects)
    AND NOT (p_scope IN ('none', 'entities') AND EXISTS (
      SELECT 1 FROM "CanonChange" c WHERE c."projectId" = p.id AND c.version = -1
        AND (p_scope = 'none' OR c.scope = 'all' OR (c.scope <> 'none' AND c."entityIds" @> COALESCE(p_entities, ARRAY[]::text[])))));
END
$$;
