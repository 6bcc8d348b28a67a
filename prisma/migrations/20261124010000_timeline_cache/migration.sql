-- The model's summary of a chapter is cached even when it has no beats.
ALTER TABLE "Chapter" ADD COLUMN "summarisedHash" TEXT;
