-- The admission of a batch of requests (Metering.admitKey's batch; issue 28, branch search28i) with each key's rows
-- read and written once, not once per request: lore_admit ran for every request of the batch, each reading the key,
-- upserting its rate-limit row and reserving its quota (three statements and two row versions a request). The
-- requests come sorted by key hash, each key's in arrival order; each key's run of requests is decided exactly as
-- lore_admit would decide them one after the other (the rate counted in order under the row's lock, the quota granted
-- in order by lore_reserve_quota), and answered as lore_admit answers, one row a request (n: its position), a row of
-- nulls where the key is not found.
CREATE FUNCTION lore_admit_batch(
  p_hashes text[], p_scopes text[], p_costs int[], p_nows bigint[], p_days timestamp(3)[], p_months timestamp(3)[],
  p_tiers text[], p_quotas int[], p_daily boolean[], p_rates int[]
) RETURNS TABLE (
  n int, id text, "accountId" text, tier text, scopes text[], "customQuota" int, "customRate" int, revoked boolean, expired boolean,
  points int, expire bigint, granted boolean
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  total int := coalesce(array_length(p_hashes, 1), 0);
  first int := 1;
  last int;
  j int;
  m int;
  k record;
  i int;
  rate_key text;
  rate_limit int;
  counted boolean;
  changed boolean;
  cur_points int;
  cur_expire bigint;
  pts int[];
  exps bigint[];
  grants boolean[];
  period timestamp(3);
  periods timestamp(3)[];
  costs int[];
  who int[];
  answer boolean[];
BEGIN
  WHILE first <= total LOOP
    last := first;
    WHILE last < total AND p_hashes[last + 1] = p_hashes[first] LOOP
      last := last + 1;
    END LOOP;
    SELECT a.id, a."accountId", a.tier::text AS tier, a.scopes, a."customQuota", a."customRate", a."revokedAt" IS NOT NULL AS revoked,
           a."expiresAt" IS NOT NULL AND a."expiresAt" <= (now() AT TIME ZONE 'UTC') AS expired
    INTO k FROM "ApiKey" a WHERE a."secretHash" = p_hashes[first];
    IF NOT FOUND THEN
      FOR j IN first..last LOOP
        n := j; id := NULL; "accountId" := NULL; tier := NULL; scopes := NULL; "customQuota" := NULL; "customRate" := NULL;
        revoked := NULL; expired := NULL; points := NULL; expire := NULL; granted := NULL;
        RETURN NEXT;
      END LOOP;
    ELSE
      i := array_position(p_tiers, k.tier);
      rate_limit := COALESCE(k."customRate", p_rates[i]);
      rate_key := 'rpm:' || k.id;
      pts := '{}'; exps := '{}'; grants := '{}'; periods := '{}';
      counted := false;
      changed := false;
      -- The rate limit, counted request by request as lore_admit's upsert counts it.
      FOR j IN first..last LOOP
        CONTINUE WHEN k.revoked OR k.expired OR NOT (p_scopes[j] = ANY (k.scopes));
        IF NOT counted THEN
          counted := true;
          INSERT INTO "RateLimit" AS r VALUES (rate_key, 1, p_nows[j] + 60000) ON CONFLICT (key) DO NOTHING
          RETURNING r.points, r.expire INTO cur_points, cur_expire;
          IF FOUND THEN
            pts[j] := cur_points; exps[j] := cur_expire;
            CONTINUE;
          END IF;
          SELECT r.points, r.expire INTO cur_points, cur_expire FROM "RateLimit" r WHERE r.key = rate_key FOR UPDATE;
        END IF;
        IF cur_expire <= p_nows[j] THEN
          cur_points := 1;
          cur_expire := p_nows[j] + 60000;
        ELSE
          cur_points := cur_points + 1;
        END IF;
        changed := true;
        pts[j] := cur_points; exps[j] := cur_expire;
      END LOOP;
      IF changed THEN
        UPDATE "RateLimit" SET points = cur_points, expire = cur_expire WHERE key = rate_key;
      END IF;
      -- The quota, for the requests within the rate limit that cost something, granted in arrival order per period.
      FOR j IN first..last LOOP
        IF pts[j] IS NOT NULL AND p_costs[j] > 0 AND pts[j] <= rate_limit THEN
          period := CASE WHEN p_daily[i] THEN p_days[j] ELSE p_months[j] END;
          IF NOT (period = ANY (periods)) THEN periods := periods || period; END IF;
        END IF;
      END LOOP;
      FOREACH period IN ARRAY periods LOOP
        costs := '{}'; who := '{}';
        FOR j IN first..last LOOP
          IF pts[j] IS NOT NULL AND p_costs[j] > 0 AND pts[j] <= rate_limit AND period = (CASE WHEN p_daily[i] THEN p_days[j] ELSE p_months[j] END) THEN
            costs := costs || p_costs[j];
            who := who || j;
          END IF;
        END LOOP;
        answer := lore_reserve_quota(k.id, period, costs, COALESCE(k."customQuota", p_quotas[i]));
        FOR m IN 1..array_length(who, 1) LOOP
          grants[who[m]] := answer[m];
        END LOOP;
      END LOOP;
      FOR j IN first..last LOOP
        n := j; id := k.id; "accountId" := k."accountId"; tier := k.tier; scopes := k.scopes; "customQuota" := k."customQuota";
        "customRate" := k."customRate"; revoked := k.revoked; expired := k.expired;
        points := pts[j]; expire := exps[j]; granted := grants[j];
        RETURN NEXT;
      END LOOP;
    END IF;
    first := last + 1;
  END LOOP;
END
$$;
