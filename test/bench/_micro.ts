import { loadConfig } from '../../src/config.ts';
import { openRuntime } from '../../src/runtime.ts';
import { Executor } from '../../graph/executor.ts';
import { recallWhere } from '../../src/core/canon.ts';
import { readFileSync } from 'node:fs';
const rt = await openRuntime(loadConfig({ ...process.env, DATABASE_URL: 'postgresql://postgres:postgres@127.0.0.1:5432/lore_bench', LORE_LOG_LEVEL: 'silent' }));
const s = rt.services; const prisma = s.prisma;
const key = JSON.parse(readFileSync('/tmp/key.json', 'utf8')).key;
const principal = await s.keys.authenticate(key);
const projectId = readFileSync('/tmp/prj', 'utf8').trim();
const ex = new Executor(s);
const sel = { id: true, type: true, name: true, aliases: true, state: true, confidence: true, status: true,
  mentions: { orderBy: { sortKey: 'desc' }, take: 5, select: { line: true, snippet: true, createdAt: true, chapter: { select: { externalId: true } } } },
  conflictLinks: { where: { conflict: { status: 'pending' } }, select: { conflictId: true }, orderBy: { conflictId: 'asc' } } } as const;
const q = process.argv[2] ?? 'mar';
const cases: Record<string, () => Promise<unknown>> = {
  graphql: () => ex.run('Recall', { projectId, q, limit: 20 }, { requestId: 'x', credential: key, principal }),
  bareFull: async () => { await s.metering.hit(principal); await s.metering.reserve(principal, 1); await s.projects.requireOwned(principal.accountId, projectId);
    return prisma.entity.findMany({ where: recallWhere(projectId, q), orderBy: [{ name: 'asc' }, { id: 'asc' }], take: 20, select: sel }); },
  authOnly: async () => { await s.keys.authenticate(key); await s.metering.hit(principal); await s.metering.reserve(principal, 1); },
  findMany: () => prisma.entity.findMany({ where: recallWhere(projectId, q), orderBy: [{ name: 'asc' }, { id: 'asc' }], take: 20, select: sel }),
  findManyNoMentions: () => prisma.entity.findMany({ where: recallWhere(projectId, q), orderBy: [{ name: 'asc' }, { id: 'asc' }], take: 20, select: { ...sel, mentions: undefined } }),
  allScalars: () => prisma.entity.findMany({ where: recallWhere(projectId, q), orderBy: [{ name: 'asc' }, { id: 'asc' }], take: 20, include: { mentions: { orderBy: { sortKey: 'desc' }, take: 5, include: { chapter: { select: { externalId: true } } } }, conflictLinks: { where: { conflict: { status: 'pending' } }, select: { conflictId: true }, orderBy: { conflictId: 'asc' } } } }),
  trivial: () => prisma.project.findFirst({ where: { id: projectId }, select: { id: true } }),
};
const only = process.argv[3]; const reps = Number(process.argv[4] ?? 200);
for (const round of [0, 1]) for (const [name, fn] of Object.entries(cases).filter(([n]) => !only || n === only)) {
  for (let i = 0; i < 30; i++) await fn();
  const n = reps; const c0 = process.cpuUsage(); const t0 = performance.now();
  // 10 in flight, like a small pool of connections
  let left = n; await Promise.all(Array.from({ length: 10 }, async () => { while (left-- > 0) await fn(); }));
  const c = process.cpuUsage(c0);
  if (round) console.log(name.padEnd(20), ((c.user + c.system) / 1000 / n).toFixed(2), 'ms CPU/op', ((performance.now() - t0) / n).toFixed(2), 'ms wall/op');
}
await rt.close();
