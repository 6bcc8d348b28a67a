// Real gateway processes (`node bin/lore.mjs serve`), for what only holds across processes sharing one database.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ApiResponse, TestGateway } from './gateway.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const startTimeoutMs = 90_000;

export type GatewayProcess = {
  url: string;
  api: string;
  child: ChildProcess;
  request: TestGateway['request'];
  stop(): Promise<void>;
};

/** Starts `lore serve` on a free loopback port over `databaseUrl`; resolves once it says where it listens. */
export async function spawnGateway(databaseUrl: string, env: Record<string, string> = {}): Promise<GatewayProcess> {
  const child = spawn(process.execPath, ['bin/lore.mjs', 'serve'], {
    cwd: repoRoot,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LORE_LOG_LEVEL: 'silent', ...env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`lore serve did not start within ${startTimeoutMs} ms:\n${stderr}`)), startTimeoutMs);
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      stderr += chunk;
      const match = /Lore gateway listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`lore serve exited (${code ?? signal}) before listening:\n${stderr}`));
    });
  });
  const api = `${url}/api/v1`;
  return {
    url,
    api,
    child,
    request: (path, init) => httpRequest(path.startsWith('http') ? path : `${api}${path}`, init),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(killer);
    },
  };
}

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
