// /api/v1: each route authenticates, validates its input with the contract's zod schemas, runs one GraphQL
// operation and translates the answer. Rules (scopes, quota, ownership) live in the GraphQL core.
import { isUtf8 } from 'node:buffer';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { z } from 'zod';
import type { Executor } from '../graph/executor.ts';
import type { Config } from '../src/config.ts';
import { describeIssues, idempotencyKey as idempotencyKeyRule } from '../src/core/validation.ts';
import { AnswerCache, serializeSharing } from './answerCache.ts';
import { renameErrorPaths } from './errorPaths.ts';
import { sendProblem } from './problem.ts';
import { setRateLimitHeaders } from './rateLimitHeaders.ts';
import type { RouteDef } from './route.ts';
import { routes } from './routes/index.ts';

const legacySunset = '2026-05-01T00:00:00Z';

export function apiRouter(executor: Executor, config: Config): Router {
  const router = express.Router();
  const answers = new AnswerCache(config.readCacheMb);
  // Per route with `items`: each item's JSON by the object the operation resolved it from (an entity card), for as
  // long as that object lives.
  const renderings = new Map<RouteDef, WeakMap<object, Buffer>>(routes.filter((r) => r.items).map((r) => [r, new WeakMap()]));
  const problem = (req: Request, res: Response, p: Parameters<typeof sendProblem>[2]) => sendProblem(req, res, p, config.siteUrl);

  if (!config.apiEnabled) {
    router.use((req, res) => problem(req, res, { code: 'feature_disabled', detail: 'The REST API is switched off in this deployment (TRACK_2_API_ENABLED=false).' }));
  }
  // Only where a body is read: a GET's request goes straight to its handler.
  const json = express.json({
    limit: config.maxBodyBytes,
    type: ['application/json', 'application/*+json'],
    // The decoder would store each invalid byte as U+FFFD; a body that is not UTF-8 is refused instead.
    verify: (_req, _res, body) => {
      if (!isUtf8(body)) throw Object.assign(new Error('The body is not valid UTF-8.'), { type: 'encoding.invalid' });
    },
  });

  // One layer per path, its methods dispatched by the route: fewer layers for every request to walk past.
  const byPath = new Map<string, RouteDef[]>();
  for (const route of routes) {
    const path = route.path.replace(/\{(\w+)\}/g, ':$1');
    byPath.set(path, [...(byPath.get(path) ?? []), route]);
  }
  for (const [path, defs] of byPath) {
    const pathRoute = router.route(path);
    for (const def of defs) {
      const run = (req: Request, res: Response, next: NextFunction) => handle(def, req, res).catch(next);
      if (def.body) pathRoute[def.method](json, run);
      else pathRoute[def.method](run);
    }
    const allowed = defs.map((d) => d.method.toUpperCase());
    pathRoute.all((req, res) => {
      res.setHeader('Allow', allowed.join(', '));
      problem(req, res, { code: 'method_not_allowed', detail: `${req.method} is not allowed here; use ${allowed.join(' or ')}.` });
    });
  }
  router.use((req, res) => problem(req, res, { code: 'not_found', detail: `No route ${req.method} ${req.path} in /api/v1.` }));

  router.use((error: Error & { type?: string }, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    if (error.type === 'entity.parse.failed') return problem(req, res, { code: 'malformed_json', detail: 'The body is not valid JSON.' });
    if (error.type === 'entity.too.large') return problem(req, res, { code: 'payload_too_large', detail: `The body is larger than ${config.maxBodyBytes} bytes.` });
    if (error.type === 'encoding.invalid') return problem(req, res, { code: 'validation_error', detail: 'The body is not valid UTF-8 JSON.' });
    if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') {
      return problem(req, res, { code: 'unsupported_media_type', detail: 'Send the body as UTF-8 JSON.' });
    }
    if (error.type === 'request.aborted') return;
    // express could not percent-decode a path parameter
    if (error instanceof URIError) return problem(req, res, { code: 'validation_error', detail: 'The path is not valid percent-encoded UTF-8.' });
    next(error);
  });

  async function handle(route: RouteDef, req: Request, res: Response) {
    const credential = readCredential(req, res, config);
    const invalid: Issue[] = [];
    const params = parseInput(route.params, req.params, 'path', invalid);
    const query = parseInput(route.query, req.query, 'query', invalid);
    let body: Record<string, unknown> = {};
    let unsupported = false;
    if (route.body) {
      // From the headers: req.body stays undefined when the JSON parser skipped another media type.
      const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
      if (hasBody && !req.is(['application/json', 'application/*+json'])) unsupported = true;
      else if (!hasBody && route.bodyOptional) body = {};
      else if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
        invalid.push({ path: 'body', message: 'must be a JSON object' });
      } else body = parseInput(route.body, req.body, 'body', invalid);
    }
    const rawIdempotencyKey = route.idempotent ? req.get('Idempotency-Key') : undefined;
    if (rawIdempotencyKey !== undefined && !idempotencyKeyRule.safeParse(rawIdempotencyKey).success) {
      invalid.push({ path: 'header.Idempotency-Key', message: 'must be 1 to 255 characters' });
    }
    const input = { params, query, body, idempotencyKey: rawIdempotencyKey } as Parameters<RouteDef['variables']>[0];
    const variables = invalid.length > 0 || unsupported ? undefined : route.variables(input);
    // The key first (401 before 400); a valid request is admitted with it, in the same round trip.
    const auth = await executor.authenticate(credential, variables && { name: route.operation, variables });
    if (!auth.ok) return problem(req, res, { code: auth.error.code, detail: auth.error.message, extensions: auth.error.extensions });
    if (unsupported) return problem(req, res, { code: 'unsupported_media_type', detail: 'Send the body as application/json.' });
    if (!variables) {
      return problem(req, res, {
        code: 'validation_error',
        detail: invalid.slice(0, 5).map((e) => `${e.path}: ${e.message}`).join('; '),
        extensions: { errors: invalid },
      });
    }

    let held: Buffer | undefined;
    const rendered = renderings.get(route);
    const outcome = await executor.run(route.operation, variables, {
      credential,
      principal: auth.principal,
      admitted: auth.admitted,
      versionRead: auth.versionRead,
      requestId: String(res.getHeader('X-Request-Id')),
      llm: route.byok ? { provider: req.get('X-LLM-Provider'), key: req.get('X-LLM-Key'), model: req.get('X-LLM-Model') } : undefined,
      // A method, not an arrow: tsx (esbuild's keepNames) names an arrow held by a property with a defineProperty call
      // each time it is created, on every request.
      onRateLimit(state) {
        setRateLimitHeaders(res, state);
      },
      // Taken here, so the body the operation then leaves out cannot be evicted before it is sent.
      holdsAnswer: route.cacheable ? (version) => (held = answers.get(answerKey(route, version, variables))) !== undefined : undefined,
      holdsItems: rendered && ((items) => items.every((item) => rendered.has(item))),
    });
    if (!outcome.ok) {
      const error = renameErrorPaths(outcome.error, route.errorPaths);
      return problem(req, res, { code: error.code, detail: error.message, extensions: error.extensions });
    }
    const answer = held ?? answers.body(route.cacheable && outcome.version ? answerKey(route, outcome.version, variables) : undefined, () => {
      const list = rendered && outcome.items && route.items!(outcome.data);
      if (!list) return serializeSharing(route.keepNulls ? route.respond(outcome.data) : withoutNulls(route.respond(outcome.data)));
      const { items, leftOut } = outcome.items!;
      if (!leftOut && list.length !== items.length) throw new Error(`${route.operationId}: ${list.length} items answered for ${items.length} resolved`);
      const json = leftOut
        ? items.map((item) => rendered!.get(item)!)
        : list.map((entry, i) => {
            const item = Buffer.from(JSON.stringify(route.keepNulls ? entry : withoutNulls(entry)));
            rendered!.set(items[i], item);
            return item;
          });
      // The list stays itself in the body (withoutNulls leaves a list it has seen as it made it), to be spliced there.
      const body = route.keepNulls ? route.respond(outcome.data) : withoutNulls(route.respond(outcome.data), new Map([[list, list]]));
      return serializeSharing(body, { list, items: json });
    });
    for (const [name, header] of Object.entries(route.headers ?? {})) res.setHeader(name, header.value(outcome.data));
    // Node's own calls: express's send would look the media type up and check freshness for a body already final.
    res.statusCode = route.created?.when(outcome.data) ? 201 : route.success.status;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', answer.length); // a HEAD request's too
    res.end(answer);
  }

  return router;
}

type Issue = { path: string; message: string };

// Module functions rather than closures made in each request: tsx names a closure held by a const with a
// defineProperty call each time it is created (esbuild's keepNames), a cost on every request for nothing.
/** `value` as `schema` parses it; its issues, named from `where`, go to `invalid`. */
function parseInput<T>(schema: z.ZodType<T> | undefined, value: unknown, where: string, invalid: Issue[]): T {
  if (!schema) return {} as T;
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  invalid.push(...describeIssues(result.error, where));
  return {} as T;
}

/** A cacheable route's answer, read at `version`, is kept under this key. */
const answerKey = (route: RouteDef, version: string, variables: Record<string, unknown>) =>
  `${route.operation}\0${version}\0${JSON.stringify(variables)}`;

/** Bearer is the credential; the legacy x-api-key header still works and says it is deprecated. */
function readCredential(req: Request, res: Response, config: Config): string | undefined {
  const authorization = req.get('Authorization');
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return match ? match[1] : authorization;
  }
  const legacy = req.get('x-api-key');
  if (legacy === undefined) return undefined;
  const docs = config.docsUrl ?? `${config.siteUrl ?? `${req.protocol}://${req.get('host')}`}/docs`;
  res.setHeader('Deprecation', 'true');
  res.setHeader('Sunset', legacySunset);
  res.setHeader('Link', `<${docs}/auth#migration>; rel="deprecation"`);
  res.setHeader('X-Deprecation-Notice', 'The x-api-key header is deprecated and is to be removed on 2026-05-01; send Authorization: Bearer <key> instead.');
  return legacy;
}

/**
 * Optional fields are left out rather than sent as null; episode is "string or null" in the contract and user state is
 * kept as given. A list the answer holds twice (search's data and entities) is rewritten once.
 */
function withoutNulls(value: unknown, seen = new Map<unknown[], unknown[]>()): unknown {
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  if (Array.isArray(value)) {
    let list = seen.get(value);
    if (!list) seen.set(value, (list = value.map((item) => withoutNulls(item, seen))));
    return list;
  }
  const out: Record<string, unknown> = {};
  for (const k in value) {
    const v = (value as Record<string, unknown>)[k];
    if (v === null && k !== 'episode') continue;
    out[k] = k === 'currentState' || k === 'state' ? v : withoutNulls(v, seen);
  }
  return out;
}
