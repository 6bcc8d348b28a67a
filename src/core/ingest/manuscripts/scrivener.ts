// A Scrivener 3 project (.scriv folder): the binder's order and titles from its .scrivx XML (fast-xml-parser), the
// text of each document from Files/Data/<UUID>/content.rtf. Each item directly in the Draft folder is a chapter (its id
// is its binder UUID); a folder's text is its own followed by its documents', in binder order. Items marked not to be
// included in the compile are left out, like Research and Trash.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { checkChapter, type Manuscript, type ManuscriptChapter, type ManuscriptFile, type Problems } from './manuscript.ts';
import { RtfError, rtfToText } from './rtf.ts';
import { decodeText, lineAt, validId } from './text.ts';

type BinderItem = {
  '@_UUID'?: string;
  '@_ID'?: string;
  '@_Type'?: string;
  Title?: string;
  MetaData?: { IncludeInCompile?: string };
  Children?: { BinderItem?: BinderItem[] };
};

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  htmlEntities: true,
  isArray: (name) => name === 'BinderItem',
});

export function readScrivener(files: ManuscriptFile[], problems: Problems): Manuscript {
  const empty: Manuscript = { chapters: [], entities: [], relationships: [], skipped: [] };
  const projects = files.filter((f) => /^[^/]+\.scrivx$/i.test(f.path));
  if (projects.length !== 1) {
    problems.add({ file: '(folder)' }, projects.length === 0 ? 'has no .scrivx file: it is not a Scrivener project folder' : `has ${projects.length} .scrivx files (${projects.map((p) => p.path).join(', ')}); a Scrivener project has one`);
    return empty;
  }
  const project = projects[0];
  const xml = decodeText(project, problems);
  if (xml === undefined) return empty;
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    problems.add({ file: project.path, line: valid.err.line }, `is not well-formed XML: ${valid.err.msg}`);
    return empty;
  }
  // Scrivener writes no DTD; one that declares entities is refused before the parser expands anything.
  const entity = /<!ENTITY\b/i.exec(xml);
  if (entity) {
    problems.add({ file: project.path, line: lineAt(xml, entity.index) }, 'declares XML entities (<!ENTITY …>); a Scrivener project file has none, and they are not read');
    return empty;
  }
  let root: { ScrivenerProject?: { Binder?: { BinderItem?: BinderItem[] } } };
  try {
    root = parser.parse(xml);
  } catch (error) {
    problems.add({ file: project.path }, `cannot be read as a Scrivener project file: ${(error as Error).message.split('\n')[0]}`);
    return empty;
  }
  const top = root.ScrivenerProject?.Binder?.BinderItem;
  if (!top) {
    problems.add({ file: project.path }, 'has no <ScrivenerProject><Binder>: it is not a Scrivener project file');
    return empty;
  }
  const draft = top.find((item) => item['@_Type'] === 'DraftFolder');
  if (!draft) {
    problems.add({ file: project.path }, 'has no Draft folder in its binder');
    return empty;
  }
  if (!draft['@_UUID'] && draft['@_ID'] !== undefined) {
    problems.add({ file: project.path }, 'is a Scrivener 2 project: open it in Scrivener 3 once, which updates it, then import it again');
    return empty;
  }

  const rtfByUuid = new Map<string, ManuscriptFile>();
  for (const f of files) {
    const match = /^Files\/Data\/([^/]+)\/content\.rtf$/i.exec(f.path);
    if (match) rtfByUuid.set(match[1].toLowerCase(), f);
  }
  const skipped: Manuscript['skipped'] = [];
  const included = (item: BinderItem) => item.MetaData?.IncludeInCompile?.trim().toLowerCase() !== 'no';
  const textOf = (item: BinderItem): string[] => {
    const own: string[] = [];
    const rtf = item['@_UUID'] ? rtfByUuid.get(item['@_UUID'].toLowerCase()) : undefined;
    if (rtf) {
      try {
        own.push(rtfToText(rtf.content).text.replace(/\n+$/, ''));
      } catch (error) {
        if (!(error instanceof RtfError)) throw error;
        problems.add({ file: rtf.path }, `(${item.Title ?? 'untitled'}) ${error.message}`);
      }
    }
    for (const child of item.Children?.BinderItem ?? []) {
      if (included(child)) own.push(...textOf(child));
      else skipped.push({ file: `${project.path} ${child.Title ?? child['@_UUID']}`, reason: 'not included in the compile' });
    }
    return own.filter((t) => t.trim() !== '');
  };

  const chapters: ManuscriptChapter[] = [];
  for (const item of draft.Children?.BinderItem ?? []) {
    const uuid = item['@_UUID'];
    const title = (item.Title ?? '').trim();
    if (!uuid || !validId.test(uuid)) {
      problems.add({ file: project.path }, `binder item "${title}" has no usable UUID`);
      continue;
    }
    if (!included(item)) {
      skipped.push({ file: `${project.path} ${title || uuid}`, reason: 'not included in the compile' });
      continue;
    }
    const rtf = rtfByUuid.get(uuid.toLowerCase());
    chapters.push({ id: uuid, title: title.slice(0, 300), text: textOf(item).join('\n\n'), origin: { file: rtf?.path ?? project.path } });
  }
  for (const c of chapters) checkChapter(c, problems);
  return { chapters, entities: [], relationships: [], skipped };
}
