// How a CLI command reaches Lore. The embedded store has one long-lived owner, the gateway (src/db/storeLock.ts):
// while one runs, a command goes through it (keyed commands through its API, key commands through its admin socket);
// with none running, the command opens the store itself for as long as it runs and then lets it go, so a gateway
// started meanwhile only waits for it to finish. LORE_API_URL sends keyed commands to that gateway; with DATABASE_URL
// every process opens PostgreSQL itself. Heavy modules (Prisma, the schema) load only on the path that needs them.
import type { Caller, OperationName, OperationOutcome } from '../graph/executor.ts';
import type { Config } from '../src/config.ts';
import type { EmbeddedClaim } from '../src/db/database.ts';
import { prepareDataDir } from '../src/db/dataDir.ts';
import { claimStore, type Holder } from '../src/db/storeLock.ts';
import type { Runtime } from '../src/runtime.ts';
import { adminCommand, type AdminCommand } from './adminClient.ts';

/** Runs named operations with a key: Executor in this process, or RemoteExecutor on the gateway. */
export type Operations = {
  run(name: OperationName, variables: Record<string, unknown>, caller: Pick<Caller, 'credential' | 'requestId' | 'llm'>): Promise<OperationOutcome>;
};

/** A CLI failure: its message is the one line the CLI prints. */
export class CliFailure extends Error {}

type Reach = { kind: 'gateway'; url: string; admin?: string; urlFrom?: string } | { kind: 'local'; embedded?: EmbeddedClaim };

async function reach(config: Config, command: string, useApiUrl: boolean): Promise<Reach> {
  if (useApiUrl && config.apiUrl) return { kind: 'gateway', url: config.apiUrl, urlFrom: 'LORE_API_URL' };
  if (config.databaseUrl) return { kind: 'local' };
  const dataDir = await prepareDataDir(config.dataDir);
  const holder: Holder = { role: 'command', pid: process.pid, command };
  const claim = await claimStore(dataDir, holder, { onWait: (line) => process.stderr.write(`lore: ${line}\n`) });
  if (claim.kind === 'gateway') return { kind: 'gateway', url: claim.gateway.url, admin: claim.gateway.admin };
  return { kind: 'local', embedded: { dataDir, lock: claim.lock, holder } };
}

async function withLocalRuntime<T>(config: Config, embedded: EmbeddedClaim | undefined, work: (runtime: Runtime) => Promise<T>): Promise<T> {
  const [{ openRuntime }, { createLogger }] = await Promise.all([import('../src/runtime.ts'), import('../src/logger.ts')]);
  // CLI commands log only warnings, so their output stays readable.
  const runtime = await openRuntime(config, createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel), { embedded });
  try {
    return await work(runtime);
  } finally {
    // A rebuild's worker stops with the command, as the gateway's do with it.
    await runtime.services.embeddingSync?.stop();
    await runtime.services.graphSync?.stop();
    await runtime.close();
  }
}

/** For the commands that act with a key: import, export, sync, extract. */
export async function withOperations<T>(config: Config, command: string, work: (operations: Operations) => Promise<T>): Promise<T> {
  const where = await reach(config, command, true);
  if (where.kind === 'local') {
    return withLocalRuntime(config, where.embedded, async (runtime) => {
      const { Executor } = await import('../graph/executor.ts');
      return work(new Executor(runtime.services));
    });
  }
  const [{ RemoteExecutor, GatewayUnreachableError }, { isQuery }] = await Promise.all([import('../graph/remoteExecutor.ts'), import('../graph/operations.ts')]);
  const remote = new RemoteExecutor(where.url, { urlFrom: where.urlFrom });
  return work({
    async run(name, variables, caller) {
      try {
        return await remote.run(name, variables, caller);
      } catch (error) {
        if (!(error instanceof GatewayUnreachableError)) throw error;
        throw new CliFailure(
          error.notSent
            ? `${error.message}: start it with \`lore serve\`${config.apiUrl ? ', or correct LORE_API_URL' : ''}`
            : `the Lore gateway at ${error.url} stopped answering (${error.reason}) during ${name}${isQuery(name) ? '' : '; whether it was applied is unknown'}: run the command again once the gateway runs`,
        );
      }
    },
  });
}

/** Runs the operator's commands (app/adminSocket.ts): on the store in this process, or on a running gateway's admin socket. */
export type Admin = { run<T>(command: AdminCommand, input?: Record<string, unknown>): Promise<T> };

/** For `lore keys …`, `lore graph rebuild` and `lore embeddings rebuild`, which no API key may run. */
export async function withAdmin<T>(config: Config, command: string, work: (admin: Admin) => Promise<T>): Promise<T> {
  const where = await reach(config, command, false);
  if (where.kind === 'local') {
    return withLocalRuntime(config, where.embedded, async (runtime) => {
      const { runAdminCommand } = await import('./adminSocket.ts');
      return work({ run: async <R>(name: AdminCommand, input: Record<string, unknown> = {}) => (await runAdminCommand(runtime.services, name, input)) as R });
    });
  }
  const socket = where.admin;
  if (!socket) throw new CliFailure(`the gateway at ${where.url} has no admin socket: run ${command} where it runs, as its user`);
  return work({ run: (name, input) => adminCommand(socket, name, input) });
}
