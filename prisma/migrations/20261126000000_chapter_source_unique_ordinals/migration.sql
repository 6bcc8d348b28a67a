-- Where each chapter came from, so a sync removes only the chapters its own manuscript brought. Chapters written
-- before this column have no known source: "unknown", which a sync never removes until its manuscript takes them on.
ALTER TABLE "Chapter" ADD COLUMN "source" TEXT NOT NULL DEFAULT 'unknown';
ALTER TABLE "Chapter" ALTER COLUMN "source" SET DEFAULT 'api';

-- One chapter per ordinal in a project. Projects that hold duplicates get the smallest increasing ordinals that keep
-- every chapter at or after its old place, in the order (ordinal, createdAt, id): a chapter of the row number n gets
-- n + the largest (ordinal - row number) so far. Chapters before the first duplicate keep their ordinals.
CREATE TEMPORARY TABLE "_renumbered" AS
SELECT id, ordinal AS "newOrdinal" FROM (
  SELECT c.id, c.ordinal AS old,
         (n + max(c.ordinal - n) OVER (PARTITION BY c."projectId" ORDER BY c.ordinal, c."createdAt", c.id ROWS UNBOUNDED PRECEDING))::int AS ordinal
  FROM (SELECT *, row_number() OVER (PARTITION BY "projectId" ORDER BY ordinal, "createdAt", id) AS n FROM "Chapter"
        WHERE "projectId" IN (SELECT "projectId" FROM "Chapter" GROUP BY "projectId" HAVING count(*) > count(DISTINCT ordinal))) c
) x WHERE ordinal <> old;

UPDATE "Chapter" c SET ordinal = r."newOrdinal" FROM "_renumbered" r WHERE c.id = r.id;
-- A mention's sort key starts with its chapter's ordinal, zero-padded to 8 digits (reading order).
UPDATE "Mention" m SET "sortKey" = lpad(r."newOrdinal"::text, 8, '0') || substr(m."sortKey", 9)
FROM "_renumbered" r WHERE m."chapterId" = r.id;

DROP INDEX "Chapter_projectId_ordinal_id_idx";
CREATE UNIQUE INDEX "Chapter_projectId_ordinal_key" ON "Chapter"("projectId", "ordinal");
DROP TABLE "_renumbered";
