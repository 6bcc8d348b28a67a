-- A new entity sent whole in one round trip with its locks (issue 28, branch mix28j): what its writes were built on,
-- read before the locks (the names version, the chapters' digest, the key and names free), is checked under them by
-- this; when it no longer holds it raises (SQLSTATE LC001), the server skips the rest of the round trip (the writes
-- and the COMMIT) and the gateway makes the entity again with its checks under the locks first.
CREATE OR REPLACE FUNCTION lore_expect(ok boolean) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF ok IS NOT TRUE THEN
    RAISE EXCEPTION 'read before the locks, changed since' USING ERRCODE = 'LC001';
  END IF;
  RETURN true;
END
$$;
