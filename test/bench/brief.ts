// The brief's bench line (issue 27): a brief for a scene of about 1,000 words naming 20 entities (15 characters, 5
// places) of the seeded 5,000-entity project, at the default budget, through the core with no answer cached between
// runs (the tokenizer's tables are loaded by the warm-up; the project's names are kept and indexed once per names
// version, src/core/names). Target: p50 < 30 ms. Beside it, the first brief after a write that changes no name (one
// entity updated, which raises the canon version: the names stay kept).
import { BriefService } from '../../src/core/brief/brief.ts';
import type { PrismaClient } from '../../src/generated/prisma/client.ts';
import type { SqlClient } from '../../src/db/sql.ts';
import { corePassage } from './conflictCore.ts';
import { namePicker, timeRuns } from './timing.ts';

export const briefTarget = { p50Ms: 30 };

export async function benchBrief(prisma: PrismaClient, sql: SqlClient, projectId: string, runs = 40): Promise<string> {
  const pick = await namePicker(prisma, projectId, 272727);
  const { text, words } = corePassage(pick('character', 15), pick('location', 5));
  const service = new BriefService(sql);
  const request = { projectId, text, chapter: 'ch-40', budget: 2000, format: 'markdown' as const };
  const { medianMs: p50, p90Ms: p90, last } = await timeRuns(() => service.brief(request), runs, 5);
  const [edited] = await prisma.entity.findMany({ where: { projectId }, select: { id: true }, orderBy: { id: 'asc' }, take: 1 });
  const afterWrite: number[] = [];
  for (let i = 0; i < Math.ceil(runs / 4); i++) {
    await prisma.$executeRaw`UPDATE "Entity" SET "updatedAt" = now() WHERE id = ${edited.id}`;
    const started = performance.now();
    await service.brief(request);
    afterWrite.push(performance.now() - started);
  }
  afterWrite.sort((a, b) => a - b);
  const total = await prisma.entity.count({ where: { projectId } });
  return (
    `brief: ${words} words of a ${total.toLocaleString('en')}-entity project, ${last.tokens} of ${last.budget} tokens (omitted ${JSON.stringify(last.omitted)}): ` +
    `p50 ${p50.toFixed(1)} ms, p90 ${p90.toFixed(1)} ms over ${runs} runs (target < ${briefTarget.p50Ms} ms): ${p50 < briefTarget.p50Ms ? 'met' : 'NOT met'}; ` +
    `the first after a write p50 ${afterWrite[Math.floor(afterWrite.length / 2)].toFixed(1)} ms`
  );
}
