// Reads a manuscript of any format from its files, and turns it into a canon bundle for the importer. Every problem,
// of the files or of what they hold, is reported against its file and line before anything is written.
import { bundleSchema } from '../bundle.ts';
import { maxChapters, maxFileBytes, maxFiles, maxTotalBytes, Problems, type Manuscript, type ManuscriptFile, type ManuscriptFormat, type Origin, type ReadOptions } from './manuscript.ts';
import { readMarkdownFile, readMarkdownFolder } from './markdown.ts';
import { readObsidianVault } from './obsidian.ts';

/** A path inside the manuscript: relative, `/`-separated, never leaving it. */
export function pathProblem(path: string): string | undefined {
  if (!path || path.length > 1000) return 'a file path must have 1 to 1000 characters';
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path) || path.includes('\\')) return 'a file path must be relative and use / between folders';
  if (path.split('/').some((part) => part === '' || part === '.' || part === '..')) return 'a file path must not have empty, . or .. parts';
  if (/[\0\p{Cs}]/u.test(path)) return 'a file path must be Unicode text without NUL characters';
  return undefined;
}

function checkFiles(format: ManuscriptFormat, files: ManuscriptFile[], problems: Problems) {
  if (files.length === 0) problems.add({ file: '(manuscript)' }, 'has no files');
  if (files.length > maxFiles) problems.add({ file: '(manuscript)' }, `has ${files.length} files; at most ${maxFiles} are read`);
  if ((format === 'markdown' || format === 'docx') && files.length > 1) problems.add({ file: '(manuscript)' }, `a ${format} manuscript is one file; ${files.length} were given`);
  const seen = new Set<string>();
  let total = 0;
  for (const file of files) {
    const problem = pathProblem(file.path);
    if (problem) problems.add({ file: file.path.slice(0, 200) || '(empty path)' }, problem);
    if (seen.has(file.path)) problems.add({ file: file.path }, 'is given twice');
    seen.add(file.path);
    if (file.content.length > maxFileBytes) problems.add({ file: file.path }, `is ${(file.content.length / 1048576).toFixed(1)} MB; a file may have at most ${maxFileBytes / 1048576} MB`);
    total += file.content.length;
  }
  if (total > maxTotalBytes) problems.add({ file: '(manuscript)' }, `has ${(total / 1048576).toFixed(1)} MB of files; at most ${maxTotalBytes / 1048576} MB are read`);
}

/** The manuscript in `files`, read as `format`; a validation_error listing every problem by file and line otherwise. */
export async function readManuscript(format: ManuscriptFormat, files: ManuscriptFile[], options: ReadOptions = {}): Promise<Manuscript> {
  const problems = new Problems();
  checkFiles(format, files, problems);
  problems.throwIfAny();
  const manuscript = await readFormat(format, files, options, problems);
  if (manuscript.chapters.length > maxChapters) problems.add({ file: '(manuscript)' }, `has ${manuscript.chapters.length} chapters; a project may have at most ${maxChapters}`);
  problems.throwIfAny();
  return manuscript;
}

async function readFormat(format: ManuscriptFormat, files: ManuscriptFile[], options: ReadOptions, problems: Problems): Promise<Manuscript> {
  switch (format) {
    case 'markdown':
      return readMarkdownFile(files[0], options, problems);
    case 'markdown_folder':
      return readMarkdownFolder(files.filter((f) => !isHidden(f.path)), problems);
    // Loaded when needed: their parsers (mammoth, fast-xml-parser, the RTF reader) would slow every start.
    case 'docx':
      return (await import('./docx.ts')).readDocx(files[0], options, problems);
    case 'scrivener':
      return (await import('./scrivener.ts')).readScrivener(files, problems);
    case 'obsidian':
      return readObsidianVault(files, options, problems);
  }
}

const isHidden = (path: string) => path.split('/').some((part) => part.startsWith('.'));

/**
 * The manuscript as a canon bundle: chapters in reading order (ordinals firstOrdinal, firstOrdinal + 1, …), the vault's entities and
 * relationships. Checked with the bundle's own rules, each problem reported against the file it came from.
 */
export function manuscriptBundle(manuscript: Manuscript, projectName: string, firstOrdinal = 1): unknown {
  const bundle = {
    project: { name: projectName },
    entities: manuscript.entities.map((e) => ({ key: e.key, type: e.type, name: e.name, aliases: e.aliases, state: e.state, facts: e.facts.map((f) => f.text), status: e.status })),
    relationships: manuscript.relationships.map((r) => ({ from: r.from, to: r.to, kind: r.kind })),
    chapters: manuscript.chapters.map((c, i) => ({ id: c.id, title: c.title.slice(0, 300), ordinal: firstOrdinal + i, text: c.text })),
  };
  const parsed = bundleSchema.safeParse(bundle);
  if (parsed.success) return bundle;
  const problems = new Problems();
  for (const issue of parsed.error.issues) {
    const [list, index, field, item, ...rest] = issue.path as (string | number)[];
    let origin: Origin = { file: '(manuscript)' };
    let what = issue.path.join('.');
    if (list === 'chapters' && typeof index === 'number') {
      origin = manuscript.chapters[index].origin;
      what = `chapter "${manuscript.chapters[index].title}" ${[field, item, ...rest].filter((p) => p !== undefined).join('.')}`;
    } else if (list === 'entities' && typeof index === 'number') {
      const entity = manuscript.entities[index];
      origin = field === 'facts' && typeof item === 'number' ? entity.facts[item].origin : entity.origin;
      what = [field, item, ...rest].filter((p) => p !== undefined).join('.');
    } else if (list === 'relationships' && typeof index === 'number') {
      origin = manuscript.relationships[index].origin;
      what = `relationship ${[field, ...rest].filter((p) => p !== undefined).join('.')}`;
    } else if (list === 'project') {
      what = 'project name';
    }
    problems.add(origin, `${what.trim()}: ${issue.message}`);
  }
  problems.throwIfAny();
  return bundle;
}
