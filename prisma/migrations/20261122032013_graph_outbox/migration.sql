-- CreateTable
CREATE TABLE "GraphOutbox" (
    "id" BIGSERIAL NOT NULL,
    "projectId" TEXT NOT NULL,
    "op" TEXT NOT NULL,
    "payload" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,

    CONSTRAINT "GraphOutbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "GraphOutbox_projectId_id_idx" ON "GraphOutbox"("projectId", "id");


-- Projects written before the outbox existed: Neo4j (when configured) copies each of them whole once.
INSERT INTO "GraphOutbox" ("projectId", "op") SELECT "id", 'rebuild' FROM "Project";
