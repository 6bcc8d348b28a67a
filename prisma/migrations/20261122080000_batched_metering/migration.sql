-- Reserves quota for a batch of one key's requests at once: each cost, in order, is granted when it still fits, under
-- the counter row's lock, so concurrent batches from any number of gateway processes never spend past the quota.
CREATE FUNCTION lore_reserve_quota(key_id text, period_start timestamp(3), costs int[], quota int) RETURNS boolean[]
LANGUAGE plpgsql AS $$
DECLARE
  used_before int;
  used_after int;
  cost int;
  granted boolean[] := '{}';
BEGIN
  INSERT INTO "UsageCounter" ("keyId", "periodStart", "used") VALUES (key_id, period_start, 0)
  ON CONFLICT ("keyId", "periodStart") DO NOTHING;
  SELECT "used" INTO used_before FROM "UsageCounter" WHERE "keyId" = key_id AND "periodStart" = period_start FOR UPDATE;
  used_after := used_before;
  FOREACH cost IN ARRAY costs LOOP
    IF used_after + cost <= quota THEN
      used_after := used_after + cost;
      granted := granted || true;
    ELSE
      granted := granted || false;
    END IF;
  END LOOP;
  IF used_after <> used_before THEN
    UPDATE "UsageCounter" SET "used" = used_after WHERE "keyId" = key_id AND "periodStart" = period_start;
  END IF;
  RETURN granted;
END
$$;
