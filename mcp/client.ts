// How the MCP tools reach Lore: both modes run the same named GraphQL operations as the REST handlers, so scopes,
// quotas and rate limits apply identically. Remote posts the operation to a gateway's /graphql with the key;
// embedded reaches the local store the way the CLI does (src/db/storeLock.ts): through the gateway that owns it when
// one runs, else in this process, which lets the store go as soon as a gateway (or a command) asks for it.
import { randomUUID } from 'node:crypto';
import type { Executor, OperationOutcome } from '../graph/executor.ts';
import { isQuery, type OperationName } from '../graph/operations.ts';
import { GatewayUnreachableError, RemoteExecutor } from '../graph/remoteExecutor.ts';
import type { Config } from '../src/config.ts';
import { isErrorCode, problemCatalog } from '../src/core/errors.ts';
import { keyPattern } from '../src/core/access/keys.ts';
import type { EmbeddedClaim } from '../src/db/database.ts';
import type { Logger } from '../src/logger.ts';
import type { Runtime } from '../src/runtime.ts';

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

/** How long a call waits for a command that holds the store (a `lore import`) to finish with it. */
const storeWaitMs = 60_000;
const retryAfterSeconds = 5;

function outcomeOf(outcome: OperationOutcome): Outcome {
  if (outcome.ok) return { ok: true, data: outcome.data };
  // The outcome's own status: a gateway URL that answers with no GraphQL response reports the HTTP status it gave.
  return { ok: false, problem: { ...problemFrom(outcome.error.code, outcome.error.message, outcome.error.extensions), status: outcome.error.status } };
}

function remote(config: Config): Transport {
  const gateway = new RemoteExecutor(config.mcp.apiUrl, { timeoutMs: 120_000, urlFrom: 'LORE_API_URL' });
  return {
    async execute(name, variables, key) {
      try {
        return outcomeOf(await gateway.run(name, variables, { credential: key, requestId: requestId(), llm: config.mcp.byok }));
      } catch (error) {
        if (!(error instanceof GatewayUnreachableError)) throw error;
        return {
          ok: false,
          problem: {
            code: 'gateway_unreachable',
            detail: `Cannot reach the Lore gateway at ${config.mcp.apiUrl} (${error.reason}). Start it with \`lore serve\`, set LORE_API_URL, or set LORE_MCP_EMBEDDED=1 to use the local data directory.`,
          },
        };
      }
    },
    close: async () => undefined,
  };
}

const storeUnavailable = (detail: string): Outcome => ({
  ok: false,
  problem: { code: 'store_unavailable', status: problemCatalog.store_unavailable.status, detail, retryAfter: retryAfterSeconds },
});

type Local = { runtime: Runtime; executor: Executor };

function embedded(config: Config, logger: Logger): Transport {
  let local: Promise<Local> | undefined;
  let reaching: Promise<Local | RemoteExecutor> | undefined;
  let closing: Promise<void> | undefined;
  let inFlight = 0;
  let releaseWanted = false;

  const open = async (claim?: EmbeddedClaim): Promise<Local> => {
    // Loaded only in this mode: opening the store pulls in much of the core, which would slow every remote start.
    const [{ openRuntime }, { Executor }] = await Promise.all([import('../src/runtime.ts'), import('../graph/executor.ts')]);
    const runtime = await openRuntime(config, logger, { embedded: claim });
    return { runtime, executor: new Executor(runtime.services) };
  };
  const releaseIfAsked = () => {
    if (!releaseWanted || inFlight > 0 || !local) return;
    const current = local;
    local = undefined;
    releaseWanted = false;
    closing = current
      .then((l) => l.runtime.close())
      .catch((error: Error) => logger.error({ err: error }, 'closing the store failed'))
      .finally(() => (closing = undefined));
  };
  /** The store in this process (opened if need be), or the gateway that owns it. */
  const reach = async (): Promise<Local | RemoteExecutor> => {
    await closing;
    if (local) return local;
    if (config.databaseUrl) return (local = open());
    const [{ prepareDataDir }, { claimStore }] = await Promise.all([import('../src/db/dataDir.ts'), import('../src/db/storeLock.ts')]);
    const dataDir = await prepareDataDir(config.dataDir);
    const holder = { role: 'command', pid: process.pid, command: 'lore mcp --embedded' } as const;
    const claim = await claimStore(dataDir, holder, { waitMs: storeWaitMs });
    if (claim.kind === 'gateway') return new RemoteExecutor(claim.gateway.url, { timeoutMs: 120_000 });
    claim.lock.onReleaseRequest(() => {
      releaseWanted = true;
      releaseIfAsked();
    });
    local = open({ dataDir, lock: claim.lock, holder });
    local.catch(() => (local = undefined));
    return local;
  };

  async function attempt(name: OperationName, variables: Record<string, unknown>, key: string, retried: boolean): Promise<Outcome> {
    let target: Local | RemoteExecutor;
    try {
      // One reach at a time: concurrent calls share it rather than each taking the lock.
      reaching ??= reach().finally(() => (reaching = undefined));
      target = await reaching;
    } catch (error) {
      logger.error({ err: error }, 'cannot open the Lore store');
      return storeUnavailable(`The Lore store could not be opened: ${(error as Error).message}`);
    }
    const caller = { credential: key, requestId: requestId(), llm: config.mcp.byok };
    if (target instanceof RemoteExecutor) {
      try {
        return outcomeOf(await target.run(name, variables, caller));
      } catch (error) {
        if (!(error instanceof GatewayUnreachableError)) throw error;
        // The gateway stopped before the call reached it: the store is reached anew (opened here if none runs now).
        if (error.notSent && !retried) return attempt(name, variables, key, true);
        logger.error({ err: error }, 'the gateway owning the store stopped answering');
        const unknown = isQuery(name) ? '' : '; whether the call was applied is unknown';
        return storeUnavailable(`The Lore gateway at ${target.url}, which owns the store, stopped answering (${error.reason})${unknown}. Call again: with no gateway running, the store is opened here.`);
      }
    }
    inFlight++;
    try {
      return outcomeOf(await target.executor.run(name, variables, caller));
    } finally {
      inFlight--;
      releaseIfAsked();
    }
  }

  return {
    execute: (name, variables, key) => attempt(name, variables, key, false),
    async close() {
      const current = local;
      local = undefined;
      await closing;
      if (current) await (await current).runtime.close();
    },
  };
}

/** Opens the client for the configured mode; nothing is reached until a tool is called, so the handshake is answered at once. */
export function openClient(config: Config, logger: Logger, options: { embedded: boolean }): LoreClient {
  const transport = options.embedded ? embedded(config, logger) : remote(config);
  return {
    mode: options.embedded ? 'embedded' : 'remote',
    target: options.embedded ? `embedded store (${config.databaseUrl ? 'DATABASE_URL' : config.dataDir}, through its gateway while one runs)` : `gateway ${config.mcp.apiUrl}`,
    async run(name, variables) {
      const problem = keyProblem(config.apiKey);
      if (problem) return { ok: false, problem };
      return transport.execute(name, variables, config.apiKey!);
    },
    close: () => transport.close(),
  };
}
