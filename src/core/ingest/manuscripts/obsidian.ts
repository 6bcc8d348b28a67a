// An Obsidian vault. A note whose YAML front matter says `type: character` (or location, object, event, rule,
// promise) is an entity: `name` (else the note's name), `aliases`, `facts`, `state`, `status`, and `relationships`
// (a kind to a link or a list of links: `sibling_of: "[[Keth Voss]]"`); bullet points under a "Facts" heading are facts
// too. A note is a chapter when it is in a folder named Chapters (configurable), is tagged #chapter, or says
// `type: chapter`; chapters are in natural order of their paths, or by their `order` number when they have one. Links
// read as the text they show: `[[Mara Voss|the Captain]]` reads "the Captain", and that text, when it has a capital,
// becomes an alias of the note it links to, so Lore finds it as a mention of her. Other notes are left out.
import YAML from 'yaml';
import { entityTypes, relationshipKind } from '../bundle.ts';
import { checkChapter, type Manuscript, type ManuscriptChapter, type ManuscriptEntity, type ManuscriptFile, type ManuscriptRelationship, type Origin, type Problems, type ReadOptions } from './manuscript.ts';
import { titledBody } from './markdown.ts';
import { assignIds, baseName, decodeText, naturalCompare, slug, splitFrontMatter, validId } from './text.ts';

const wikiLink = /(!?)\[\[([^\]|#^\n]*)(?:[#^][^\]|\n]*)?(?:\|([^\]\n]*))?\]\]/g;

/** A link's target as a note name: `Folder/Mara Voss` is the note Mara Voss. */
const targetName = (target: string) => target.trim().split('/').pop()!.replace(/\.md$/i, '');

/** Text with its links as they read: `[[Target|shown]]` is "shown", `[[Target]]` "Target"; embeds go. */
export function renderLinks(text: string): string {
  return text.replace(wikiLink, (_all, embed: string, target: string, shown: string | undefined) => (embed ? '' : (shown ?? targetName(target)).trim()));
}

type Note = {
  file: ManuscriptFile;
  fm: Record<string, unknown>;
  body: string;
  bodyLine: number;
  keyLine: (key: string) => number | undefined;
};

const asStrings = (value: unknown): string[] | undefined => {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  return undefined;
};

/** Strings anywhere in a value: an unquoted `[[Name]]` is YAML for a list in a list. */
const allStrings = (value: unknown): string[] => (typeof value === 'string' ? [value] : Array.isArray(value) ? value.flatMap(allStrings) : []);

function parseNote(file: ManuscriptFile, problems: Problems): Note | undefined {
  const text = decodeText(file, problems);
  if (text === undefined) return undefined;
  const front = splitFrontMatter(text);
  if (!front) return { file, fm: {}, body: text, bodyLine: 1, keyLine: () => undefined };
  const lineCounter = new YAML.LineCounter();
  const doc = YAML.parseDocument(front.yaml, { lineCounter, uniqueKeys: true });
  // The YAML starts on the file's second line.
  const fileLine = (offset: number) => lineCounter.linePos(offset).line + 1;
  if (doc.errors.length > 0) {
    for (const error of doc.errors) problems.add({ file: file.path, line: fileLine(error.pos[0]) }, `broken front matter: ${error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}`);
    return undefined;
  }
  let fm: unknown;
  try {
    fm = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    problems.add({ file: file.path, line: 2 }, `broken front matter: ${(error as Error).message}`);
    return undefined;
  }
  if (fm !== null && (typeof fm !== 'object' || Array.isArray(fm))) {
    problems.add({ file: file.path, line: 2 }, 'front matter must be a YAML mapping (key: value lines)');
    return undefined;
  }
  const keyLine = (key: string) => {
    if (!YAML.isMap(doc.contents)) return undefined;
    const pair = doc.contents.items.find((p) => YAML.isScalar(p.key) && p.key.value === key);
    const offset = pair && YAML.isScalar(pair.key) ? pair.key.range?.[0] : undefined;
    return offset === undefined ? undefined : fileLine(offset);
  };
  return { file, fm: (fm ?? {}) as Record<string, unknown>, body: front.body, bodyLine: front.bodyLine, keyLine };
}

const tagsOf = (note: Note): string[] => (asStrings(note.fm.tags) ?? []).map((t) => t.replace(/^#/, '').toLowerCase());
const inlineChapterTag = /(^|\s)#chapter\b/im;

/** Bullet points under a heading named Facts, until the next heading. */
function bodyFacts(note: Note): { text: string; line: number }[] {
  const facts: { text: string; line: number }[] = [];
  let inFacts = false;
  note.body.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    const heading = /^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$/.exec(line);
    if (heading) {
      inFacts = heading[1].trim().toLowerCase() === 'facts';
      return;
    }
    const bullet = inFacts ? /^[ \t]*[-*+][ \t]+(.*\S)[ \t]*$/.exec(line) : null;
    if (bullet) facts.push({ text: renderLinks(bullet[1]).trim(), line: note.bodyLine + i });
  });
  return facts.filter((f) => f.text);
}

export function readObsidianVault(files: ManuscriptFile[], options: ReadOptions, problems: Problems): Manuscript {
  const chaptersFolder = (options.chaptersFolder ?? 'Chapters').toLowerCase();
  const skipped: Manuscript['skipped'] = [];
  const notes: Note[] = [];
  for (const file of [...files].sort((a, b) => naturalCompare(a.path, b.path))) {
    if (file.path.split('/').some((part) => part.startsWith('.'))) {
      skipped.push({ file: file.path, reason: 'hidden (Obsidian settings or trash)' });
    } else if (!/\.md$/i.test(file.path)) {
      skipped.push({ file: file.path, reason: 'not a note (.md)' });
    } else {
      const note = parseNote(file, problems);
      if (note) notes.push(note);
    }
  }

  const entityNotes: Note[] = [];
  const chapterNotes: Note[] = [];
  for (const note of notes) {
    const type = typeof note.fm.type === 'string' ? note.fm.type.trim().toLowerCase() : undefined;
    const folders = note.file.path.split('/').slice(0, -1).map((f) => f.toLowerCase());
    if (type && (entityTypes as readonly string[]).includes(type)) entityNotes.push(note);
    else if (type === 'chapter' || tagsOf(note).includes('chapter') || folders.includes(chaptersFolder) || inlineChapterTag.test(note.body)) chapterNotes.push(note);
    else {
      const reason = type
        ? `type: ${type} is neither an entity type (${entityTypes.join(', ')}) nor chapter`
        : `neither an entity (front matter type: ${entityTypes.join(', ')}) nor a chapter (in a ${options.chaptersFolder ?? 'Chapters'} folder, tagged #chapter, or type: chapter)`;
      skipped.push({ file: note.file.path, reason });
    }
  }

  const entities = readEntities(entityNotes, problems);
  const byName = nameIndex(entities, problems);
  addLinkAliases(notes, entities, byName);
  const relationships = readRelationships(entities, byName, problems);
  const chapters = readChapters(chapterNotes, problems);
  return { chapters, entities: entities.map((e) => e.entity), relationships, skipped };
}

type ReadEntity = { note: Note; entity: ManuscriptEntity };

function readEntities(notes: Note[], problems: Problems): ReadEntity[] {
  const read: ReadEntity[] = [];
  for (const note of notes) {
    const { fm, file } = note;
    const at = (key: string): Origin => ({ file: file.path, line: note.keyLine(key) });
    const name = typeof fm.name === 'string' && fm.name.trim() ? fm.name.trim() : baseName(file.path);
    const aliases = asStrings(fm.aliases ?? fm.alias);
    if (!aliases) problems.add(at(fm.aliases !== undefined ? 'aliases' : 'alias'), 'aliases must be a name or a list of names');
    const factsValue = asStrings(fm.facts);
    if (!factsValue) problems.add(at('facts'), 'facts must be a sentence or a list of sentences');
    const state = fm.state ?? {};
    if (typeof state !== 'object' || state === null || Array.isArray(state)) problems.add(at('state'), 'state must be a mapping (key: value lines)');
    const status = fm.status ?? 'approved';
    if (status !== 'approved' && status !== 'suggested') problems.add(at('status'), 'status must be approved or suggested');
    if (fm.key !== undefined && (typeof fm.key !== 'string' || !validId.test(fm.key))) problems.add(at('key'), 'key must be letters, digits, _ . : or - (at most 100)');
    const facts = [
      ...(factsValue ?? []).map((text) => ({ text: renderLinks(text).trim(), origin: at('facts') })),
      ...bodyFacts(note).map((f) => ({ text: f.text, origin: { file: file.path, line: f.line } })),
    ].filter((f, i, all) => f.text && all.findIndex((g) => g.text === f.text) === i);
    read.push({
      note,
      entity: {
        key: '',
        type: String(fm.type).trim().toLowerCase(),
        name,
        aliases: [...new Set((aliases ?? []).map((a) => a.trim()).filter((a) => a && a.toLowerCase() !== name.toLowerCase()))],
        state: (typeof state === 'object' && state && !Array.isArray(state) ? state : {}) as Record<string, unknown>,
        facts,
        status: status === 'suggested' ? 'suggested' : 'approved',
        origin: { file: file.path, line: note.keyLine('type') },
      },
    });
  }
  const keys = assignIds(read, (r) => (typeof r.note.fm.key === 'string' ? r.note.fm.key : slug(baseName(r.note.file.path))), (r) => r.note.file.path, 'note');
  read.forEach((r, i) => (r.entity.key = keys[i]));
  return read;
}

/** Entities by lowercase name, alias and note name; a name two notes claim is a problem. */
function nameIndex(entities: ReadEntity[], problems: Problems): Map<string, ReadEntity> {
  const byName = new Map<string, ReadEntity>();
  for (const r of entities) {
    for (const name of [r.entity.name, ...r.entity.aliases]) {
      const other = byName.get(name.toLowerCase());
      if (other && other !== r) problems.add(r.entity.origin, `"${name}" is also a name or alias of ${other.note.file.path}: names and aliases are unique in a project`);
      else byName.set(name.toLowerCase(), r);
    }
  }
  for (const r of entities) {
    const note = baseName(r.note.file.path).toLowerCase();
    if (!byName.has(note)) byName.set(note, r);
  }
  return byName;
}

function addLinkAliases(notes: Note[], entities: ReadEntity[], byName: Map<string, ReadEntity>) {
  const added = new Map<ReadEntity, Set<string>>();
  for (const note of notes) {
    for (const match of note.body.matchAll(wikiLink)) {
      const [, embed, target, shown] = match;
      const shownText = shown?.trim();
      if (embed || !shownText || !/\p{Lu}/u.test(shownText)) continue;
      const entity = byName.get(targetName(target).toLowerCase());
      // Another entity's name stays that entity's.
      if (!entity || byName.has(shownText.toLowerCase())) continue;
      added.set(entity, (added.get(entity) ?? new Set()).add(shownText));
    }
  }
  for (const r of entities) {
    const more = [...(added.get(r) ?? [])].sort();
    r.entity.aliases.push(...more);
  }
}

function readRelationships(entities: ReadEntity[], byName: Map<string, ReadEntity>, problems: Problems): ManuscriptRelationship[] {
  const relationships: ManuscriptRelationship[] = [];
  for (const r of entities) {
    const { fm, file } = r.note;
    if (fm.relationships === undefined) continue;
    const origin = { file: file.path, line: r.note.keyLine('relationships') };
    if (typeof fm.relationships !== 'object' || fm.relationships === null || Array.isArray(fm.relationships)) {
      problems.add(origin, 'relationships must map a kind to a link or a list of links (sibling_of: "[[Keth Voss]]")');
      continue;
    }
    for (const [kind, value] of Object.entries(fm.relationships)) {
      if (!relationshipKind.safeParse(kind).success) {
        problems.add(origin, `relationship kind "${kind}" must be a word such as sibling_of`);
        continue;
      }
      for (const ref of allStrings(value)) {
        const target = targetName(/^\s*\[\[([^\]|#^]*)/.exec(ref)?.[1] ?? ref);
        const to = byName.get(target.toLowerCase());
        if (!to) problems.add(origin, `relationships.${kind}: "${ref}" is not an entity note of this vault`);
        else relationships.push({ from: r.entity.key, to: to.entity.key, kind, origin });
      }
    }
  }
  return relationships;
}

function readChapters(notes: Note[], problems: Problems): ManuscriptChapter[] {
  const orderOf = (note: Note) => (typeof note.fm.order === 'number' && Number.isFinite(note.fm.order) ? note.fm.order : Number.POSITIVE_INFINITY);
  for (const note of notes) {
    if (note.fm.order !== undefined && orderOf(note) === Number.POSITIVE_INFINITY) problems.add({ file: note.file.path, line: note.keyLine('order') }, 'order must be a number');
    if (note.fm.id !== undefined && (typeof note.fm.id !== 'string' || !validId.test(note.fm.id))) problems.add({ file: note.file.path, line: note.keyLine('id') }, 'id must be letters, digits, _ . : or - (at most 100)');
  }
  const sorted = [...notes].sort((a, b) => orderOf(a) - orderOf(b) || naturalCompare(a.file.path, b.file.path));
  const chapters = sorted.map((note) => {
    const { title, text } = titledBody(renderLinks(note.body), baseName(note.file.path));
    return { title: typeof note.fm.title === 'string' && note.fm.title.trim() ? note.fm.title.trim() : title, text, origin: { file: note.file.path, line: note.bodyLine } };
  });
  const ids = assignIds(chapters, (c, i) => (typeof sorted[i].fm.id === 'string' ? (sorted[i].fm.id as string) : c.origin.file.replace(/\.[^./]*$/, '').split('/').map(slug).filter(Boolean).join('.')), (c) => c.origin.file, 'chapter');
  const withIds = chapters.map((c, i) => ({ ...c, id: ids[i] }));
  for (const c of withIds) checkChapter(c, problems);
  return withIds;
}
