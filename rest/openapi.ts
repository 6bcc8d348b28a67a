// The OpenAPI 3.1 description of /api/v1, generated from the route declarations and their zod schemas.
import { OpenApiGeneratorV31, OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type { Config } from '../src/config.ts';
import { problemCatalog } from '../src/core/errors.ts';
import { llmHeaderRules, offeredProviders } from '../src/core/llm/provider.ts';
import { routes } from './routes/index.ts';
import { Problem } from './schemas.ts';
import { JsonValue } from './schemas/json.ts';

const statusText: Record<number, string> = {
  400: 'invalid input (problem code validation_error, malformed_json or invalid_cursor)',
  401: 'API key missing, invalid or expired (AUTH_MISSING_KEY, AUTH_INVALID_KEY, AUTH_EXPIRED_KEY)',
  402: 'quota of the period used up (quota_exceeded)',
  403: 'the key lacks the scope (insufficient_scope)',
  404: 'project or entity not found (not_found); another account\'s project answers the same',
  409: 'a request with this Idempotency-Key is still in progress (idempotency_key_in_progress); for writes also a name, alias or key another entity has (name_taken), a fact or relationship that exists already (already_exists), an out-of-date version (version_conflict), something still referenced (in_use) or a proposal already decided (already_decided)',
  413: 'body too large (payload_too_large)',
  415: 'body is not JSON (unsupported_media_type)',
  422: 'Idempotency-Key reused with another body (idempotency_key_reused)',
  429: 'per-minute rate limit exceeded (rate_limited); wait Retry-After seconds',
  431: 'the request line and headers are over 64 kB (answered by the HTTP server, without a body)',
  500: 'unexpected error (internal_error), with a request id to quote',
  502: 'the LLM provider failed or refused the request (llm_provider_error)',
  503: 'the store cannot be reached right now (store_unavailable); wait Retry-After seconds. Or the API is switched off in this deployment (feature_disabled)',
  504: 'the LLM provider did not answer in time (llm_timeout)',
};

// The routes that run the caller's LLM (byok) answer these statuses for more reasons than the others do.
const byokStatusText: Record<number, string> = {
  400: `${statusText[400]}, or an X-LLM-* header with a bad value: a provider the server does not offer (unknown_provider), a key or model that is not printable ASCII (validation_error)`,
  402: 'X-LLM-Provider or X-LLM-Key missing (precondition_required), or the quota of the period used up (quota_exceeded)',
};

// On every answer to an authenticated request the key's rate limit stands (IETF draft-ietf-httpapi-ratelimit-headers).
const rateLimitHeaders = {
  'RateLimit-Policy': { description: 'the per-minute rate limit: `"minute";q=<requests>;w=60`', schema: { type: 'string' as const } },
  RateLimit: { description: 'where the key stands: `"minute";r=<remaining>;t=<seconds to reset>`', schema: { type: 'string' as const } },
};

/** The document for a server configured as `config`: the LLM providers it offers depend on it. */
export function buildOpenApiDocument(config: Pick<Config, 'llm'>, serverUrl = '/api/v1') {
  const registry = new OpenAPIRegistry();
  const problem = Problem;
  const bearer = registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'Authorization: Bearer sk_lore_… (the legacy x-api-key header still works but is deprecated, sunset 2026-05-01)',
  });
  // Referenced by the free-form JSON fields (rest/schemas/json.ts): recursive, so a component rather than inline.
  registry.registerComponent('schemas', 'JsonValue', JsonValue as Parameters<typeof registry.registerComponent<'schemas'>>[2]);
  const problemResponse = (status: number, byok?: boolean) => {
    const description = (byok && byokStatusText[status]) || statusText[status];
    // Node's HTTP server answers an oversized head itself, before the app sees the request.
    if (status === 431) return { description };
    return {
      description,
      headers:
        status === 429
          ? { 'Retry-After': { description: 'seconds to wait', schema: { type: 'integer' as const } }, ...rateLimitHeaders }
          : undefined,
      content: { 'application/problem+json': { schema: problem } },
    };
  };
  const providers = offeredProviders(config.llm) as [string, ...string[]];
  const managed = config.llm.managed ? ' (a Studio Managed key may send neither it nor the other, to use the server\'s own)' : '';
  for (const route of routes) {
    const headers = route.idempotent
      ? z.object({ 'Idempotency-Key': z.string().min(1).max(255).optional().meta({ description: 'replays the first response for 24 hours' }) })
      : route.byok
        ? z.object({
            // Required, as the contract says; a Studio Managed key may leave out both on a server with its own provider.
            'X-LLM-Provider': z.enum(providers).meta({ description: `your LLM provider${managed}; without it 402 precondition_required` }),
            'X-LLM-Key': llmHeaderRules['X-LLM-Key'].meta({ description: `your provider key${managed}; used for this call only, never stored or logged; without it 402 precondition_required` }),
            'X-LLM-Model': llmHeaderRules['X-LLM-Model'].optional().meta({
              description: `model override${providers.includes('openai-compatible') ? '; required with openai-compatible (400 validation_error without it)' : ''}`,
            }),
          })
        : undefined;
    registry.registerPath({
      method: route.method,
      path: route.path,
      operationId: route.operationId,
      summary: route.summary,
      description: `${route.description ?? route.summary}\n\nScope: ${route.scope === 'any' ? 'any key' : route.scope}. Cost: ${route.cost} quota call${route.cost === 1 ? '' : 's'}.`,
      security: [{ [bearer.name]: [] }],
      'x-lore-scope': route.scope,
      'x-lore-cost': route.cost,
      request: {
        params: route.params,
        query: route.query,
        headers,
        body: route.body
          ? { required: !route.bodyOptional, content: { 'application/json': { schema: route.body } } }
          : undefined,
      },
      responses: {
        [route.success.status]: {
          description: route.success.description,
          headers: {
            'X-Request-Id': { description: 'server-issued id for log correlation', schema: { type: 'string' } },
            'Lore-Api-Version': { description: 'contract version', schema: { type: 'string', enum: ['1.0'] } },
            ...rateLimitHeaders,
            ...Object.fromEntries(Object.entries(route.headers ?? {}).map(([name, h]) => [name, { description: h.description, schema: { type: 'string' as const } }])),
          },
          content: { 'application/json': { schema: route.success.schema } },
          links: route.links,
        },
        ...(route.created && {
          201: {
            description: route.created.description,
            headers: {
              'X-Request-Id': { description: 'server-issued id for log correlation', schema: { type: 'string' } },
              'Lore-Api-Version': { description: 'contract version', schema: { type: 'string', enum: ['1.0'] } },
              ...rateLimitHeaders,
            },
            content: { 'application/json': { schema: route.success.schema } },
            links: route.links,
          },
        }),
        ...Object.fromEntries(
          [...new Set([...route.errors, 401, 403, ...(route.rateLimited === false ? [] : [429]), 431, 500, 503])].sort().map((s) => [s, problemResponse(s, route.byok)]),
        ),
      },
    });
  }
  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Lore API',
      version: '1.0',
      description: `Canon recall and conflict check for fiction writers. Send your key as \`Authorization: Bearer sk_lore_…\`. Errors are application/problem+json; codes: ${Object.keys(problemCatalog).join(', ')}. Each problem's \`type\` is a page (\`/errors/<slug>\`) saying what the error means and what to do; [/errors](/errors) lists them.`,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }],
  });
}
