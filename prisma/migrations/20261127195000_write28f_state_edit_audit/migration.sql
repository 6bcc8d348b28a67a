-- An entity's state edit in one round trip (issue 28, branch write28f): its audit entry goes in the statement that
-- reads its answer, so the answer's ids, which the entry's targets hold, need not come back to the gateway first.

-- `known` with the ids `value` holds, as src/core/audit/describe.ts collectIds adds them (the fields id, ...Id and
-- the lists ...Ids, searched `depth` levels down, accountId left out, at most 50), for a JSON value in the field order
-- of the object the gateway would have searched.
CREATE OR REPLACE FUNCTION lore_audit_targets(known text[], value json, depth int) RETURNS text[] LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  k text;
  v json;
  item json;
BEGIN
  IF depth < 0 OR cardinality(known) >= 50 OR value IS NULL THEN RETURN known; END IF;
  IF json_typeof(value) = 'array' THEN
    FOR item IN SELECT a FROM json_array_elements(value) a LOOP
      known := lore_audit_targets(known, item, depth - 1);
    END LOOP;
    RETURN known;
  END IF;
  IF json_typeof(value) <> 'object' THEN RETURN known; END IF;
  FOR k, v IN SELECT * FROM json_each(value) LOOP
    IF cardinality(known) >= 50 THEN RETURN known; END IF;
    CONTINUE WHEN k = 'accountId';
    IF k = 'id' OR k LIKE '%Id' THEN
      known := lore_audit_id(known, v);
    ELSIF k LIKE '%Ids' AND json_typeof(v) = 'array' THEN
      FOR item IN SELECT a FROM json_array_elements(v) a LOOP
        known := lore_audit_id(known, item);
      END LOOP;
    ELSE
      known := lore_audit_targets(known, v, depth - 1);
    END IF;
  END LOOP;
  RETURN known;
END $$;

-- `known` with `value` added when it is a string shaped like an id (describe.ts addId), not a Lore key, not there yet.
CREATE OR REPLACE FUNCTION lore_audit_id(known text[], value json) RETURNS text[] LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  id text;
BEGIN
  IF cardinality(known) >= 50 OR json_typeof(value) IS DISTINCT FROM 'string' THEN RETURN known; END IF;
  id := value #>> '{}';
  IF id ~ '^[A-Za-z0-9_-]{1,100}$' AND NOT starts_with(id, 'sk_lore_') AND NOT id = ANY(known) THEN RETURN known || id; END IF;
  RETURN known;
END $$;
