// Runs the named operations on a gateway, through its /graphql with the caller's key, answering as Executor does: the
// CLI and the embedded MCP server use it when a gateway owns the store, and the MCP server in remote mode. Scopes,
// quotas and rate limits apply exactly as in-process, since the gateway runs the same operations.
import { isErrorCode, problemCatalog } from '../src/core/errors.ts';
import type { Caller, OperationOutcome } from './executor.ts';
import { operationSource, type OperationName } from './operations.ts';

/** A gateway that could not be asked, or stopped answering: nothing it may have done is known. */
export class GatewayUnreachableError extends Error {
  constructor(
    readonly url: string,
    /** the system's code (ECONNREFUSED, ECONNRESET…) or the failure's message */
    readonly reason: string,
    /** the request never reached the gateway, so nothing was done */
    readonly notSent: boolean,
  ) {
    super(`cannot reach the Lore gateway at ${url} (${reason})`);
  }
}

const notSentCodes = new Set(['ECONNREFUSED', 'ENOENT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

export class RemoteExecutor {
  /** `url`: the gateway's base URL (http://host:port). */
  constructor(
    readonly url: string,
    /** `urlFrom`: the setting the URL came from (LORE_API_URL), named when what answers is no Lore gateway */
    private readonly options: { timeoutMs?: number; urlFrom?: string } = {},
  ) {}

  /** Throws GatewayUnreachableError when the gateway cannot be reached; every answer it gives is an outcome. */
  async run(name: OperationName, variables: Record<string, unknown>, caller: Pick<Caller, 'credential' | 'requestId' | 'llm'>): Promise<OperationOutcome> {
    const endpoint = `${this.url}/graphql`;
    const llm = caller.llm;
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json',
          ...(caller.credential && { Authorization: `Bearer ${caller.credential}` }),
          // The provider key travels as the BYOK headers, as a REST caller sends them.
          ...(llm?.provider && { 'X-LLM-Provider': llm.provider }),
          ...(llm?.key && { 'X-LLM-Key': llm.key }),
          ...(llm?.model && { 'X-LLM-Model': llm.model }),
        },
        body: JSON.stringify({ query: operationSource(name), operationName: name, variables }),
        signal: this.options.timeoutMs ? AbortSignal.timeout(this.options.timeoutMs) : undefined,
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      throw new GatewayUnreachableError(this.url, cause, notSentCodes.has(cause));
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      // The connection broke while the answer came.
      throw new GatewayUnreachableError(this.url, (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message, false);
    }
    type GraphQLBody = { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };
    let body: GraphQLBody | null | undefined;
    try {
      body = JSON.parse(text) as GraphQLBody | null;
    } catch {
      body = undefined;
    }
    // Not JSON, or JSON that is not a GraphQL answer (another server's page, a REST problem).
    if (typeof body !== 'object' || body === null || (!body.data && !body.errors)) {
      const message = `${endpoint} answered HTTP ${response.status} without a GraphQL response; is ${this.options.urlFrom ?? 'it'} a Lore gateway?`;
      return { ok: false, error: { code: 'internal_error', status: response.status, message, extensions: {} } };
    }
    const error = body.errors?.[0];
    if (!error) return { ok: true, data: body.data ?? {} };
    const { status: _status, ...extensions } = error.extensions ?? {};
    const code = extensions.code;
    if (isErrorCode(code)) return { ok: false, error: { code, status: problemCatalog[code].status, message: error.message, extensions } };
    // Errors the gateway's GraphQL layer raises before Lore's code runs (a variable of the wrong type).
    if (code === 'BAD_USER_INPUT' || code === 'GRAPHQL_VALIDATION_FAILED') {
      return { ok: false, error: { code: 'validation_error', status: 400, message: error.message, extensions: {} } };
    }
    return { ok: false, error: { code: 'internal_error', status: 500, message: error.message, extensions: {} } };
  }
}
