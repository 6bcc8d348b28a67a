-- A new entity marks every chapter of its project up to date under the names it leaves ("mentionHash", one UPDATE of
-- all the project's chapters, src/core/ingest/mentions.ts). The chapters' rows are small (their text is TOASTed) and
-- were packed full, so each mark wrote every chapter's row to another page with a new entry in each of its three
-- indexes: some 240 index entries and 0.5-0.8 ms of PostgreSQL's CPU a new entity on an 80-chapter project. With half
-- of each page left free the marks are HOT updates (no indexed column changes); rows already stored move to such pages
-- as they are next updated.
ALTER TABLE "Chapter" SET (fillfactor = 50);
