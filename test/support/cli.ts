// Runs the `lore` CLI as a child process, the way users run it (`node bin/lore.mjs …`).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const repoRoot = path.resolve(import.meta.dirname, '../..');
const entry = path.join(repoRoot, 'bin/lore.mjs');

export type CliResult = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

/** The environment a user's shell would give the CLI: nothing of the test process's Lore settings leaks in. */
export function cliEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const name of Object.keys(base)) {
    if (/^(DATABASE_URL|PORT|HOST|LORE_.*|NEO4J_.*|TRACK_2_API_ENABLED)$/.test(name)) delete base[name];
  }
  return { ...base, LORE_LOG_LEVEL: 'warn', ...env };
}

/** `cwd`: where the user runs it (default: the checkout). */
export function lore(args: string[], env: Record<string, string | undefined>, timeoutMs = 120_000, cwd = repoRoot): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [entry, ...args], { cwd, env: cliEnv(env), timeout: timeoutMs }, (error, stdout, stderr) => {
      const failure = error as (NodeJS.ErrnoException & { code?: number | string; signal?: NodeJS.Signals }) | null;
      resolve({
        code: failure ? (typeof failure.code === 'number' ? failure.code : null) : 0,
        signal: failure?.signal ?? null,
        stdout,
        stderr,
      });
    });
  });
}

/** A one-line failure: the message on stderr, no stack trace, a non-zero exit. */
export function expectCleanFailure(result: CliResult, message: RegExp) {
  const problems: string[] = [];
  if (result.signal) problems.push(`killed by ${result.signal} (it hung)`);
  if (result.code === 0 || result.code === null) problems.push(`exit code ${result.code}`);
  if (!message.test(result.stderr)) problems.push(`stderr does not match ${message}`);
  if (/^\s+at .+[:(]/m.test(result.stderr)) problems.push('stderr has a stack trace');
  if (problems.length > 0) throw new Error(`${problems.join('; ')}\n--- stderr ---\n${result.stderr}\n--- stdout ---\n${result.stdout}`);
}

export type ServeProcess = { url: string; child: ChildProcess; output(): string; stop(signal?: NodeJS.Signals): Promise<number | null> };

/** Starts `lore serve` and waits for its "listening" line. */
export function serve(env: Record<string, string | undefined>, timeoutMs = 90_000): Promise<ServeProcess> {
  const child = spawn(process.execPath, [entry, 'serve'], { cwd: repoRoot, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`lore serve did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Lore gateway listening on (http:\/\/\S+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stderr!.off('data', onData);
      child.stderr!.on('data', (more: Buffer) => (output += more.toString()));
      resolve({
        url: match[1],
        child,
        output: () => output,
        async stop(signal = 'SIGTERM') {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    };
    child.stderr!.on('data', onData);
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`lore serve exited with ${code} before listening:\n${output}`));
    });
  });
}
