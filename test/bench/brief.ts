// The brief's bench line (issue 27): a brief for a scene of about 1,000 words naming 20 entities (15 characters, 5
// places) of the seeded 5,000-entity project, at the default budget, through the core with nothing cached between
// runs (the tokenizer's tables are loaded by the warm-up). Target: p50 < 30 ms.
import { BriefService } from '../../src/core/brief/brief.ts';
import type { PrismaClient } from '../../src/generated/prisma/client.ts';
import type { SqlClient } from '../../src/db/sql.ts';
import { prng } from '../support/prng.ts';
import { corePassage } from './conflictCore.ts';

export const briefTarget = { p50Ms: 30 };

export async function benchBrief(prisma: PrismaClient, sql: SqlClient, projectId: string, runs = 40): Promise<string> {
  const entities = await prisma.entity.findMany({ where: { projectId, status: 'approved' }, select: { name: true, type: true }, orderBy: { id: 'asc' } });
  const random = prng(272727);
  const pick = (type: string, n: number) => {
    const pool = entities.filter((e) => e.type === type).map((e) => e.name);
    const chosen = new Set<string>();
    while (chosen.size < Math.min(n, pool.length)) chosen.add(pool[Math.floor(random() * pool.length)]);
    return [...chosen];
  };
  const { text, words } = corePassage(pick('character', 15), pick('location', 5));
  const service = new BriefService(sql);
  const request = { projectId, text, chapter: 'ch-40', budget: 2000, format: 'markdown' as const };
  for (let i = 0; i < 5; i++) await service.brief(request);
  const times: number[] = [];
  let last;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    last = await service.brief(request);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const p50 = times[Math.floor(runs / 2)];
  const total = await prisma.entity.count({ where: { projectId } });
  return (
    `brief: ${words} words of a ${total.toLocaleString('en')}-entity project, ${last!.tokens} of ${last!.budget} tokens (omitted ${JSON.stringify(last!.omitted)}): ` +
    `p50 ${p50.toFixed(1)} ms, p90 ${times[Math.floor(runs * 0.9)].toFixed(1)} ms over ${runs} runs (target < ${briefTarget.p50Ms} ms): ${p50 < briefTarget.p50Ms ? 'met' : 'NOT met'}`
  );
}
