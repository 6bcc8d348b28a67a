// How the MCP tools reach Lore: both modes run the same named GraphQL operations as the REST handlers, so scopes,
// quotas and rate limits apply identically. Remote posts the operation to a gateway's /graphql with the key;
// embedded opens the core in this process (a single user's local data directory or DATABASE_URL).
import { randomUUID } from 'node:crypto';
import { Executor, operationSource, type OperationName } from '../graph/executor.ts';
import type { Config } from '../src/config.ts';
import { isErrorCode, problemCatalog } from '../src/core/errors.ts';
import { keyPattern } from '../src/core/access/keys.ts';
import type { Logger } from '../src/logger.ts';

/** A failure as a tool reports it: the problem's code and detail, and when to retry. */
export type Problem = { code: string; status?: number; detail: string; retryAfter?: number; resetsAt?: string };

export type Outcome = { ok: true; data: Record<string, unknown> } | { ok: false; problem: Problem };

export type LoreClient = {
  readonly mode: 'remote' | 'embedded';
  /** where the client's data lives, for the start-up line */
  readonly target: string;
  run(name: OperationName, variables: Record<string, unknown>): Promise<Outcome>;
  close(): Promise<void>;
};

type Transport = { execute(name: OperationName, variables: Record<string, unknown>, key: string): Promise<Outcome>; close(): Promise<void> };

const requestId = () => `req_${randomUUID().replaceAll('-', '')}`;

function problemFrom(code: unknown, message: string, extensions: Record<string, unknown> = {}): Problem {
  if (!isErrorCode(code)) return { code: 'internal_error', status: 500, detail: message };
  const { retryAfter, resetsAt } = extensions as { retryAfter?: number; resetsAt?: string };
  return { code, status: problemCatalog[code].status, detail: message, retryAfter, resetsAt };
}

/** The key problem to report at a call, or none: checked before anything is sent, so the client sees why. */
export function keyProblem(key: string | undefined): Problem | undefined {
  if (!key) {
    return { code: 'AUTH_MISSING_KEY', status: 401, detail: 'LORE_API_KEY is not set.' };
  }
  if (!keyPattern.test(key)) {
    return { code: 'AUTH_INVALID_KEY', status: 401, detail: 'LORE_API_KEY is not a Lore API key (expected sk_lore_ followed by letters and digits).' };
  }
  return undefined;
}

function remote(config: Config): Transport {
  const endpoint = `${config.mcp.apiUrl}/graphql`;
  // The provider key from the env block travels as the BYOK headers, as a REST caller sends them.
  const byok = config.mcp.byok;
  const byokHeaders: Record<string, string> = byok
    ? { 'X-LLM-Provider': byok.provider, 'X-LLM-Key': byok.key, ...(byok.model ? { 'X-LLM-Model': byok.model } : {}) }
    : {};
  return {
    async execute(name, variables, key) {
      let response: Response;
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json', Authorization: `Bearer ${key}`, ...byokHeaders },
          body: JSON.stringify({ query: operationSource(name), operationName: name, variables }),
          signal: AbortSignal.timeout(120_000),
        });
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
        return {
          ok: false,
          problem: {
            code: 'gateway_unreachable',
            detail: `Cannot reach the Lore gateway at ${config.mcp.apiUrl} (${cause}). Start it with \`lore serve\`, set LORE_API_URL, or set LORE_MCP_EMBEDDED=1 to use the local data directory.`,
          },
        };
      }
      type GraphQLBody = { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };
      const body = (await response.json().catch(() => undefined)) as GraphQLBody | null | undefined;
      // Not JSON, or JSON that is not a GraphQL answer (another server's page, a REST problem).
      if (typeof body !== 'object' || body === null || (!body.data && !body.errors)) {
        return { ok: false, problem: { code: 'internal_error', status: response.status, detail: `${endpoint} answered HTTP ${response.status} without a GraphQL response; is LORE_API_URL a Lore gateway?` } };
      }
      const error = body.errors?.[0];
      if (error) {
        const code = error.extensions?.code;
        // Errors the gateway's GraphQL layer raises before our code runs (a variable of the wrong type).
        if (!isErrorCode(code) && (code === 'BAD_USER_INPUT' || code === 'GRAPHQL_VALIDATION_FAILED')) {
          return { ok: false, problem: { code: 'validation_error', status: 400, detail: error.message } };
        }
        return { ok: false, problem: problemFrom(code, error.message, error.extensions) };
      }
      return { ok: true, data: body.data ?? {} };
    },
    close: async () => undefined,
  };
}

async function embedded(config: Config, logger: Logger): Promise<Transport> {
  // Loaded only in this mode: opening the store pulls in much of the core, which would slow every remote start.
  const { openRuntime } = await import('../src/runtime.ts');
  const runtime = await openRuntime(config, logger);
  const executor = new Executor(runtime.services);
  return {
    async execute(name, variables, key) {
      const outcome = await executor.run(name, variables, { credential: key, requestId: requestId(), llm: config.mcp.byok });
      if (outcome.ok) return outcome;
      return { ok: false, problem: problemFrom(outcome.error.code, outcome.error.message, outcome.error.extensions) };
    },
    close: () => runtime.close(),
  };
}

/**
 * Opens the client for the configured mode. The embedded store opens in the background, so the MCP handshake is
 * answered at once; a store that cannot open is reported on stderr and at each call.
 */
export function openClient(config: Config, logger: Logger, options: { embedded: boolean }): LoreClient {
  const opening: Promise<Transport | Problem> = (options.embedded ? embedded(config, logger) : Promise.resolve(remote(config))).catch(
    (error: Error) => {
      logger.error({ err: error }, 'cannot open the Lore store');
      return { code: 'store_unavailable', detail: `The embedded Lore store could not be opened: ${error.message}` };
    },
  );
  return {
    mode: options.embedded ? 'embedded' : 'remote',
    target: options.embedded ? `embedded store (${config.databaseUrl ? 'DATABASE_URL' : config.dataDir})` : `gateway ${config.mcp.apiUrl}`,
    async run(name, variables) {
      const problem = keyProblem(config.apiKey);
      if (problem) return { ok: false, problem };
      const transport = await opening;
      if (!('execute' in transport)) return { ok: false, problem: transport };
      return transport.execute(name, variables, config.apiKey!);
    },
    async close() {
      const transport = await opening;
      if ('execute' in transport) await transport.close();
    },
  };
}
