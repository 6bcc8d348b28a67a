-- lore extract reads each version of a chapter's text once, whatever it yielded.
ALTER TABLE "Chapter" ADD COLUMN "extractedHash" TEXT;
