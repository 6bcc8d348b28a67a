// What the core bench lines share (conflictCore.ts, brief.ts): a passage's names picked from the seeded project with
// a fixed seed, and a timing loop over warm runs.
import type { PrismaClient } from '../../src/generated/prisma/client.ts';
import { prng } from '../support/prng.ts';

/** Picks `n` distinct names of the project's approved entities of a type, the same ones on every run for a seed. */
export async function namePicker(prisma: PrismaClient, projectId: string, seed: number): Promise<(type: string, n: number) => string[]> {
  const entities = await prisma.entity.findMany({ where: { projectId, status: 'approved' }, select: { name: true, type: true }, orderBy: { id: 'asc' } });
  const random = prng(seed);
  return (type, n) => {
    const pool = entities.filter((e) => e.type === type).map((e) => e.name);
    const chosen = new Set<string>();
    while (chosen.size < Math.min(n, pool.length)) chosen.add(pool[Math.floor(random() * pool.length)]);
    return [...chosen];
  };
}

/** Median and 90th percentile of `run` over `runs` runs after `warmups` (which load what a first run loads and let the JIT settle), and its last answer. */
export async function timeRuns<T>(run: () => T | Promise<T>, runs: number, warmups: number): Promise<{ medianMs: number; p90Ms: number; runs: number; last: T }> {
  for (let i = 0; i < warmups; i++) await run();
  const times: number[] = [];
  let last!: T;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    last = await run();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(runs / 2)], p90Ms: times[Math.floor(runs * 0.9)], runs, last };
}
