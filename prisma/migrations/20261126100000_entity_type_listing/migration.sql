-- The dashboard's codex lists a project's entities of one type in name order, a page at a time.
CREATE INDEX "Entity_projectId_type_name_id_idx" ON "Entity" ("projectId", type, name, id);
