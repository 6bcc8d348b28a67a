// Markdown and plain text: one file cut into chapters at its headings, or a folder with one chapter per file.
import { checkChapter, type FrontMatterText, type Manuscript, type ManuscriptChapter, type ManuscriptFile, type Problems, type ReadOptions } from './manuscript.ts';
import { assignIds, baseName, chapterLevel, decodeText, naturalCompare, slug, splitAtHeadings, splitFrontMatter, type Section } from './text.ts';

export const textFileName = /\.(md|markdown|txt)$/i;

/**
 * Chapters from sections cut at headings: a blank part heading followed by deeper headings ("# Part One" then
 * "## Chapter 1") is a divider, not a chapter. What comes before the first chapter heading (a title page, a byline,
 * the text under the book's own title) is front matter, not a chapter; a text with no heading at all is one chapter
 * named after the file.
 */
export function chaptersFromSections(sections: Section[], level: number, file: string, titleFromLevel1: boolean): { title?: string; chapters: Omit<ManuscriptChapter, 'id'>[]; wanted: string[]; frontMatter: FrontMatterText[] } {
  let title: string | undefined;
  const chapters: Omit<ManuscriptChapter, 'id'>[] = [];
  const wanted: string[] = [];
  const frontMatter: FrontMatterText[] = [];
  const hasHeadings = sections.some((s) => s.level > 0);
  const hasChapterHeadings = sections.some((s) => s.level === 2);
  sections.forEach((s, i) => {
    const isTitle = titleFromLevel1 && s.level === 1 && hasChapterHeadings;
    if (titleFromLevel1 && s.level === 1) {
      title = s.title;
      if (!s.text.trim()) return;
    }
    if ((s.level === 0 && hasHeadings) || isTitle) {
      if (s.text.trim()) frontMatter.push({ text: trimBlankEdges(s.text), origin: { file, line: s.line } });
      return;
    }
    const next = sections[i + 1];
    if (s.level > 0 && s.level < level && !s.text.trim() && next && next.level > s.level) return;
    chapters.push({ title: s.level === 0 ? baseName(file) : s.title, text: trimBlankEdges(s.text), origin: { file, line: s.line } });
    wanted.push(s.explicitId ?? slug(s.level === 0 ? baseName(file) : s.title));
  });
  return { title, chapters, wanted, frontMatter };
}

/** Blank lines around a chapter's text go; its own lines keep their numbers relative to its first non-blank line. */
const trimBlankEdges = (text: string) => text.replace(/^(?:[ \t]*\r?\n)+/, '').replace(/(?:\r?\n[ \t]*)+$/, '');

/** A note's title and text: its first line when that is a heading (then the text is what follows), else `fallback`. */
export function titledBody(body: string, fallback: string): { title: string; text: string } {
  const lines = body.split('\n');
  const first = lines.findIndex((l) => l.trim() !== '');
  const heading = first >= 0 ? /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*\r?$/.exec(lines[first]) : null;
  return heading ? { title: heading[1].trim(), text: trimBlankEdges(lines.slice(first + 1).join('\n')) } : { title: fallback, text: trimBlankEdges(body) };
}

/** One Markdown or text file cut into chapters at `#` (and `##`) headings. */
export function readMarkdownFile(file: ManuscriptFile, options: ReadOptions, problems: Problems): Manuscript {
  const skipped: Manuscript['skipped'] = [];
  const decoded = decodeText(file, problems);
  if (decoded === undefined) return { chapters: [], entities: [], relationships: [], skipped };
  const front = splitFrontMatter(decoded);
  const body = front ? front.body : decoded;
  const firstLine = front ? front.bodyLine : 1;
  const { level, titleFromLevel1 } = chapterLevel(splitAtHeadings(body, 2, firstLine).map((s) => s.level).filter((l) => l > 0), options.headingLevel);
  const sections = splitAtHeadings(body, level, firstLine);
  const { title, chapters, wanted, frontMatter } = chaptersFromSections(sections, level, file.path, titleFromLevel1);
  const ids = assignIds(chapters, (_c, i) => wanted[i], (c) => c.title || String(c.origin.line), 'chapter');
  const withIds = chapters.map((c, i) => ({ ...c, id: ids[i] }));
  for (const c of withIds) checkChapter(c, problems);
  return { title, chapters: withIds, entities: [], relationships: [], skipped, frontMatter };
}

/**
 * A folder of Markdown or text files, one chapter each, in natural order of their paths. A file's first line, when it
 * is a heading, is the chapter's title (else the file's name); its id is its path without the extension.
 */
export function readMarkdownFolder(files: ManuscriptFile[], problems: Problems): Manuscript {
  const skipped: Manuscript['skipped'] = [];
  const texts = files.filter((f) => {
    if (textFileName.test(f.path)) return true;
    skipped.push({ file: f.path, reason: 'not a .md, .markdown or .txt file' });
    return false;
  });
  texts.sort((a, b) => naturalCompare(a.path, b.path));
  const chapters: Omit<ManuscriptChapter, 'id'>[] = [];
  for (const file of texts) {
    const decoded = decodeText(file, problems);
    if (decoded === undefined) continue;
    const front = splitFrontMatter(decoded);
    const body = front ? front.body : decoded;
    const firstLine = front ? front.bodyLine : 1;
    const { title, text } = titledBody(body, baseName(file.path));
    chapters.push({ title, text, origin: { file: file.path, line: firstLine } });
  }
  const ids = assignIds(chapters, (c) => c.origin.file.replace(/\.[^./]*$/, '').split('/').map(slug).filter(Boolean).join('.'), (c) => c.origin.file, 'chapter');
  const withIds = chapters.map((c, i) => ({ ...c, id: ids[i] }));
  for (const c of withIds) checkChapter(c, problems);
  return { chapters: withIds, entities: [], relationships: [], skipped };
}
