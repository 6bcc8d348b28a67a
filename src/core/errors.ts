// Expected failures carry a stable code; every surface maps the code through this one table
// (REST to a problem+json status and type, MCP to a tool error, GraphQL to extensions.code).
import { GraphQLError } from 'graphql';

export const problemCatalog = {
  AUTH_MISSING_KEY: { status: 401, slug: 'auth-missing-key', title: 'API key missing' },
  AUTH_INVALID_KEY: { status: 401, slug: 'auth-invalid-key', title: 'API key invalid' },
  AUTH_EXPIRED_KEY: { status: 401, slug: 'auth-expired-key', title: 'API key expired' },
  insufficient_scope: { status: 403, slug: 'insufficient-scope', title: 'Insufficient scope' },
  quota_exceeded: { status: 402, slug: 'quota-exceeded', title: 'Quota exceeded' },
  precondition_required: { status: 402, slug: 'precondition-required', title: 'LLM provider key required' },
  rate_limited: { status: 429, slug: 'rate-limited', title: 'Rate limit exceeded' },
  not_found: { status: 404, slug: 'not-found', title: 'Not found' },
  validation_error: { status: 400, slug: 'validation-error', title: 'Invalid request' },
  invalid_cursor: { status: 400, slug: 'invalid-cursor', title: 'Invalid cursor' },
  malformed_json: { status: 400, slug: 'malformed-json', title: 'Malformed JSON body' },
  invalid_bundle: { status: 400, slug: 'invalid-bundle', title: 'Invalid canon bundle' },
  unsupported_media_type: { status: 415, slug: 'unsupported-media-type', title: 'Unsupported media type' },
  payload_too_large: { status: 413, slug: 'payload-too-large', title: 'Payload too large' },
  method_not_allowed: { status: 405, slug: 'method-not-allowed', title: 'Method not allowed' },
  name_taken: { status: 409, slug: 'name-taken', title: 'Name or key already taken' },
  already_exists: { status: 409, slug: 'already-exists', title: 'Already exists' },
  version_conflict: { status: 409, slug: 'version-conflict', title: 'Out-of-date version' },
  in_use: { status: 409, slug: 'in-use', title: 'Still referenced' },
  already_decided: { status: 409, slug: 'already-decided', title: 'Already decided' },
  idempotency_key_reused: { status: 422, slug: 'idempotency-key-reused', title: 'Idempotency key reused' },
  idempotency_key_in_progress: { status: 409, slug: 'idempotency-key-in-progress', title: 'Idempotent request in progress' },
  unknown_provider: { status: 400, slug: 'unknown-provider', title: 'Unknown LLM provider' },
  llm_provider_error: { status: 502, slug: 'llm-provider-error', title: 'LLM provider error' },
  llm_timeout: { status: 504, slug: 'llm-timeout', title: 'LLM provider timed out' },
  graph_unavailable: { status: 503, slug: 'graph-unavailable', title: 'Graph store unavailable' },
  store_unavailable: { status: 503, slug: 'store-unavailable', title: 'Store unavailable' },
  feature_disabled: { status: 503, slug: 'feature-disabled', title: 'Feature disabled' },
  internal_error: { status: 500, slug: 'internal-error', title: 'Internal server error' },
} as const satisfies Record<string, { status: number; slug: string; title: string }>;

export type ErrorCode = keyof typeof problemCatalog;

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(problemCatalog, code);
}

/** An expected failure: its message is safe to show the caller. */
export class LoreError extends GraphQLError {
  constructor(code: ErrorCode, detail: string, extra: Record<string, unknown> = {}) {
    super(detail, { extensions: { ...extra, code, status: problemCatalog[code].status } });
    this.name = 'LoreError';
  }

  get code(): ErrorCode {
    return this.extensions.code as ErrorCode;
  }
}

/** Seconds a client is asked to wait before trying again when the store cannot be reached. */
export const storeRetryAfterSeconds = 5;

/** The store could not be reached (src/db/unavailable.ts): the same answer on every surface. */
export const storeUnavailable = () =>
  new LoreError('store_unavailable', `The store cannot be reached right now; try again in ${storeRetryAfterSeconds} seconds.`, { retryAfter: storeRetryAfterSeconds });

export const notFound = (what: string, id: string) => new LoreError('not_found', `${what} ${id} not found`);
