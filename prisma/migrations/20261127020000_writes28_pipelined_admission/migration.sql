-- A request's admission sent in the same round trip as its write (issue 28, branch writes28): lore_admit, raising
-- (SQLSTATE LA001) unless the key is live, holds p_scope, is within its per-minute limit and had p_cost reserved from
-- its quota. The raise rolls the admission back (its counting too) and the server skips the rest of the round trip, so
-- a refused request writes nothing; the gateway then admits it alone (lore_admit) for the refusal's answer. Answers
-- the rate-limit window as counted.
CREATE OR REPLACE FUNCTION lore_admit_or_refuse(
  p_hash text, p_scope text, p_cost int, p_now bigint, p_day timestamp(3), p_month timestamp(3),
  p_tiers text[], p_quotas int[], p_daily boolean[], p_rates int[]
) RETURNS TABLE (points int, expire bigint) LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  SELECT * INTO r FROM lore_admit(p_hash, p_scope, p_cost, p_now, p_day, p_month, p_tiers, p_quotas, p_daily, p_rates) a;
  IF NOT FOUND OR r.revoked OR r.expired OR r.points IS NULL
     OR r.points > COALESCE(r."customRate", p_rates[array_position(p_tiers, r.tier)])
     OR (p_cost > 0 AND r.granted IS NOT TRUE) THEN
    RAISE EXCEPTION 'admission refused' USING ERRCODE = 'LA001';
  END IF;
  points := r.points;
  expire := r.expire;
  RETURN NEXT;
END
$$;
