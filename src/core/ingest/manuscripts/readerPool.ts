// Manuscripts are read off the request thread, in at most two child processes, each with a heap limit and each read
// with a time limit after which its process is killed: a document that would take the memory or hold the event loop
// costs one child, and every other request goes on. Processes rather than worker threads, because V8 ends the whole
// process, not the thread, when one allocation (a document's text as one string) overshoots a worker's heap limit.
// The first manuscript starts a process; one left idle is let go, so nothing else pays for them.
import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import pLimit from 'p-limit';
import { LoreError } from '../../errors.ts';
import type { ManuscriptFile, ManuscriptFormat, ReadOptions } from './manuscript.ts';
import type { ReadManuscript, ReadOutcome, ReadTask } from './readerTask.ts';

export type ReaderLimits = {
  /** how long one manuscript may take to read, once a reader process has it */
  timeoutMs: number;
  /** the heap one reader process may use (a file's bytes are bounded apart: maxTotalBytes, maxInflatedBytes) */
  memoryMb: number;
};

/** Manuscripts read at once: the rest wait their turn, so a burst of imports holds at most this many processes. */
const processes = 2;
/** An idle reader process is let go after this long. */
const idleTimeoutMs = 30_000;
/** How long a new reader process may take to load its code. */
const startTimeoutMs = 120_000;
/** The reader processes' nice value: lower priority than the gateway's own (0). */
const readerNice = 10;
const entry = new URL('./readerProcess.mjs', import.meta.url);

type Reader = { child: ChildProcess; stderr: string; idleTimer?: NodeJS.Timeout };

export class ManuscriptReader {
  private readonly idle: Reader[] = [];
  private readonly all = new Set<Reader>();
  private readonly turns = pLimit(processes);

  constructor(private readonly limits: ReaderLimits) {}

  /** The manuscript read and turned into a bundle named `name` (default: its own title); a LoreError for any refusal. */
  read(format: ManuscriptFormat, files: ManuscriptFile[], options: ReadOptions, name?: string): Promise<ReadManuscript> {
    const task: ReadTask = { format, files, options, name };
    return this.turns(async () => {
      const reader = this.idle.pop() ?? (await this.start());
      const outcome = await this.run(reader, task).catch((error: Error & { limit?: 'time' | 'memory' }) => {
        throw this.refusal(error.limit, format, files) ?? error;
      });
      if (outcome.ok) return outcome;
      if ('unexpected' in outcome) throw new Error(`reading a ${format} manuscript failed: ${outcome.unexpected}`);
      throw new LoreError(outcome.code, outcome.message, outcome.extensions);
    });
  }

  /** Lets every reader process go. */
  async close() {
    await Promise.all([...this.all].map((reader) => this.stop(reader)));
  }

  private async start(): Promise<Reader> {
    const child = fork(entry, [], {
      execArgv: [`--max-old-space-size=${this.limits.memoryMb}`],
      // Buffers cross as bytes, not as JSON arrays of numbers.
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    // Reading is background work: the requests this process answers meanwhile come first for the CPU.
    if (child.pid) setPriority(child.pid, readerNice);
    const reader: Reader = { child, stderr: '' };
    this.all.add(reader);
    child.once('exit', () => {
      this.all.delete(reader);
      clearTimeout(reader.idleTimer);
      const at = this.idle.indexOf(reader);
      if (at >= 0) this.idle.splice(at, 1);
    });
    // A send to a process that just died: its exit is what is reported.
    child.on('error', () => undefined);
    // Kept for the failure's report: V8 says there why it stopped.
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (reader.stderr = (reader.stderr + chunk).slice(-4_000)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error(`a manuscript reader did not start within ${startTimeoutMs / 1000} s`)), startTimeoutMs);
      const fail = (error: Error) => {
        clearTimeout(timer);
        child.off('message', ready);
        child.kill('SIGKILL');
        reject(error);
      };
      const ready = () => {
        clearTimeout(timer);
        child.off('exit', exited);
        resolve();
      };
      const exited = (code: number | null, signal: string | null) => fail(new Error(`a manuscript reader exited (${signal ?? code}) while starting: ${reader.stderr.trim()}`));
      child.once('message', ready);
      child.once('exit', exited);
    });
    return reader;
  }

  /** Sends the task and waits for its answer, or kills the process at the time limit. */
  private run(reader: Reader, task: ReadTask): Promise<ReadOutcome> {
    const { child } = reader;
    clearTimeout(reader.idleTimer);
    child.ref();
    (child.channel as { ref?: () => void } | undefined)?.ref?.();
    return new Promise((resolve, reject) => {
      let limit: 'time' | 'memory' | undefined;
      const timer = setTimeout(() => {
        limit = 'time';
        child.kill('SIGKILL');
      }, this.limits.timeoutMs);
      const answered = (outcome: ReadOutcome) => {
        clearTimeout(timer);
        child.off('exit', exited);
        this.release(reader);
        resolve(outcome);
      };
      const exited = (code: number | null, signal: string | null) => {
        clearTimeout(timer);
        child.off('message', answered);
        limit ??= /heap out of memory|Reached heap limit/i.test(reader.stderr) ? 'memory' : undefined;
        reject(Object.assign(new Error(`a manuscript reader exited (${signal ?? code}): ${reader.stderr.trim().slice(-1_000)}`), { limit }));
      };
      child.once('message', answered);
      child.once('exit', exited);
      child.send(task);
    });
  }

  /** Back to the idle ones, not holding the parent open (the CLI exits when its work is done), until let go. */
  private release(reader: Reader) {
    reader.child.unref();
    (reader.child.channel as { unref?: () => void } | undefined)?.unref?.();
    reader.idleTimer = setTimeout(() => void this.stop(reader), idleTimeoutMs).unref();
    this.idle.push(reader);
  }

  private async stop(reader: Reader) {
    if (reader.child.exitCode !== null || reader.child.signalCode !== null) return;
    const exited = new Promise((resolve) => reader.child.once('exit', resolve));
    reader.child.kill('SIGKILL');
    await exited;
  }

  /** The one-line refusal for a read stopped at a limit; undefined for anything else (an unexpected failure). */
  private refusal(limit: 'time' | 'memory' | undefined, format: ManuscriptFormat, files: ManuscriptFile[]): LoreError | undefined {
    const what = (format === 'markdown' || format === 'docx') && files.length === 1 ? files[0].path : 'The manuscript';
    const advice = 'nothing was imported. Split it into smaller files, or import it in parts.';
    if (limit === 'time') return new LoreError('payload_too_large', `${what} could not be read within ${this.limits.timeoutMs / 1000} s, what one import may take; ${advice}`);
    if (limit === 'memory') return new LoreError('payload_too_large', `${what} needs more than the ${this.limits.memoryMb} MB of memory one import may use to read; ${advice}`);
    return undefined;
  }
}
