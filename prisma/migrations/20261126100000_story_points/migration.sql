-- Story time inside a chapter: a timed state value may begin at a line of its starting chapter ("Ilse dies in chapter
-- 30, at the shot"), given by number or by a short phrase of the chapter's text (the anchor), which is looked up in
-- the text as it stands whenever the point is needed (src/core/canon/storyPoints.ts).
ALTER TABLE "StateValue" ADD COLUMN "fromLine" INTEGER, ADD COLUMN "fromAnchor" TEXT;

-- A chapter checked in place keeps its last result under the chapter's content hash and the project's canon version
-- (conflicts/chapterCheck.ts). No trigger raises the canon version on this table: keeping a result changes no canon.
CREATE TABLE "ChapterCheck" (
    "chapterId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "result" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ChapterCheck_pkey" PRIMARY KEY ("chapterId")
);
ALTER TABLE "ChapterCheck" ADD CONSTRAINT "ChapterCheck_chapterId_fkey" FOREIGN KEY ("chapterId") REFERENCES "Chapter"("id") ON DELETE CASCADE ON UPDATE CASCADE;
