// Text helpers the readers share: strict UTF-8 decoding, YAML front matter, natural file order, stable ids and the
// split of a text at its headings.
import { createHash } from 'node:crypto';
import type { Problems } from './manuscript.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A text file's content, or a problem when it is not UTF-8 text (a binary file behind a .md name, for example). */
export function decodeText(file: { path: string; content: Buffer }, problems: Problems): string | undefined {
  let text: string;
  try {
    text = utf8.decode(file.content);
  } catch {
    problems.add({ file: file.path }, 'is not UTF-8 text: is it really the kind of file its name says?');
    return undefined;
  }
  const nul = text.indexOf('\0');
  if (nul >= 0) {
    problems.add({ file: file.path, line: lineAt(text, nul) }, 'holds NUL characters: it is a binary file, not text');
    return undefined;
  }
  return text.replace(/^\uFEFF/, '');
}

/** The 1-based line of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

export type FrontMatter = { yaml: string; body: string; bodyLine: number };

/**
 * YAML front matter: a first line `---`, the YAML, a line `---` (or `...`). The body keeps its own lines; `bodyLine` is
 * the file line its first line is on.
 */
export function splitFrontMatter(text: string): FrontMatter | undefined {
  const lines = text.split('\n');
  if (lines[0]?.replace(/\r$/, '') !== '---') return undefined;
  const end = lines.findIndex((line, i) => i > 0 && /^(---|\.\.\.)\r?$/.test(line));
  if (end < 0) return undefined;
  return { yaml: lines.slice(1, end).join('\n'), body: lines.slice(end + 1).join('\n'), bodyLine: end + 2 };
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
/** Natural order of paths: "2 Storm.md" before "10 Calm.md"; folders part by part. */
export function naturalCompare(a: string, b: string): number {
  const pa = a.split('/');
  const pb = b.split('/');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const c = collator.compare(pa[i], pb[i]) || (pa[i] < pb[i] ? -1 : pa[i] > pb[i] ? 1 : 0);
    if (c !== 0) return c;
  }
  return pa.length - pb.length;
}

/** A word of lowercase ASCII letters, digits and dashes; empty when nothing of the text is Latin. */
export function slug(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
}

export const shortHash = (text: string, length = 8) => createHash('sha256').update(text).digest('hex').slice(0, length);

/** Ids as chapter ids and entity keys take them: letters, digits, _ . : - and at most 100 characters. */
export const validId = /^[A-Za-z0-9_.:-]{1,100}$/;

/**
 * Gives each item a stable, unique id: its wanted id (from a slug), numbered in order when two items want the same
 * one (`-2`, `-3`: the order is the manuscript's, so it stays put while the manuscript does); an item with no usable
 * wanted id gets `fallback` and a hash of where it comes from.
 */
export function assignIds<T>(items: T[], wanted: (item: T, index: number) => string, source: (item: T) => string, fallback: string): string[] {
  const taken = new Set<string>();
  return items.map((item, index) => {
    let base = wanted(item, index);
    if (!base || !validId.test(base)) base = `${fallback}-${shortHash(source(item))}`;
    let id = base;
    for (let n = 2; taken.has(id.toLowerCase()); n++) id = `${base.slice(0, 95)}-${n}`;
    taken.add(id.toLowerCase());
    return id;
  });
}

export type Section = { level: number; title: string; explicitId?: string; text: string; line: number };

const atxHeading = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const fence = /^ {0,3}(`{3,}|~{3,})/;
const explicitIdAttribute = /[ \t]*\{#([A-Za-z0-9_.:-]{1,100})\}$/;

/**
 * The text cut at ATX headings (`#`, `##`) of at most `level`, outside fenced code. The text before the first such
 * heading is a section of level 0 (when not blank). A heading may name its id: `# The Storm {#ch-storm}`. A section's
 * text is what follows its heading line; `line` is the heading's line (the first line for level 0).
 */
export function splitAtHeadings(text: string, level: number, firstLine = 1): Section[] {
  const lines = text.split('\n');
  const sections: Section[] = [];
  let current: Section & { lines: string[] } = { level: 0, title: '', text: '', line: firstLine, lines: [] };
  let open: string | undefined;
  const close = () => {
    const body = current.lines.join('\n');
    if (current.level > 0 || body.trim()) sections.push({ level: current.level, title: current.title, explicitId: current.explicitId, text: body, line: current.line });
  };
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    const fenceMatch = fence.exec(line);
    if (fenceMatch) {
      if (!open) open = fenceMatch[1][0];
      else if (fenceMatch[1][0] === open) open = undefined;
    }
    const heading = open ? null : atxHeading.exec(line);
    if (heading && heading[1].length <= level) {
      close();
      const explicit = explicitIdAttribute.exec(heading[2]);
      const title = (explicit ? heading[2].slice(0, explicit.index) : heading[2]).trim();
      current = { level: heading[1].length, title, explicitId: explicit?.[1], text: '', line: firstLine + i, lines: [] };
      return;
    }
    current.lines.push(raw);
  });
  close();
  return sections;
}

/**
 * Which heading level makes chapters when the writer did not say: a file with more than one level-1 heading is cut
 * there; one with a single level-1 heading has it as the book's title and is cut at level 2.
 */
export function chapterLevel(levels: number[], asked: 1 | 2 | undefined): { level: 1 | 2; titleFromLevel1: boolean } {
  const ones = levels.filter((l) => l === 1).length;
  if (asked === 1) return { level: 1, titleFromLevel1: false };
  if (asked === 2) return { level: 2, titleFromLevel1: ones === 1 };
  return ones === 1 && levels.some((l) => l === 2) ? { level: 2, titleFromLevel1: true } : { level: 1, titleFromLevel1: false };
}

/** A file's name without its folder and extension. */
export const baseName = (path: string) => path.split('/').pop()!.replace(/\.[^.]*$/, '');
