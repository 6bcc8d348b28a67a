-- The entity search indexes (GIN) keep new entries in a pending list and merge it into the index once it reaches
-- gin_pending_list_limit (4 MB by default). On the embedded store that merge ran inside one slice of a large import and
-- held every tenant for 190 ms (a slice is meant to take 20 ms); at 256 kB each merge is sixteen times shorter, and
-- the import about a tenth slower.
ALTER INDEX "Entity_searchVector_idx" SET (gin_pending_list_limit = 256);
ALTER INDEX "Entity_nameText_trgm_idx" SET (gin_pending_list_limit = 256);
