-- The promise ledger (issue 27): a promise entity's setup and payoff chapters, the entities it involves, its status.

-- CreateEnum
CREATE TYPE "PromiseStatus" AS ENUM ('open', 'paid', 'dropped');

-- CreateTable
CREATE TABLE "PromiseLedger" (
    "entityId" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "setUpChapterId" TEXT,
    "paidOffChapterId" TEXT,
    "status" "PromiseStatus" NOT NULL DEFAULT 'open',
    "involves" TEXT[],

    CONSTRAINT "PromiseLedger_pkey" PRIMARY KEY ("entityId")
);

-- CreateIndex
CREATE INDEX "PromiseLedger_projectId_idx" ON "PromiseLedger"("projectId");

-- CreateIndex
CREATE INDEX "PromiseLedger_setUpChapterId_idx" ON "PromiseLedger"("setUpChapterId");

-- CreateIndex
CREATE INDEX "PromiseLedger_paidOffChapterId_idx" ON "PromiseLedger"("paidOffChapterId");

-- AddForeignKey
ALTER TABLE "PromiseLedger" ADD CONSTRAINT "PromiseLedger_entityId_fkey" FOREIGN KEY ("entityId") REFERENCES "Entity"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PromiseLedger" ADD CONSTRAINT "PromiseLedger_setUpChapterId_fkey" FOREIGN KEY ("setUpChapterId") REFERENCES "Chapter"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PromiseLedger" ADD CONSTRAINT "PromiseLedger_paidOffChapterId_fkey" FOREIGN KEY ("paidOffChapterId") REFERENCES "Chapter"("id") ON DELETE SET NULL ON UPDATE CASCADE;
