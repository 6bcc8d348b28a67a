// Manuscripts are read off the request thread, in a small pool of worker threads, each with a heap limit and each
// read with a time limit after which its thread is terminated: a document that would take the process's memory or
// hold its event loop costs one thread, and every other request goes on. The pool starts with the first manuscript
// and lets idle threads go, so nothing else pays for it.
import pLimit from 'p-limit';
import type { Tinypool } from 'tinypool';
import { LoreError } from '../../errors.ts';
import type { ManuscriptFile, ManuscriptFormat, ReadOptions } from './manuscript.ts';
import type { ReadManuscript, ReadOutcome, ReadTask } from './readerThread.ts';

export type ReaderLimits = {
  /** how long one manuscript may take to read, from when a thread takes it */
  timeoutMs: number;
  /** the heap one reader thread may use (a file's bytes are bounded apart: maxTotalBytes, maxInflatedBytes) */
  memoryMb: number;
};

/** Manuscripts read at once: the rest wait their turn, so a burst of imports holds at most this many threads' memory. */
const threads = 2;
/** An idle thread is let go after this long. */
const idleTimeoutMs = 30_000;

export class ManuscriptReader {
  private pool?: Tinypool;
  private readonly turns = pLimit(threads);

  constructor(private readonly limits: ReaderLimits) {}

  /** The manuscript read and turned into a bundle named `name` (default: its own title); a LoreError for any refusal. */
  read(format: ManuscriptFormat, files: ManuscriptFile[], options: ReadOptions, name?: string): Promise<ReadManuscript> {
    const task: ReadTask = { format, files, options, name };
    // The clock starts when a thread takes the manuscript, not while it waits behind others.
    return this.turns(async () => {
      const pool = await this.started();
      let outcome: ReadOutcome;
      try {
        outcome = await pool.run(task, { signal: AbortSignal.timeout(this.limits.timeoutMs) });
      } catch (error) {
        throw this.refusal(error as Error & { code?: string }, format, files) ?? error;
      }
      if (!outcome.ok) throw new LoreError(outcome.code, outcome.message, outcome.extensions);
      return outcome;
    });
  }

  async close() {
    await this.pool?.destroy();
    this.pool = undefined;
  }

  private async started(): Promise<Tinypool> {
    if (this.pool) return this.pool;
    // Loaded with the first manuscript: a process that never reads one never loads it.
    const { Tinypool } = await import('tinypool');
    this.pool ??= new Tinypool({
      filename: new URL('./readerThread.mjs', import.meta.url).href,
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: idleTimeoutMs,
      resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryMb },
    });
    return this.pool;
  }

  /** The one-line refusal for a read stopped at a limit; undefined for anything else (an unexpected failure). */
  private refusal(error: Error & { code?: string }, format: ManuscriptFormat, files: ManuscriptFile[]): LoreError | undefined {
    const what = (format === 'markdown' || format === 'docx') && files.length === 1 ? files[0].path : 'The manuscript';
    const advice = 'nothing was imported. Split it into smaller files, or import it in parts.';
    if (error.name === 'AbortError' || /aborted/i.test(error.message)) {
      return new LoreError('payload_too_large', `${what} could not be read within ${this.limits.timeoutMs / 1000} s, what one import may take; ${advice}`);
    }
    if (error.code === 'ERR_WORKER_OUT_OF_MEMORY' || /memory limit/i.test(error.message)) {
      return new LoreError('payload_too_large', `${what} needs more than the ${this.limits.memoryMb} MB of memory one import may use to read; ${advice}`);
    }
    return undefined;
  }
}
