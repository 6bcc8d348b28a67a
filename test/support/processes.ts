// Real gateway processes (`node bin/lore.mjs serve`), for what only holds across processes sharing one database.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ApiResponse, TestGateway } from './gateway.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const startTimeoutMs = 90_000;
// TEST_SERVER_LOG=<file>: spawned servers log their errors there (a bench's failed answers have a cause to read); silent otherwise.
const serverLog = process.env.TEST_SERVER_LOG;

export type ServerProcess = { url: string; child: ChildProcess; stop(): Promise<void> };

export type GatewayProcess = ServerProcess & { api: string; request: TestGateway['request'] };

/**
 * Starts `node <args>` in the repository on a free loopback port and resolves once its stderr shows `listening`,
 * whose first group is the URL.
 */
export async function spawnServer(args: string[], listening: RegExp, env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LORE_LOG_LEVEL: serverLog ? 'error' : 'silent', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (serverLog) child.stderr!.on('data', (chunk: Buffer | string) => appendFileSync(serverLog, chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start within ${startTimeoutMs} ms:\n${stderr}`)), startTimeoutMs);
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      stderr += chunk;
      const match = listening.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited (${code ?? signal}) before listening:\n${stderr}`));
    });
  });
  return {
    url,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(killer);
    },
  };
}

/** What `lore serve` prints once it listens on loopback; the first group is its URL. */
export const gatewayListening = /Lore gateway listening on (http:\/\/127\.0\.0\.1:\d+)/;

/** Starts `lore serve` on a free loopback port over `databaseUrl`; resolves once it says where it listens. */
export async function spawnGateway(databaseUrl: string, env: Record<string, string> = {}): Promise<GatewayProcess> {
  const server = await spawnServer(['bin/lore.mjs', 'serve'], gatewayListening, { ...env, DATABASE_URL: databaseUrl });
  const api = `${server.url}/api/v1`;
  return { ...server, api, request: apiRequest(api) };
}

/** Requests against `api` (a path under it, or a whole URL), as TestGateway.request makes them. */
export const apiRequest =
  (api: string): TestGateway['request'] =>
  (path, init = {}) =>
    httpRequest(path.startsWith('http') ? path : `${api}${path}`, init);

/** Starts `count` gateways at once; if any fails to start, stops the others before failing. */
export async function spawnGateways(count: number, databaseUrl: string, env: Record<string, string> = {}): Promise<GatewayProcess[]> {
  const started = await Promise.allSettled(Array.from({ length: count }, () => spawnGateway(databaseUrl, env)));
  const failure = started.find((s) => s.status === 'rejected');
  if (failure) {
    await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)));
    throw failure.reason;
  }
  return started.map((s) => (s as PromiseFulfilledResult<GatewayProcess>).value);
}

/** The processes whose parent is `pid` (Linux /proc): a clustered gateway's workers. */
export function childProcesses(pid: number): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid ? [Number(entry)] : [];
    } catch {
      return []; // gone meanwhile
    }
  });
}

/** One HTTP call, answered like TestGateway.request: status, headers, parsed JSON body and raw text. */
export async function httpRequest(url: string, init: RequestInit & { key?: string; json?: unknown } = {}): Promise<ApiResponse> {
  const headers = new Headers(init.headers);
  if (init.key) headers.set('Authorization', `Bearer ${init.key}`);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('Content-Type', 'application/json');
    body = JSON.stringify(init.json);
  }
  const res = await fetch(url, { ...init, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}
