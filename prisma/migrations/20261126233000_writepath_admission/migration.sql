-- A request's admission in one statement and one round trip (issue 28, branch writepath): the key found by its secret's
-- hash (as keys_by_secret in src/core/access/keys.ts reads it), and, for a live key holding p_scope, one request
-- counted against its per-minute limit (the row and arithmetic of rate-limiter-flexible's RateLimiterPostgres, which
-- Metering.rateLimit still reads: key 'rpm:<key id>', a window of 60 s from its first request, p_now in epoch
-- milliseconds) and, when within it, p_cost reserved from its quota (lore_reserve_quota, the period start chosen by the
-- tier: p_day or p_month). The tier table comes from src/core/access/tiers.ts as arrays (p_tiers, p_quotas, p_daily,
-- p_rates). No row: no such key. Written through Metering.admitKey on the metering connections.
CREATE FUNCTION lore_admit(
  p_hash text, p_scope text, p_cost int, p_now bigint, p_day timestamp(3), p_month timestamp(3),
  p_tiers text[], p_quotas int[], p_daily boolean[], p_rates int[]
) RETURNS TABLE (
  id text, "accountId" text, tier text, scopes text[], "customQuota" int, "customRate" int, revoked boolean, expired boolean,
  points int, expire bigint, granted boolean
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  k record;
  i int;
  rate_key text;
BEGIN
  SELECT a.id, a."accountId", a.tier::text AS tier, a.scopes, a."customQuota", a."customRate", a."revokedAt" IS NOT NULL AS revoked,
         a."expiresAt" IS NOT NULL AND a."expiresAt" <= (now() AT TIME ZONE 'UTC') AS expired
  INTO k FROM "ApiKey" a WHERE a."secretHash" = p_hash;
  IF NOT FOUND THEN RETURN; END IF;
  id := k.id; "accountId" := k."accountId"; tier := k.tier; scopes := k.scopes; "customQuota" := k."customQuota";
  "customRate" := k."customRate"; revoked := k.revoked; expired := k.expired;
  IF k.revoked OR k.expired OR NOT (p_scope = ANY (k.scopes)) THEN RETURN NEXT; RETURN; END IF;
  i := array_position(p_tiers, k.tier);
  rate_key := 'rpm:' || k.id;
  INSERT INTO "RateLimit" AS r VALUES (rate_key, 1, p_now + 60000)
  ON CONFLICT (key) DO UPDATE SET
    points = CASE WHEN r.expire <= p_now THEN 1 ELSE r.points + 1 END,
    expire = CASE WHEN r.expire <= p_now THEN p_now + 60000 ELSE r.expire END
  RETURNING r.points, r.expire INTO points, expire;
  IF p_cost > 0 AND points <= COALESCE(k."customRate", p_rates[i]) THEN
    granted := (lore_reserve_quota(k.id, CASE WHEN p_daily[i] THEN p_day ELSE p_month END, ARRAY[p_cost], COALESCE(k."customQuota", p_quotas[i])))[1];
  END IF;
  RETURN NEXT;
END
$$;

-- lore_create_fact (migrations factwrites_create_fact, writelock_shared_writers: the project's writer lock shared, the
-- entity's row locked) with the project's owner (p_account) checked in the same statement, so the write needs no
-- ownership read of its own: another account's project is refused as 'project', like a missing one.
DROP FUNCTION lore_create_fact(text, text, text, text, text, text, text, text, text, timestamp(3), text, text, text, text, text, text, text[], jsonb, timestamp(3));
CREATE FUNCTION lore_create_fact(
  p_id text, p_candidate text, p_decision text, p_project text, p_account text, p_entity text, p_text text, p_status text, p_content text,
  p_key text, p_at timestamp(3), p_lock text,
  p_audit_id text, p_audit_account text, p_audit_key text, p_request text, p_operation text, p_targets text[], p_summary jsonb, p_audit_at timestamp(3)
) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  live text;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtextextended(p_lock, 0));
  IF NOT EXISTS (SELECT 1 FROM "Project" WHERE id = p_project AND "accountId" = p_account) THEN RETURN 'project'; END IF;
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
    VALUES (p_audit_id, p_audit_account, p_audit_key, p_request, p_operation, p_targets, p_summary, p_audit_at);
  END IF;
  RETURN NULL;
END
$$;
