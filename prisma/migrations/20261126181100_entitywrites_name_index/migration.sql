-- Entity writes (issue 28, branch entitywrites): a name write checks its names are free in the project through an index
-- of every entity's names and aliases without case, instead of reading all of the project's entities.
CREATE FUNCTION lore_names_lower(name text, aliases text[]) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN ARRAY(SELECT lower(n) FROM unnest(array_prepend(name, aliases)) AS n);

CREATE INDEX "Entity_names_lower_idx" ON "Entity" USING gin (lore_names_lower(name, aliases));
