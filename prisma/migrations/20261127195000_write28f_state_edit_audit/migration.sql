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
-- The shape is tested without a bounded repetition ({1,100}), which PostgreSQL's regular expressions run slowly.
CREATE OR REPLACE FUNCTION lore_audit_id(known text[], value json) RETURNS text[] LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  id text;
BEGIN
  IF cardinality(known) >= 50 OR json_typeof(value) IS DISTINCT FROM 'string' THEN RETURN known; END IF;
  id := value #>> '{}';
  IF length(id) BETWEEN 1 AND 100 AND id !~ '[^A-Za-z0-9_-]' AND NOT starts_with(id, 'sk_lore_') AND NOT id = ANY(known) THEN RETURN known || id; END IF;
  RETURN known;
END $$;

-- `known` with `ids` added in order as lore_audit_id adds each, in one statement: for the lists of ids an answer holds
-- (an entity's facts and mentions), where lore_audit_targets would call itself for every item.
CREATE OR REPLACE FUNCTION lore_audit_ids(known text[], ids text[]) RETURNS text[] LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  -- PL/pgSQL keeps the statement's plan for the session, where an SQL function's is made again on every call.
  RETURN known || ARRAY(
    SELECT u.id FROM unnest(ids) WITH ORDINALITY u(id, n)
    WHERE length(u.id) BETWEEN 1 AND 100 AND u.id !~ '[^A-Za-z0-9_-]' AND NOT starts_with(u.id, 'sk_lore_') AND NOT u.id = ANY(known)
    GROUP BY u.id ORDER BY min(u.n) LIMIT greatest(50 - cardinality(known), 0));
END $$;
