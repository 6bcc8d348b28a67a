// Manuscripts of every format, written by the tests themselves: a Markdown book, a folder of chapters, a .docx made
// with the docx library, a minimal Scrivener 3 project (.scrivx XML and RTF documents) and a small Obsidian vault.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import zlib from 'node:zlib';
import path from 'node:path';
import { Document, HeadingLevel, Packer, Paragraph, TextRun } from 'docx';

export const tempDir = (prefix: string) => mkdtemp(path.join(tmpdir(), `lore-${prefix}-`));

export async function writeFiles(root: string, files: Record<string, string | Buffer>) {
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, relative);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
}

/** A Markdown book: a title, then chapters at level 2. */
export const markdownBook = (chapters: { title: string; text: string; id?: string }[], title = 'The Saltmarsh') =>
  [`# ${title}`, '', ...chapters.flatMap((c) => [`## ${c.title}${c.id ? ` {#${c.id}}` : ''}`, '', c.text, ''])].join('\n');

/** A .docx with a Heading 1 per chapter and a paragraph per line of its text. */
export async function docxBook(chapters: { title: string; text: string }[]): Promise<Buffer> {
  const doc = new Document({
    sections: [
      {
        children: chapters.flatMap((c) => [
          new Paragraph({ text: c.title, heading: HeadingLevel.HEADING_1 }),
          ...c.text.split('\n').map((line) => new Paragraph({ children: [new TextRun(line)] })),
        ]),
      },
    ],
  });
  return Packer.toBuffer(doc);
}

/** RTF as Scrivener 3 on a Mac writes it: Cocoa's header, paragraphs ended by a backslash and a line break, \u escapes. */
export function cocoaRtf(text: string): string {
  const escape = (line: string) =>
    [...line].map((c) => (c === '\\' || c === '{' || c === '}' ? `\\${c}` : c.codePointAt(0)! > 127 ? `\\uc0\\u${c.codePointAt(0)} ` : c)).join('');
  return [
    '{\\rtf1\\ansi\\ansicpg1252\\cocoartf2639',
    '\\cocoatextscaling0\\cocoaplatform0{\\fonttbl\\f0\\fnil\\fcharset0 Palatino-Roman;}',
    '{\\colortbl;\\red255\\green255\\blue255;}',
    '{\\*\\expandedcolortbl;;}',
    '\\pard\\tx360\\tx720\\pardirnatural\\partightenfactor0',
    '',
    `\\f0\\fs26 \\cf0 ${text.split('\n').map(escape).join('\\\n')}}`,
  ].join('\n');
}

export type BinderItem = { uuid: string; title: string; type?: 'Text' | 'Folder'; text?: string; include?: boolean; children?: BinderItem[] };

/** A minimal Scrivener 3 project: the .scrivx binder (Draft, Research) and each document's content.rtf. */
export async function writeScrivener(dir: string, draft: BinderItem[], research: BinderItem[] = []) {
  const files: Record<string, string> = {};
  const item = (i: BinderItem): string => {
    if (i.text !== undefined) files[`Files/Data/${i.uuid}/content.rtf`] = cocoaRtf(i.text);
    const meta = i.include === false ? '<MetaData><IncludeInCompile>No</IncludeInCompile></MetaData>' : '<MetaData><IncludeInCompile>Yes</IncludeInCompile></MetaData>';
    const children = i.children ? `<Children>${i.children.map(item).join('')}</Children>` : '';
    return `<BinderItem UUID="${i.uuid}" Type="${i.type ?? 'Text'}" Created="2026-01-01 10:00:00 +0000" Modified="2026-01-01 10:00:00 +0000"><Title>${i.title.replace(/&/g, '&amp;')}</Title>${meta}${children}</BinderItem>`;
  };
  const binder = [
    `<BinderItem UUID="0D4B7E2A-0000-4000-8000-000000000001" Type="DraftFolder"><Title>Draft</Title><Children>${draft.map(item).join('')}</Children></BinderItem>`,
    `<BinderItem UUID="0D4B7E2A-0000-4000-8000-000000000002" Type="ResearchFolder"><Title>Research</Title><Children>${research.map(item).join('')}</Children></BinderItem>`,
  ].join('\n');
  files[`${path.basename(dir).replace(/\.scriv$/, '')}.scrivx`] =
    `<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<ScrivenerProject Template="NO" Version="2.0" Identifier="4E1C2C52-1B7D-4E0B-9F57-0D1F3E0C9A11" Creator="SCRMAC-3.3.6-17424">\n<Binder>\n${binder}\n</Binder>\n</ScrivenerProject>\n`;
  await writeFiles(dir, files);
}

/** A small vault: two characters (one with facts, state and a relationship), a ship, two chapters and a stray note. */
export const saltmarshVault = (): Record<string, string> => ({
  '.obsidian/app.json': '{}',
  'Characters/Mara Voss.md': [
    '---',
    'type: character',
    'aliases: [Mara]',
    'facts:',
    '  - "Mara\'s eyes are green."',
    'state:',
    '  status: alive',
    'relationships:',
    '  sibling_of: "[[Keth Voss]]"',
    '---',
    '# Mara Voss',
    '',
    '## Facts',
    '- She captains the [[Gull]].',
  ].join('\n'),
  'Characters/Keth Voss.md': ['---', 'type: character', 'aliases: Keth', '---', 'Her younger brother.'].join('\n'),
  'Things/Gull.md': ['---', 'type: object', 'name: The Gull', 'aliases: [Gull]', '---', 'A fishing boat.'].join('\n'),
  'Chapters/01 Low Tide.md': ['# Low Tide', '', '[[Mara Voss|The Captain]] stood on the deck of the [[Gull]].', 'Keth watched her. ![[map.png]]'].join('\n'),
  'Chapters/02 High Water.md': ['---', 'title: High Water', '---', 'Mara Voss sailed at dawn.'].join('\n'),
  'Ideas.md': 'Things to write about one day.',
});

/**
 * A zip bomb dressed as a .docx: a Word document whose word/document.xml inflates to `inflatedBytes` of one short
 * paragraph repeated, deflated as a stream (400 MB are about 1 MB, like the one in issue 25). With `declared`, the
 * central directory claims that many bytes for it instead of the truth, as a forged archive does.
 */
export async function docxBomb(inflatedBytes: number, declared = inflatedBytes): Promise<Buffer> {
  const document = await bombDocument(inflatedBytes);
  const stored = (name: string, text: string) => ({ name, data: Buffer.from(text), crc: zlib.crc32(text), declared: text.length, method: 0 });
  return zipArchive([
    stored('[Content_Types].xml', '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'),
    stored('_rels/.rels', '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>'),
    { name: 'word/document.xml', ...document, declared, method: 8 },
  ]);
}

// Deflating hundreds of megabytes takes seconds: each size is deflated once per test file.
const bombDocuments = new Map<number, Promise<{ data: Buffer; crc: number }>>();
function bombDocument(inflatedBytes: number) {
  let made = bombDocuments.get(inflatedBytes);
  if (!made) bombDocuments.set(inflatedBytes, (made = deflateBombDocument(inflatedBytes)));
  return made;
}

async function deflateBombDocument(inflatedBytes: number): Promise<{ data: Buffer; crc: number }> {
  const head = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
  const tail = '</w:body></w:document>';
  const paragraph = '<w:p><w:r><w:t>Mara stood on the quay.</w:t></w:r></w:p>';
  const filler = Buffer.from(paragraph.repeat(Math.floor((1024 * 1024) / paragraph.length)));
  const deflate = zlib.createDeflateRaw({ level: 9 });
  const compressed: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => compressed.push(chunk));
  const ended = new Promise((resolve, reject) => deflate.on('end', resolve).on('error', reject));
  let crc = 0;
  const write = async (chunk: Buffer) => {
    crc = zlib.crc32(chunk, crc);
    if (!deflate.write(chunk)) await new Promise((resolve) => deflate.once('drain', resolve));
  };
  await write(Buffer.from(head));
  // Whole paragraphs, then spaces (which XML allows between elements) to the exact size.
  let left = inflatedBytes - head.length - tail.length;
  while (left >= filler.length) {
    await write(filler);
    left -= filler.length;
  }
  const paragraphs = Math.floor(left / paragraph.length);
  await write(Buffer.from(paragraph.repeat(paragraphs) + ' '.repeat(left - paragraphs * paragraph.length)));
  await write(Buffer.from(tail));
  deflate.end();
  await ended;
  return { data: Buffer.concat(compressed), crc };
}

/** A zip archive of entries already compressed (method 8: deflate, 0: stored), each declaring `declared` bytes inflated. */
function zipArchive(entries: { name: string; data: Buffer; crc: number; declared: number; method: number }[]): Buffer {
  const parts: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(e.method, 8);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(e.crc >>> 0, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.declared, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(e.method, 10);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(e.crc >>> 0, 16);
    central.writeUInt32LE(e.data.length, 20);
    central.writeUInt32LE(e.declared, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    parts.push(local, name, e.data);
    directory.push(central, name);
    offset += local.length + name.length + e.data.length;
  }
  const directoryBytes = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directoryBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, directoryBytes, end]);
}
