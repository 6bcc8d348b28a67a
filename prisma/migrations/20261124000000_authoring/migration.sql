-- Authoring, review, story time, retcons and audit (issue: canon that grows with the book).

-- CreateEnum
CREATE TYPE "CandidateStatus" AS ENUM ('pending', 'approved', 'rejected');
CREATE TYPE "CandidateKind" AS ENUM ('fact', 'entity');
CREATE TYPE "DecisionStatus" AS ENUM ('approved', 'rejected');

-- Entity: the timeless state apart from the derived latest state, and a version for optimistic concurrency.
ALTER TABLE "Entity" ADD COLUMN "baseState" JSONB NOT NULL DEFAULT '{}',
                     ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
UPDATE "Entity" SET "baseState" = "state";

-- Fact: story time, who wrote it, and retirement (history). Live facts stay unique per entity and text.
ALTER TABLE "Fact" ADD COLUMN "fromChapterId" TEXT,
                   ADD COLUMN "untilChapterId" TEXT,
                   ADD COLUMN "createdBy" TEXT,
                   ADD COLUMN "retiredAt" TIMESTAMP(3),
                   ADD COLUMN "retiredBy" TEXT,
                   ADD COLUMN "replacedById" TEXT;
DROP INDEX "Fact_entityId_text_key";
CREATE UNIQUE INDEX "Fact_entityId_text_live_key" ON "Fact"("entityId", "text") WHERE "retiredAt" IS NULL;
CREATE INDEX "Fact_entityId_id_idx" ON "Fact"("entityId", "id");
CREATE INDEX "Fact_fromChapterId_idx" ON "Fact"("fromChapterId");
CREATE INDEX "Fact_untilChapterId_idx" ON "Fact"("untilChapterId");
ALTER TABLE "Fact" ADD CONSTRAINT "Fact_fromChapterId_fkey" FOREIGN KEY ("fromChapterId") REFERENCES "Chapter"("id") ON DELETE NO ACTION ON UPDATE CASCADE;
ALTER TABLE "Fact" ADD CONSTRAINT "Fact_untilChapterId_fkey" FOREIGN KEY ("untilChapterId") REFERENCES "Chapter"("id") ON DELETE NO ACTION ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "StateValue" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "entityId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "fromChapterId" TEXT,
    "untilChapterId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "StateValue_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "StateValue_entityId_key_idx" ON "StateValue"("entityId", "key");
CREATE INDEX "StateValue_fromChapterId_idx" ON "StateValue"("fromChapterId");
CREATE INDEX "StateValue_untilChapterId_idx" ON "StateValue"("untilChapterId");
ALTER TABLE "StateValue" ADD CONSTRAINT "StateValue_entityId_fkey" FOREIGN KEY ("entityId") REFERENCES "Entity"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "StateValue" ADD CONSTRAINT "StateValue_fromChapterId_fkey" FOREIGN KEY ("fromChapterId") REFERENCES "Chapter"("id") ON DELETE NO ACTION ON UPDATE CASCADE;
ALTER TABLE "StateValue" ADD CONSTRAINT "StateValue_untilChapterId_fkey" FOREIGN KEY ("untilChapterId") REFERENCES "Chapter"("id") ON DELETE NO ACTION ON UPDATE CASCADE;

-- Candidate: the review queue. A rejected entity goes, its candidate stays (entityId null).
ALTER TABLE "Candidate" ADD COLUMN "kind" "CandidateKind" NOT NULL DEFAULT 'fact',
                        ADD COLUMN "status" "CandidateStatus" NOT NULL DEFAULT 'pending',
                        ADD COLUMN "proposal" JSONB,
                        ALTER COLUMN "entityId" DROP NOT NULL;
UPDATE "Candidate" c SET "status" = 'approved' WHERE EXISTS (SELECT 1 FROM "Decision" d WHERE d."candidateId" = c.id);
ALTER TABLE "Candidate" DROP CONSTRAINT "Candidate_entityId_fkey";
ALTER TABLE "Candidate" ADD CONSTRAINT "Candidate_entityId_fkey" FOREIGN KEY ("entityId") REFERENCES "Entity"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "Candidate" ADD CONSTRAINT "Candidate_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX "Candidate_projectId_status_id_idx" ON "Candidate"("projectId", "status", "id");

-- Decision: approved or rejected, with a reason.
ALTER TABLE "Decision" ADD COLUMN "reason" TEXT,
                       ALTER COLUMN "status" TYPE "DecisionStatus" USING ("status"::text::"DecisionStatus");

-- CreateTable
CREATE TABLE "AuditEntry" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "keyId" TEXT,
    "requestId" TEXT NOT NULL,
    "operation" TEXT NOT NULL,
    "targets" TEXT[],
    "summary" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuditEntry_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "AuditEntry_accountId_id_idx" ON "AuditEntry"("accountId", "id");

-- Every write bumps the canon version: relationships, beats, state values and proposals too.
CREATE TRIGGER "Relationship_touch_insert" AFTER INSERT ON "Relationship" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Relationship_touch_update" AFTER UPDATE ON "Relationship" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Relationship_touch_delete" AFTER DELETE ON "Relationship" REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Beat_touch_insert" AFTER INSERT ON "Beat" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Beat_touch_update" AFTER UPDATE ON "Beat" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Beat_touch_delete" AFTER DELETE ON "Beat" REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "StateValue_touch_insert" AFTER INSERT ON "StateValue" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "StateValue_touch_update" AFTER UPDATE ON "StateValue" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "StateValue_touch_delete" AFTER DELETE ON "StateValue" REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Candidate_touch_insert" AFTER INSERT ON "Candidate" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Candidate_touch_update" AFTER UPDATE ON "Candidate" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
CREATE TRIGGER "Candidate_touch_delete" AFTER DELETE ON "Candidate" REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_touch_projects();
