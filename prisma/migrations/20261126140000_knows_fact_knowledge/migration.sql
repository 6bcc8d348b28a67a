-- Who knows what, when (issue 27): a fact may be secret (nobody knows it until someone learns it), and known by
-- entities from a point in story time (a chapter, and a line of it).

-- AlterTable
ALTER TABLE "Fact" ADD COLUMN "secret" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "FactKnower" (
    "factId" TEXT NOT NULL,
    "entityId" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "fromChapterId" TEXT,
    "fromLine" INTEGER,

    CONSTRAINT "FactKnower_pkey" PRIMARY KEY ("factId","entityId")
);

-- CreateIndex
CREATE INDEX "FactKnower_projectId_idx" ON "FactKnower"("projectId");

-- CreateIndex
CREATE INDEX "FactKnower_entityId_idx" ON "FactKnower"("entityId");

-- CreateIndex
CREATE INDEX "FactKnower_fromChapterId_idx" ON "FactKnower"("fromChapterId");

-- CreateIndex
CREATE INDEX "Fact_projectId_secret_idx" ON "Fact"("projectId") WHERE "secret";

-- AddForeignKey
ALTER TABLE "FactKnower" ADD CONSTRAINT "FactKnower_factId_fkey" FOREIGN KEY ("factId") REFERENCES "Fact"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FactKnower" ADD CONSTRAINT "FactKnower_entityId_fkey" FOREIGN KEY ("entityId") REFERENCES "Entity"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FactKnower" ADD CONSTRAINT "FactKnower_fromChapterId_fkey" FOREIGN KEY ("fromChapterId") REFERENCES "Chapter"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Knowledge is part of what recall, the brief and the checks answer: a change raises the project's canonVersion.
CREATE TRIGGER "FactKnower_touch_insert" AFTER INSERT ON "FactKnower" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "FactKnower_touch_update" AFTER UPDATE ON "FactKnower" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "FactKnower_touch_delete" AFTER DELETE ON "FactKnower" REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
