// Assembles the gateway: /api/v1 (REST), /graphql, /health and the dashboard at /, on one express app.
import { randomUUID } from 'node:crypto';
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import express from 'express';
import { GraphQLError } from 'graphql';
import { createYoga, maskError, type Plugin } from 'graphql-yoga';
import { createContext, releaseContext, type GraphContext } from '../graph/context.ts';
import { Executor } from '../graph/executor.ts';
import { dashboardRouter } from './dashboard.ts';
import { schema } from '../graph/schema.ts';
import { buildOpenApiDocument } from '../rest/openapi.ts';
import { sendProblem } from '../rest/problem.ts';
import { setRateLimitHeaders } from '../rest/rateLimitHeaders.ts';
import { apiRouter } from '../rest/router.ts';
import type { Config } from '../src/config.ts';
import { problemCatalog, storeRetryAfterSeconds, storeUnavailable, type ErrorCode } from '../src/core/errors.ts';
import type { Services } from '../src/core/services.ts';
import { isStoreUnreachable } from '../src/db/unavailable.ts';
import { graphiqlOptions, mountPages, renderGraphiQLPage, setSecurityHeaders } from './pages/index.ts';

export const apiVersion = '1.0';

/**
 * Yoga reports bad input with its own codes (GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, BAD_REQUEST for a
 * request that is not GraphQL at all, REQUEST_ENTITY_TOO_LARGE) or none; /graphql answers it with the codes every
 * other surface uses.
 */
const yogaCodes = new Map<unknown, ErrorCode>([
  ['GRAPHQL_PARSE_FAILED', 'validation_error'],
  ['GRAPHQL_VALIDATION_FAILED', 'validation_error'],
  ['BAD_REQUEST', 'validation_error'],
  ['REQUEST_ENTITY_TOO_LARGE', 'payload_too_large'],
]);

const commonErrorCodes: Plugin = {
  onResultProcess({ result, setResult }) {
    if (Symbol.asyncIterator in result) return;
    const recode = (error: GraphQLError) => {
      const code = error.extensions?.code;
      // A Map, not an object: a code such as "constructor" must not find a prototype's member.
      const common = code === undefined && !error.path ? 'validation_error' : yogaCodes.get(code);
      if (!common) return error;
      const { message, nodes, source, positions, path, originalError } = error;
      return new GraphQLError(message, {
        nodes, source, positions, path, originalError,
        extensions: { ...error.extensions, code: common, status: problemCatalog[common].status },
      });
    };
    const results = Array.isArray(result) ? result : [result];
    if (!results.some((r) => r.errors?.length)) return;
    const recoded = results.map((r) => (r.errors ? { ...r, errors: r.errors.map((e) => recode(e as GraphQLError)) } : r));
    setResult(Array.isArray(result) ? recoded : recoded[0]);
  },
};

/**
 * A store that cannot be reached is answered as on REST: 503 with Retry-After, and the code store_unavailable, whether
 * the scope check met it (graph/builder.ts) or a resolver did.
 */
function maskStoreErrors(error: unknown, message: string, isDev?: boolean): Error {
  const graphError = error instanceof GraphQLError ? error : undefined;
  const unreachable = graphError?.extensions?.code === 'store_unavailable' || isStoreUnreachable(graphError ? graphError.originalError : error);
  if (!unreachable) return maskError(error, message, isDev);
  const { message: detail, extensions } = storeUnavailable();
  return new GraphQLError(detail, {
    nodes: graphError?.nodes, source: graphError?.source, positions: graphError?.positions, path: graphError?.path,
    extensions: { ...extensions, http: { status: 503, headers: { 'Retry-After': String(storeRetryAfterSeconds) } } },
  });
}

/** Yoga's contexts let go of their request once the operation is done, as the executor's do (graph/context.ts). */
const releaseContexts: Plugin<GraphContext> = {
  onExecute: () => ({ onExecuteDone: ({ args }) => releaseContext(args.contextValue) }),
};

export function createApp(services: Services, config: Config) {
  const app = express();
  app.disable('x-powered-by');
  // No ETag: answers depend on the key and change with the canon, and hashing each body (50 kB for a search page) is
  // a tenth of a request's CPU for a header no client of this API revalidates with.
  app.disable('etag');
  app.set('trust proxy', 'loopback');
  const executor = new Executor(services);
  const openapi = buildOpenApiDocument(config);

  app.use((req, res, next) => {
    res.setHeader('X-Request-Id', `req_${randomUUID().replaceAll('-', '')}`);
    res.setHeader('Lore-Api-Version', apiVersion);
    setSecurityHeaders(res);
    next();
  });

  app.get('/health', async (_req, res) => {
    const started = Date.now();
    try {
      await services.prisma.$queryRaw`SELECT 1`;
      // With Neo4j: how far its copy of the graph lags PostgreSQL (changes waiting in the outbox, the oldest one's age).
      const sync = await services.graphSync?.health();
      const graphSync = sync && {
        neo4j: sync.neo4j,
        outbox_pending: sync.pending,
        oldest_pending_age_seconds: sync.oldestPendingAgeSeconds,
        last_error: sync.lastError,
      };
      // With an embedding provider: the vectors still to compute (semantic search lags the canon by this much).
      const embedding = await services.embeddingSync?.health();
      const embeddings = embedding && {
        provider: embedding.provider,
        model: services.config.embeddings!.model,
        vectors: embedding.vectors,
        outbox_pending: embedding.pending,
        oldest_pending_age_seconds: embedding.oldestPendingAgeSeconds,
        last_error: embedding.lastError,
      };
      res.json({
        status: 'ok', database: services.dbMode, graph: services.graph.name, ...(graphSync && { graph_sync: graphSync }),
        ...(embeddings && { embeddings }), latency_ms: Date.now() - started,
      });
    } catch {
      res.status(503).json({ status: 'unavailable', database: services.dbMode });
    }
  });

  app.get('/api/v1/openapi.json', (_req, res) => res.json(openapi));
  app.use('/api/v1', apiRouter(executor, config));
  mountPages(app, config);

  const yoga = createYoga<{ req: express.Request; res: express.Response }>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: config.graphiql && graphiqlOptions,
    renderGraphiQL: renderGraphiQLPage,
    landingPage: false,
    // Armor bounds what one request may ask for (aliases, depth, tokens, directives, cost): an operation is rate-limited
    // once, so two thousand aliased free fields would otherwise buy seconds of work for one call. A fragment spread is no
    // level of nesting (unflattened, armor counts each twice: the review queue's knowers would be 7 levels deep, not 5).
    plugins: [EnvelopArmorPlugin({ maxDepth: { flattenFragments: true } }), commonErrorCodes, releaseContexts],
    maskedErrors: { maskError: maskStoreErrors },
    logging: {
      debug: (...args) => services.logger.debug(args),
      info: (...args) => services.logger.info(args),
      warn: (...args) => services.logger.warn(args),
      error: (...args) => services.logger.error(args),
    },
    context: ({ req, res }) => {
      const header = req.get('Authorization');
      const credential = header ? (/^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? header) : undefined;
      return createContext(services, {
        requestId: String(res.getHeader('X-Request-Id')),
        credential,
        llm: { provider: req.get('X-LLM-Provider'), key: req.get('X-LLM-Key'), model: req.get('X-LLM-Model') },
        onRateLimit: (state) => setRateLimitHeaders(res, state),
      });
    },
  });
  app.use(yoga.graphqlEndpoint, (req, res) => yoga(req, res, { req, res }));
  app.use(dashboardRouter());

  app.use((req, res) => sendProblem(req, res, { code: 'not_found', detail: `No route ${req.method} ${req.path}.` }, config.siteUrl));
  app.use((error: Error, req: express.Request, res: express.Response, _next: express.NextFunction) => {
    if (isStoreUnreachable(error)) {
      services.logger.warn({ err: error, requestId: res.getHeader('X-Request-Id') }, 'store unavailable');
      if (!res.headersSent) sendProblem(req, res, { code: 'store_unavailable', detail: storeUnavailable().message, extensions: { retryAfter: storeRetryAfterSeconds } }, config.siteUrl);
      return;
    }
    services.logger.error({ err: error, requestId: res.getHeader('X-Request-Id') }, 'unhandled error');
    if (!res.headersSent) {
      sendProblem(req, res, { code: 'internal_error', detail: `Internal error; quote request id ${res.getHeader('X-Request-Id')} when reporting it.` }, config.siteUrl);
    }
  });
  return { app, executor };
}
