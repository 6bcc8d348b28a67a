-- A change of an entity's state, confidence or status as a HOT update (issue 28, branch pgcpu28). PostgreSQL writes an
-- updated row without new index entries (HOT) only when no indexed column changes and the row's page has room. The
-- narrator index's predicate read "state" and "baseState", so every state edit wrote a new entry into each of the
-- entity's eight indexes (three of them GIN: names, trigrams, search vector), some 1.8 kB of WAL an edit, and its GIN
-- pending lists filled and were merged on the writers' time. Now the predicate reads a stored column of its own,
-- "narrator", which changes only when an entity starts or stops narrating; and a tenth of each page of entities is
-- left free for the rows' next versions (a rewrite of the table, which the new column makes anyway, applies it).
ALTER TABLE "Entity" SET (fillfactor = 90);
ALTER TABLE "Entity" ADD COLUMN "narrator" boolean GENERATED ALWAYS AS ((state ? 'narrator') OR ("baseState" ? 'narrator')) STORED;
DROP INDEX "Entity_narrator_idx";
CREATE INDEX "Entity_narrator_idx" ON "Entity" ("projectId") WHERE "narrator";
