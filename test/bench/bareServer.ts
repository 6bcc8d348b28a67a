// The baseline for the bench: recall and search as a hand-written express handler calling Prisma directly, one
// findMany with a nested select, answering the same JSON as /api/v1. Under /auth it first does what the gateway does
// outside GraphQL's own machinery (the same KeyService.authenticate, Metering.hit and reserve, the ownership check),
// so REST/bare isolates the cost of the GraphQL indirection; under /raw it skips those (informational).
// Run: DATABASE_URL=… PORT=0 node --import tsx test/bench/bareServer.ts
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import { loadConfig } from '../../src/config.ts';
import { recallWhere } from '../../src/core/canon.ts';
import { LoreError, problemCatalog } from '../../src/core/errors.ts';
import { KeyService, type Principal } from '../../src/core/keys.ts';
import { Metering } from '../../src/core/metering.ts';
import { ProjectService } from '../../src/core/projects.ts';
import { SearchService } from '../../src/core/search.ts';
import { defaultPageLimit } from '../../src/core/validation.ts';
import { openDatabase } from '../../src/db/database.ts';

const config = loadConfig();
const db = await openDatabase(config);
const { prisma } = db;
const keys = new KeyService(prisma);
const metering = new Metering(prisma);
const projects = new ProjectService(prisma);
const searchService = new SearchService(prisma);

// The RecallEntityFields fragment of graph/operations, as one Prisma select.
const entitySelect = {
  id: true,
  type: true,
  name: true,
  aliases: true,
  state: true,
  confidence: true,
  status: true,
  mentions: {
    orderBy: { sortKey: 'desc' },
    take: 5,
    select: { line: true, snippet: true, createdAt: true, chapter: { select: { externalId: true } } },
  },
  conflictLinks: { where: { conflict: { status: 'pending' } }, select: { conflictId: true }, orderBy: { conflictId: 'asc' } },
} as const;

type EntityRow = Awaited<ReturnType<typeof selectEntities>>[number];

function selectEntities(args: { where: object; orderBy?: object; take?: number }) {
  return prisma.entity.findMany({ ...args, select: entitySelect });
}

function toRecallEntity(e: EntityRow) {
  return {
    id: e.id,
    type: e.type,
    canonicalName: e.name,
    aliases: e.aliases,
    lastMentions: e.mentions.map((m) => ({ chapter: m.chapter.externalId, line: m.line, snippet: m.snippet, timestamp: m.createdAt })),
    currentState: e.state,
    pendingConflictIds: e.conflictLinks.map((l) => l.conflictId),
    ...(e.confidence === null ? {} : { confidence: e.confidence }),
    approvalStatus: e.status,
  };
}

async function recall(projectId: string, q: string | undefined) {
  const rows = await selectEntities({ where: recallWhere(projectId, q || undefined), orderBy: [{ name: 'asc' }, { id: 'asc' }], take: defaultPageLimit });
  return { entities: rows.map(toRecallEntity) };
}

async function search(projectId: string, q: string) {
  const page = await searchService.search(projectId, q, defaultPageLimit);
  const rows = await selectEntities({ where: { id: { in: page.ids } } });
  const byId = new Map(rows.map((row) => [row.id, row]));
  const data = page.ids.flatMap((id) => byId.get(id) ?? []).map(toRecallEntity);
  return { data, has_more: page.hasMore, ...(page.nextStartingAfter ? { next_starting_after: page.nextStartingAfter } : {}), entities: data };
}

async function metered<T>(req: Request, cost: number, work: (principal: Principal) => Promise<T>): Promise<T> {
  const header = req.get('Authorization');
  const principal = await keys.authenticate(header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined);
  await metering.hit(principal);
  const refund = await metering.reserve(principal, cost);
  try {
    return await work(principal);
  } catch (error) {
    await refund();
    throw error;
  }
}

const app = express();
app.disable('x-powered-by');
app.use((_req, res, next) => {
  res.setHeader('X-Request-Id', `req_${randomUUID().replaceAll('-', '')}`);
  res.setHeader('Lore-Api-Version', '1.0');
  next();
});

const handle = (work: (req: Request) => Promise<unknown>) => (req: Request, res: Response) => {
  work(req).then(
    (body) => res.json(body),
    (error: unknown) => {
      if (error instanceof LoreError) res.status(problemCatalog[error.code].status).json({ code: error.code, detail: error.message });
      else res.status(500).json({ code: 'internal_error', detail: String(error) });
    },
  );
};
// Trimmed like the contract's q rules (src/core/validation.ts) trim it.
const query = (req: Request) => (typeof req.query.q === 'string' ? req.query.q.trim() : '');

app.get('/auth/projects/:id/recall', handle((req) =>
  metered(req, 1, async (principal) => {
    await projects.requireOwned(principal.accountId, String(req.params.id));
    return recall(String(req.params.id), query(req));
  })));
app.get('/auth/projects/:id/search', handle((req) =>
  metered(req, 2, async (principal) => {
    await projects.requireOwned(principal.accountId, String(req.params.id));
    return search(String(req.params.id), query(req));
  })));
app.get('/raw/projects/:id/recall', handle((req) => recall(String(req.params.id), query(req))));
app.get('/raw/projects/:id/search', handle((req) => search(String(req.params.id), query(req))));

const server = app.listen(config.port, config.host, () => {
  const { port } = server.address() as AddressInfo;
  process.stderr.write(`Bare handler listening on http://127.0.0.1:${port}\n`);
});
const stop = () => {
  server.close(() => db.close().finally(() => process.exit(0)));
  server.closeAllConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
