// A manuscript as the readers give it: chapters in reading order (each with a stable id and the file and line it came
// from), and, from an Obsidian vault, entities and relationships. Problems are collected per file and line, so a
// writer sees every one at once; any problem means nothing is written.
import { LoreError } from '../../errors.ts';
import { chapterText } from '../../validation.ts';

export const manuscriptFormats = ['markdown', 'markdown_folder', 'docx', 'scrivener', 'obsidian'] as const;
export type ManuscriptFormat = (typeof manuscriptFormats)[number];

/** A file of the manuscript: its path inside what the writer named (`/`-separated, relative) and its bytes. */
export type ManuscriptFile = { path: string; content: Buffer };

export type ReadOptions = {
  /** split a Markdown file or a .docx at level-1 headings only (1), or at levels 1 and 2 (2); default: see splitLevel */
  headingLevel?: 1 | 2;
  /** Obsidian: the folder whose notes are chapters (default "Chapters"), wherever it is in the vault */
  chaptersFolder?: string;
};

/** Where a chapter, entity or problem comes from. `line` is 1-based. */
export type Origin = { file: string; line?: number };

export type ManuscriptChapter = { id: string; title: string; text: string; origin: Origin };
export type ManuscriptFact = { text: string; origin: Origin };
export type ManuscriptEntity = {
  key: string;
  type: string;
  name: string;
  aliases: string[];
  state: Record<string, unknown>;
  facts: ManuscriptFact[];
  status: 'approved' | 'suggested';
  origin: Origin;
};
export type ManuscriptRelationship = { from: string; to: string; kind: string; origin: Origin };
export type SkippedFile = { file: string; reason: string };
/** Text before a manuscript's first chapter heading (a title page, a byline): kept, but not a chapter. */
export type FrontMatterText = { text: string; origin: Origin };

export type Manuscript = {
  /** the manuscript's own title (a Markdown file's single level-1 heading), when it has one */
  title?: string;
  chapters: ManuscriptChapter[];
  entities: ManuscriptEntity[];
  relationships: ManuscriptRelationship[];
  skipped: SkippedFile[];
  frontMatter?: FrontMatterText[];
};

export type Problem = Origin & { message: string };

/** Chapters per manuscript and characters per chapter: what a bundle takes. */
export const maxChapters = 10_000;
export const maxChapterChars = 5_000_000;
/** Files per manuscript, and bytes per file and in all: a whole series fits many times over. */
export const maxFiles = 20_000;
export const maxFileBytes = 64 * 1024 * 1024;
export const maxTotalBytes = 256 * 1024 * 1024;

/** The files of a .scriv folder the reader needs: the project XML at its root and each document's RTF. */
export const scrivenerFileName = /^([^/]+\.scrivx|Files\/Data\/[^/]+\/content\.rtf)$/i;

export const describeOrigin = (o: Origin) => (o.line ? `${o.file}:${o.line}` : o.file);

/** The failure for a manuscript with problems: one error per problem, each naming its file (and line). */
export function manuscriptError(problems: Problem[]): LoreError {
  const errors = problems.map((p) => ({ path: describeOrigin(p), message: p.message }));
  const head = errors.slice(0, 5).map((e) => `${e.path}: ${e.message}`).join('; ');
  const more = errors.length > 5 ? `; and ${errors.length - 5} more` : '';
  return new LoreError('validation_error', `The manuscript has ${errors.length} problem${errors.length === 1 ? '' : 's'}; nothing was imported: ${head}${more}`, { errors });
}

/** An archive (a .docx) over what one may hold or inflate to: refused whole, before it is read. */
export const archiveTooLarge = (file: string, reason: string) => new LoreError('payload_too_large', `${file} ${reason}; nothing was imported.`);

/** Collects problems while a reader works; `fail` throws them all at once. */
export class Problems {
  readonly list: Problem[] = [];
  add(origin: Origin, message: string) {
    this.list.push({ ...origin, message });
  }
  throwIfAny() {
    if (this.list.length > 0) throw manuscriptError(this.list);
  }
}

/** Text as the database stores it: refuses what PostgreSQL cannot hold and chapters over the limit. */
export function checkChapter(chapter: ManuscriptChapter, problems: Problems) {
  if (chapter.text.length > maxChapterChars) {
    problems.add(chapter.origin, `chapter "${chapter.title || chapter.id}" is ${chapter.text.length.toLocaleString('en')} characters long; a chapter may have at most ${maxChapterChars.toLocaleString('en')}`);
    return;
  }
  const parsed = chapterText.safeParse(chapter.text);
  if (!parsed.success) problems.add(chapter.origin, `chapter "${chapter.title || chapter.id}": ${parsed.error.issues[0].message}`);
}
