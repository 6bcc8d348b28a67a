-- Mentions without rescanning the book (issue 28, branch mentions): each chapter's words and the lines they stand on,
-- written with the text, so a new name is looked up. Chapters written before this have an empty wordsHash and are
-- indexed on first use.

-- AlterTable
ALTER TABLE "Chapter" ADD COLUMN "wordsHash" TEXT NOT NULL DEFAULT '';

-- CreateTable
CREATE TABLE "ChapterWordBucket" (
    "chapterId" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "bucket" INTEGER NOT NULL,
    "words" JSONB NOT NULL,

    CONSTRAINT "ChapterWordBucket_pkey" PRIMARY KEY ("chapterId","bucket")
);

-- CreateIndex
CREATE INDEX "ChapterWordBucket_projectId_bucket_idx" ON "ChapterWordBucket"("projectId", "bucket");

-- AddForeignKey
ALTER TABLE "ChapterWordBucket" ADD CONSTRAINT "ChapterWordBucket_chapterId_fkey" FOREIGN KEY ("chapterId") REFERENCES "Chapter"("id") ON DELETE CASCADE ON UPDATE CASCADE;
