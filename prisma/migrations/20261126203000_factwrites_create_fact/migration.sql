-- A new fact without story time or knowers (issue 28, branch factwrites), the commonest write, in one statement and so
-- one round trip and one transaction (its own, committed as every other: durably): the project's writer lock, the
-- checks, the candidate, the decision when approved, the fact, the entity's search text (as refreshSearchText in
-- src/core/canon/canon.ts writes it) and the write's audit entry (p_audit_id null: none). Written through
-- FactService.createTimeless (src/core/canon/facts.ts). Answers null once written, else what refused it, having
-- written nothing: 'project' (not found), 'entity' (not the project's), 'live:<id>' (a live fact of the entity with
-- the text). Each statement in the function sees the rows committed before it, so the checks after the lock see every
-- earlier writer's fact.
CREATE FUNCTION lore_create_fact(
  p_id text, p_candidate text, p_decision text, p_project text, p_entity text, p_text text, p_status text, p_content text,
  p_key text, p_at timestamp(3), p_lock text,
  p_audit_id text, p_account text, p_audit_key text, p_request text, p_operation text, p_targets text[], p_summary jsonb, p_audit_at timestamp(3)
) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  live text;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(p_lock, 0));
  IF NOT EXISTS (SELECT 1 FROM "Project" WHERE id = p_project) THEN RETURN 'project'; END IF;
  IF NOT EXISTS (SELECT 1 FROM "Entity" WHERE id = p_entity AND "projectId" = p_project) THEN RETURN 'entity'; END IF;
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
