// What a reader process does with one manuscript (readerPool.ts hands it over): reads it and names its project,
// answering a refusal as data, since an error's class does not cross the process boundary.
import { LoreError, type ErrorCode } from '../../errors.ts';
import { projectName as projectNameRule } from '../../validation.ts';
import type { Manuscript, ManuscriptFormat, ReadOptions } from './manuscript.ts';
import { readManuscript } from './read.ts';

/** A file's bytes arrive as a Uint8Array: a Buffer is serialized as its plain view. */
export type ReadTask = { format: ManuscriptFormat; files: { path: string; content: Uint8Array }[]; options: ReadOptions; name?: string };
export type ReadManuscript = { manuscript: Manuscript; name: string };
export type ReadOutcome =
  | ({ ok: true } & ReadManuscript)
  | { ok: false; code: ErrorCode; message: string; extensions: Record<string, unknown> }
  /** anything but a refusal: a fault of the reader, reported as such (readerProcess.mjs) */
  | { ok: false; unexpected: string };

export async function readTask(task: ReadTask): Promise<ReadOutcome> {
  const files = task.files.map((f) => ({ path: f.path, content: Buffer.from(f.content.buffer, f.content.byteOffset, f.content.byteLength) }));
  try {
    const manuscript = await readManuscript(task.format, files, task.options);
    const name = projectNameRule.safeParse(task.name ?? manuscript.title ?? '').data?.slice(0, 80) || 'Manuscript';
    return { ok: true, manuscript, name };
  } catch (error) {
    if (!(error instanceof LoreError)) throw error;
    const { code: _code, status: _status, ...extensions } = error.extensions;
    return { ok: false, code: error.code, message: error.message, extensions };
  }
}
