// Word .docx, read with mammoth: chapters at Heading 1 (and Heading 2) paragraphs; each paragraph is one line of its
// chapter, so a line number is a paragraph number.
import mammoth from 'mammoth';
import { ArchiveCorrupt, ArchiveTooLarge, openArchive, type Archive } from './archive.ts';
import { archiveTooLarge, checkChapter, type Manuscript, type ManuscriptFile, type Problems, type ReadOptions } from './manuscript.ts';
import { chaptersFromSections } from './markdown.ts';
import { assignIds, chapterLevel, type Section } from './text.ts';

type Element = { type: string; value?: string; children?: Element[]; styleId?: string | null; styleName?: string | null; breakType?: string };

// An OLE compound file: what Word writes for a password-protected document (and for a legacy .doc).
const compoundFileMagic = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const zipMagic = Buffer.from('PK');

const headingLevel = (p: Element) => {
  const match = /^heading\s*([1-6])$/i.exec(p.styleName ?? '') ?? /^heading([1-6])$/i.exec(p.styleId ?? '');
  return match ? Number(match[1]) : 0;
};

function textOf(element: Element): string {
  if (element.type === 'text') return element.value ?? '';
  if (element.type === 'tab') return '\t';
  if (element.type === 'break') return element.breakType === 'line' ? '\n' : '';
  return (element.children ?? []).map(textOf).join('');
}

/** Paragraphs in document order, tables' cells included. */
function paragraphs(element: Element, out: Element[] = []): Element[] {
  for (const child of element.children ?? []) {
    if (child.type === 'paragraph') out.push(child);
    else paragraphs(child, out);
  }
  return out;
}

async function documentOf(file: ManuscriptFile, problems: Problems): Promise<Element | undefined> {
  if (file.content.subarray(0, 8).equals(compoundFileMagic)) {
    problems.add({ file: file.path }, 'is encrypted (password-protected) or an old Word .doc file: save it from Word as a .docx without a password');
    return undefined;
  }
  if (!file.content.subarray(0, 2).equals(zipMagic)) {
    problems.add({ file: file.path }, 'is not a .docx file (a .docx is a zip archive; this one is not)');
    return undefined;
  }
  let document: Element | undefined;
  let archive: Archive | undefined;
  try {
    archive = await openArchive(file.content);
    await mammoth.convertToHtml(mammothInput(archive), {
      transformDocument: (element: Element) => {
        document = element;
        return element;
      },
      // Only the text is kept: pictures are never inflated.
      convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
    });
  } catch (error) {
    if (error instanceof ArchiveTooLarge) throw archiveTooLarge(file.path, error.message);
    const reason = error instanceof ArchiveCorrupt ? error.message : (error as Error).message.split('\n')[0];
    problems.add({ file: file.path }, `is a corrupt .docx file: ${reason}`);
    return undefined;
  } finally {
    archive?.close();
  }
  return document;
}

/**
 * The archive as mammoth's own zip reader presents it (mammoth 1.13 takes an opened one as `file`), so that what
 * mammoth reads is inflated once, by the bounded reader, never by its JSZip.
 */
function mammothInput(archive: Archive) {
  const file = {
    exists: (name: string) => archive.has(name),
    read: async (name: string, encoding?: string) => {
      const bytes = await archive.read(name);
      if (encoding === 'base64') return bytes.toString('base64');
      return encoding ? new TextDecoder(encoding).decode(bytes) : bytes;
    },
  };
  return { file } as unknown as { buffer: Buffer };
}

export async function readDocx(file: ManuscriptFile, options: ReadOptions, problems: Problems): Promise<Manuscript> {
  const document = await documentOf(file, problems);
  if (!document) return { chapters: [], entities: [], relationships: [], skipped: [] };
  const all = paragraphs(document);
  const { level, titleFromLevel1 } = chapterLevel(all.map(headingLevel).filter((l) => l === 1 || l === 2), options.headingLevel);
  const sections: Section[] = [];
  let current: Section & { lines: string[] } = { level: 0, title: '', text: '', line: 1, lines: [] };
  const close = () => {
    const text = current.lines.join('\n');
    if (current.level > 0 || text.trim()) sections.push({ ...current, text });
  };
  all.forEach((p, i) => {
    const text = textOf(p);
    const l = headingLevel(p);
    if (l > 0 && l <= level) {
      close();
      const explicit = /[ \t]*\{#([A-Za-z0-9_.:-]{1,100})\}$/.exec(text);
      current = { level: l, title: (explicit ? text.slice(0, explicit.index) : text).trim(), explicitId: explicit?.[1], text: '', line: i + 1, lines: [] };
    } else {
      current.lines.push(text);
    }
  });
  close();
  const { title, chapters, wanted, frontMatter } = chaptersFromSections(sections, level, file.path, titleFromLevel1);
  const ids = assignIds(chapters, (_c, i) => wanted[i], (c) => c.title || String(c.origin.line), 'chapter');
  const withIds = chapters.map((c, i) => ({ ...c, id: ids[i] }));
  for (const c of withIds) checkChapter(c, problems);
  return { title, chapters: withIds, entities: [], relationships: [], skipped: [], frontMatter };
}
