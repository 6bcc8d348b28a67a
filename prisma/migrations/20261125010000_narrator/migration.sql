-- The narrator of a first-person story is a character whose state says `narrator` (at the passage's chapter: it may
-- be a timed value). A check of a passage in the first person looks it up among a project's entities; these partial
-- indexes hold only the few rows that say it.
CREATE INDEX "Entity_narrator_idx" ON "Entity" ("projectId") WHERE (state ? 'narrator') OR ("baseState" ? 'narrator');
CREATE INDEX "StateValue_narrator_idx" ON "StateValue" ("projectId") WHERE key = 'narrator';
