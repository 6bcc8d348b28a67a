-- Entity writes (issue 28, branch entitywrites): a project's names (its entities' names and aliases) have a version,
-- raised by any statement that adds, removes or renames entities, so a name writer can hash the names before it takes
-- the project's writer lock and tell under the lock that they are still the names it hashed.
ALTER TABLE "Project" ADD COLUMN "namesVersion" BIGINT NOT NULL DEFAULT 0;

CREATE FUNCTION lore_names_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    UPDATE "Project" SET "namesVersion" = "namesVersion" + 1 WHERE id IN (
      SELECT n."projectId" FROM changed n JOIN old_entities o ON o.id = n.id
      WHERE n.name IS DISTINCT FROM o.name OR n.aliases IS DISTINCT FROM o.aliases OR n."projectId" IS DISTINCT FROM o."projectId"
      UNION
      SELECT o."projectId" FROM changed n JOIN old_entities o ON o.id = n.id WHERE n."projectId" IS DISTINCT FROM o."projectId");
  ELSE
    UPDATE "Project" SET "namesVersion" = "namesVersion" + 1 WHERE id IN (SELECT "projectId" FROM changed);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "Entity_names_insert" AFTER INSERT ON "Entity" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_names_changed();
CREATE TRIGGER "Entity_names_update" AFTER UPDATE ON "Entity" REFERENCING OLD TABLE AS old_entities NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION lore_names_changed();
CREATE TRIGGER "Entity_names_delete" AFTER DELETE ON "Entity" REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_names_changed();
