// The baseline for the bench: recall and search as hand-written express handlers answering the same JSON as /api/v1.
// Under /auth they call the gateway's own core directly (KeyService.authenticate, Metering.admit, the EntityReader and
// SearchService statements) and keep bodies per canon version as /api/v1 does, so REST/bare isolates the cost of the
// GraphQL indirection; under /raw they skip authentication and metering and read through Prisma (one findMany with a
// nested select), for comparison.
// Run: DATABASE_URL=… PORT=0 node --import tsx test/bench/bareServer.ts
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import { loadConfig } from '../../src/config.ts';
import { EntityReader, factsPerEntity, type EntityRecord, type StoryFact, type VersionRead } from '../../src/core/canon/entities.ts';
import { LoreError, problemCatalog } from '../../src/core/errors.ts';
import { KeyService, type Principal } from '../../src/core/access/keys.ts';
import { Metering } from '../../src/core/metering/metering.ts';
import { ProjectService, projectNotFound } from '../../src/core/canon/projects.ts';
import { CanonChanges } from '../../src/core/canon/canonChanges.ts';
import { EntityCards } from '../../src/core/canon/entityCards.ts';
import { ReadCache } from '../../src/core/canon/readCache.ts';
import { SearchService } from '../../src/core/canon/search.ts';
import { defaultPageLimit } from '../../src/core/validation.ts';
import { openDatabase } from '../../src/db/database.ts';
import { createHttpServer } from '../../app/httpServer.ts';
import { AnswerCache, serializeSharing } from '../../rest/answerCache.ts';

const config = loadConfig();
const db = await openDatabase(config);
const { prisma } = db;
const keys = new KeyService(prisma, db.sql);
const metering = new Metering(db.meteringSql);
const canonChanges = new CanonChanges(db.sql);
const entities = new EntityReader(db.sql, new ReadCache(config.readCacheMb, canonChanges), new EntityCards(canonChanges), canonChanges);
const searchService = new SearchService(prisma, entities, new ProjectService(prisma, db.sql));

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
  // The latest live facts: those with no end in story time.
  facts: {
    where: { retiredAt: null, untilChapterId: null },
    orderBy: { id: 'asc' },
    select: { id: true, text: true, status: true, fromChapter: { select: { externalId: true } } },
  },
} as const;

const recallWhere = (projectId: string, q: string | undefined) =>
  q ? { projectId, nameText: { contains: q, mode: 'insensitive' as const } } : { projectId };

type EntityRow = Awaited<ReturnType<typeof selectEntities>>[number];

function selectEntities(args: { where: object; orderBy?: object; take?: number }) {
  return prisma.entity.findMany({ ...args, select: entitySelect });
}

type ContractSource = Pick<EntityRecord, 'id' | 'type' | 'name' | 'aliases' | 'state' | 'confidence' | 'status' | 'pendingConflictIds' | 'approvedFacts' | 'suggestedFacts'> & {
  lastMentions: { chapter: string; line: number; snippet: string; timestamp: string | Date }[];
};

// As /api/v1 sends them: an open end is left out.
const contractFact = (f: StoryFact) => ({ id: f.id, text: f.text, ...(f.from === null ? {} : { from: f.from }), ...(f.until === null ? {} : { until: f.until }) });

/** An entity as the contract's recall answer shows it. */
function toContract(e: ContractSource) {
  return {
    id: e.id,
    type: e.type,
    canonicalName: e.name,
    aliases: e.aliases,
    lastMentions: e.lastMentions.map((m) => ({ chapter: m.chapter, line: m.line, snippet: m.snippet, timestamp: m.timestamp })),
    currentState: e.state,
    pendingConflictIds: e.pendingConflictIds,
    ...(e.confidence === null ? {} : { confidence: e.confidence }),
    approvalStatus: e.status,
    facts: e.approvedFacts.map(contractFact),
    suggestedFacts: e.suggestedFacts.map(contractFact),
  };
}

const storyFacts = (e: EntityRow, status: 'approved' | 'suggested'): StoryFact[] =>
  e.facts
    .filter((f) => f.status === status)
    .slice(0, factsPerEntity)
    .map((f) => ({ id: f.id, text: f.text, from: f.fromChapter?.externalId ?? null, until: null }));

const fromPrisma = (e: EntityRow) =>
  toContract({
    ...e,
    lastMentions: e.mentions.map((m) => ({ chapter: m.chapter.externalId, line: m.line, snippet: m.snippet, timestamp: m.createdAt })),
    pendingConflictIds: e.conflictLinks.map((l) => l.conflictId),
    approvedFacts: storyFacts(e, 'approved'),
    suggestedFacts: storyFacts(e, 'suggested'),
  });

const searchPage = <T>(data: T[], hasMore: boolean, next: string | null) =>
  ({ data, has_more: hasMore, ...(next ? { next_starting_after: next } : {}), entities: data });

// Bodies kept per canon version, as /api/v1 keeps them (rest/answerCache.ts).
const answers = new AnswerCache(config.readCacheMb);

const core = {
  async recall(accountId: string, projectId: string, q: string, version: VersionRead | undefined) {
    const found = await entities.recall(accountId, projectId, q || undefined, defaultPageLimit, version);
    if (!found) throw projectNotFound(projectId);
    const key = found.version && `recall\0${found.version}\0${q}`;
    return answers.body(key, () => serializeSharing({ entities: found.page.map(toContract) }));
  },
  async search(accountId: string, projectId: string, q: string, versionRead: VersionRead | undefined) {
    const { page, version } = await searchService.search(accountId, projectId, q, defaultPageLimit, undefined, versionRead);
    const key = version && `search\0${version}\0${q}`;
    return answers.body(key, () => serializeSharing(searchPage(page.data.map(toContract), page.hasMore, page.nextStartingAfter)));
  },
};

const viaPrisma = {
  async recall(projectId: string, q: string) {
    const rows = await selectEntities({ where: recallWhere(projectId, q || undefined), orderBy: [{ name: 'asc' }, { id: 'asc' }], take: defaultPageLimit });
    return { entities: rows.map(fromPrisma) };
  },
  async search(projectId: string, q: string) {
    const threshold = /\s/.test(q) ? 0.5 : 0.25;
    const ranked = await prisma.$queryRaw<{ id: string }[]>`SELECT id FROM lore_search(${projectId}, ${q}, ${threshold}::float8, NULL, NULL, ${defaultPageLimit + 1}::int)`;
    const ids = ranked.slice(0, defaultPageLimit).map((r) => r.id);
    const rows = await selectEntities({ where: { id: { in: ids } } });
    const byId = new Map(rows.map((row) => [row.id, row]));
    const data = ids.flatMap((id) => byId.get(id) ?? []).map(fromPrisma);
    return searchPage(data, ranked.length > defaultPageLimit, ranked.length > defaultPageLimit ? ids[ids.length - 1] : null);
  },
};

async function metered<T>(req: Request, cost: number, work: (principal: Principal, version: VersionRead | undefined) => Promise<T>): Promise<T> {
  const header = req.get('Authorization');
  const principal = await keys.authenticate(header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined);
  // The project's canon version read while the request is admitted, as the gateway's recall and search fields do.
  const version = entities.readVersion(String(req.params.id));
  const refund = await metering.admit(principal, cost);
  try {
    return await work(principal, version);
  } catch (error) {
    await refund();
    throw error;
  }
}

const app = express();
app.disable('x-powered-by');
app.disable('etag'); // as the gateway
app.use((_req, res, next) => {
  res.setHeader('X-Request-Id', `req_${randomUUID().replaceAll('-', '')}`);
  res.setHeader('Lore-Api-Version', '1.0');
  next();
});

const handle = (work: (req: Request) => Promise<unknown>) => (req: Request, res: Response) => {
  work(req).then(
    (body) => (Buffer.isBuffer(body) ? res.type('json').send(body) : res.json(body)),
    (error: unknown) => {
      if (error instanceof LoreError) res.status(problemCatalog[error.code].status).json({ code: error.code, detail: error.message });
      else res.status(500).json({ code: 'internal_error', detail: String(error) });
    },
  );
};
// Trimmed like the contract's q rules (src/core/validation.ts) trim it.
const query = (req: Request) => (typeof req.query.q === 'string' ? req.query.q.trim() : '');

app.get('/auth/projects/:id/recall', handle((req) => metered(req, 1, (principal, version) => core.recall(principal.accountId, String(req.params.id), query(req), version))));
app.get('/auth/projects/:id/search', handle((req) => metered(req, 2, (principal, version) => core.search(principal.accountId, String(req.params.id), query(req), version))));
app.get('/raw/projects/:id/recall', handle((req) => viaPrisma.recall(String(req.params.id), query(req))));
app.get('/raw/projects/:id/search', handle((req) => viaPrisma.search(String(req.params.id), query(req))));

const server = createHttpServer(app).listen(config.port, config.host, () => {
  const { port } = server.address() as AddressInfo;
  process.stderr.write(`Bare handler listening on http://127.0.0.1:${port}\n`);
});
const stop = () => {
  server.close(() => db.close().finally(() => process.exit(0)));
  server.closeAllConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
