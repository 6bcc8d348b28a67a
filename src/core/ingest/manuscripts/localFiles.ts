// A manuscript on this machine (what `lore import <path>` and `lore sync` read): which format the path is, and its
// files, read without ever leaving what the writer named: a link inside the folder is followed only to a file that is
// itself inside it.
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import pLimit from 'p-limit';
import { LoreError } from '../../errors.ts';
import { maxFileBytes, maxFiles, maxTotalBytes, scrivenerFileName, type ManuscriptFile, type ManuscriptFormat, type SkippedFile } from './manuscript.ts';
import { textFileName } from './markdown.ts';

export type LocalManuscript = { format: ManuscriptFormat; root: string; name: string; files: ManuscriptFile[]; skipped: SkippedFile[] };

const fail = (file: string, message: string) => new LoreError('validation_error', `${file}: ${message}`, { errors: [{ path: file, message }] });

/** What the path holds: a bundle (JSON, YAML) or a manuscript format; by its name, and a folder by what is in it. */
export async function detectFormat(target: string): Promise<ManuscriptFormat | 'bundle'> {
  let info;
  try {
    info = await stat(target);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or folder' : (error as Error).message;
    throw new LoreError('validation_error', `cannot read ${target}: ${reason}`, { errors: [{ path: target, message: `cannot be read: ${reason}` }] });
  }
  if (info.isFile()) {
    if (/\.(json|ya?ml)$/i.test(target)) return 'bundle';
    if (textFileName.test(target)) return 'markdown';
    if (/\.docx$/i.test(target)) return 'docx';
    if (/\.scrivx$/i.test(target)) return 'scrivener';
    throw fail(target, 'is neither a bundle (.json, .yaml) nor a manuscript (.md, .markdown, .txt, .docx, a folder, a .scriv project or an Obsidian vault)');
  }
  if (!info.isDirectory()) throw fail(target, 'is neither a file nor a folder');
  if (/\.scriv\/?$/i.test(target)) return 'scrivener';
  const entries = await readdir(target, { withFileTypes: true });
  if (entries.some((e) => e.isFile() && /\.scrivx$/i.test(e.name))) return 'scrivener';
  if (entries.some((e) => e.isDirectory() && e.name === '.obsidian')) return 'obsidian';
  return 'markdown_folder';
}

const wanted: Record<ManuscriptFormat, (relative: string) => boolean> = {
  markdown: () => true,
  docx: () => true,
  markdown_folder: (p) => textFileName.test(p),
  scrivener: (p) => scrivenerFileName.test(p),
  obsidian: (p) => /\.md$/i.test(p),
};

/**
 * Reads the manuscript at `target` as `format`: the one file, or the folder's files the format reads (hidden files and
 * folders left out). `onFile` is told of each file read, with how many there are.
 */
export async function readLocalManuscript(target: string, format: ManuscriptFormat, onFile?: (done: number, total: number) => void): Promise<LocalManuscript> {
  const named = path.resolve(target);
  if (format === 'markdown' || format === 'docx') {
    const content = await readLimited(named, path.basename(named));
    onFile?.(1, 1);
    return { format, root: path.dirname(named), name: path.basename(named).replace(/\.[^.]*$/, ''), files: [{ path: path.basename(named), content }], skipped: [] };
  }
  // A .scrivx named by itself stands for its project folder.
  const folder = format === 'scrivener' && /\.scrivx$/i.test(named) ? path.dirname(named) : named;
  const root = await realpath(folder);
  const skipped: SkippedFile[] = [];
  const found: { relative: string; absolute: string; size: number }[] = [];
  const walk = async (dir: string, relativeDir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const relative = relativeDir ? `${relativeDir}/${entry.name}` : entry.name;
      const absolute = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        await walk(absolute, relative);
        continue;
      }
      let file = absolute;
      if (entry.isSymbolicLink()) {
        const real = await realpath(absolute).catch(() => undefined);
        if (!real || !(await stat(real)).isFile()) {
          skipped.push({ file: relative, reason: 'a link to a folder or to nothing: not followed' });
          continue;
        }
        if (!real.startsWith(root + path.sep)) {
          skipped.push({ file: relative, reason: 'a link to a file outside the manuscript folder: not read' });
          continue;
        }
        file = real;
      } else if (!entry.isFile()) continue;
      if (wanted[format](relative)) found.push({ relative, absolute: file, size: 0 });
    }
  };
  await walk(root, '');
  if (found.length > maxFiles) throw fail(target, `holds ${found.length} files to read; at most ${maxFiles} are read`);
  // A series is thousands of small files: asked for a few dozen at a time, not one after another.
  const limit = pLimit(32);
  await Promise.all(found.map((f) => limit(async () => void (f.size = (await stat(f.absolute)).size))));
  const large = found.find((f) => f.size > maxFileBytes);
  if (large) throw tooLarge(large.relative, large.size);
  const total = found.reduce((n, f) => n + f.size, 0);
  if (total > maxTotalBytes) throw fail(target, `holds ${(total / 1048576).toFixed(1)} MB of files to read; at most ${maxTotalBytes / 1048576} MB are read`);
  let done = 0;
  const files: ManuscriptFile[] = await Promise.all(
    found.map((f) =>
      limit(async () => {
        const content = await readWhole(f.absolute, f.relative);
        onFile?.(++done, found.length);
        return { path: f.relative, content };
      }),
    ),
  );
  return { format, root, name: path.basename(root).replace(/\.scriv$/i, ''), files, skipped };
}

const tooLarge = (shown: string, size: number) => fail(shown, `is ${(size / 1048576).toFixed(1)} MB; a file may have at most ${maxFileBytes / 1048576} MB`);

async function readLimited(file: string, shown: string): Promise<Buffer> {
  const info = await stat(file).catch(() => undefined);
  if (info && info.size > maxFileBytes) throw tooLarge(shown, info.size);
  return readWhole(file, shown);
}

async function readWhole(file: string, shown: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw fail(shown, `cannot be read: ${(error as Error).message}`);
  }
}
