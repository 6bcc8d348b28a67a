// Imports a manuscript (any format the readers take) through the bundle importer, and with `sync` also removes the
// chapters it brought before and no longer has: a project kept in step with a book the writer goes on editing. Each
// chapter records its source (the manuscript's name), so a sync never removes chapters that came from elsewhere (a
// bundle, the API, another manuscript). The manuscript's chapters keep one run of the reading order: after the
// project's other chapters when it is new, where they were on a later sync, or after the chapter the writer names.
// The importer matches chapters on their ids, so only what changed is written, and only changed chapters' mentions
// are recorded again. A dry run says all this without writing.
import type { PrismaClient } from '../../../generated/prisma/client.ts';
import type { ChapterService } from '../../canon/chapters.ts';
import { LoreError } from '../../errors.ts';
import { noCounts, type ImportCounts, type Importer, type SkippedRetiredFact } from '../importer.ts';
import { sha256 } from '../mentions.ts';
import { describeOrigin, type ManuscriptChapter, type ManuscriptFile, type ManuscriptFormat, type ReadOptions, type SkippedFile } from './manuscript.ts';
import { manuscriptBundle } from './read.ts';
import type { ManuscriptReader } from './readerPool.ts';

export const chapterChanges = ['added', 'edited', 'moved', 'retitled', 'removed'] as const;
export type ChapterChangeKind = (typeof chapterChanges)[number];
/** A chapter the import changed; `ordinal` and `file` are absent for a removed one, `file` for another source's chapter it moved. */
export type ChapterChange = { id: string; title: string; ordinal: number | null; file: string | null; change: ChapterChangeKind };

export type ManuscriptImportInput = {
  accountId: string;
  keyId: string;
  /** the target project; absent: the account's project named `name`, created if needed and `mayCreateProject` */
  projectId?: string;
  /** the key has newProjectScope (src/core/access/tiers.ts) */
  mayCreateProject: boolean;
  name?: string;
  format: ManuscriptFormat;
  files: ManuscriptFile[];
  options: ReadOptions;
  /** also remove the chapters this manuscript brought before that it no longer has */
  sync: boolean;
  /** the manuscript's name in the project (default: the file's name for markdown and docx, else the format) */
  source?: string;
  /** put the manuscript's chapters right after this chapter of another source (default: where they are, else last) */
  after?: string;
  /** say what the import would do, writing nothing */
  dryRun: boolean;
};

export type FrontMatterPart = { file: string; line: number | null; text: string };

export type ManuscriptImportResult = {
  /** null only for a dry run into a project that does not exist yet */
  projectId: string | null;
  projectCreated: boolean;
  dryRun: boolean;
  changed: boolean;
  format: ManuscriptFormat;
  /** chapters added, edited, moved, retitled or removed, in reading order (removed ones last) */
  chapters: ChapterChange[];
  unchangedChapters: number;
  /** what the manuscript holds */
  chapterCount: number;
  entityCount: number;
  relationshipCount: number;
  counts: ImportCounts & { chaptersRemoved: number };
  skipped: SkippedFile[];
  /** text before the first chapter heading (a title page, a byline): not a chapter */
  frontMatter: FrontMatterPart[];
  retiredFactsSkipped: SkippedRetiredFact[];
};

type StoredChapter = { id: string; externalId: string; title: string; ordinal: number; contentHash: string; source: string };

/** Chapter.source of a manuscript's chapters. */
export const manuscriptSource = (name: string) => `manuscript:${name}`;

export class ManuscriptService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly importer: Importer,
    private readonly chapterService: ChapterService,
    private readonly reader: ManuscriptReader,
  ) {}

  /** Lets the reader threads go. */
  close() {
    return this.reader.close();
  }

  async import(input: ManuscriptImportInput): Promise<ManuscriptImportResult> {
    const { manuscript, name } = await this.reader.read(input.format, input.files, input.options, input.name);
    const source = manuscriptSource(input.source ?? (input.format === 'markdown' || input.format === 'docx' ? input.files[0].path : input.format));

    const { projectId: storedIn, chapters: stored } = await this.storedChapters(input.accountId, input.projectId, name);
    requireOwnIds(stored, manuscript.chapters, source, input.format);
    const plan = placement(stored, manuscript.chapters.map((c) => c.id), source, input.after, input.sync);
    const bundle = manuscriptBundle(manuscript, name, plan.first);
    const byId = new Map(stored.map((c) => [c.externalId, c]));
    const changes: ChapterChange[] = [];
    manuscript.chapters.forEach((c, i) => {
      const ordinal = plan.first + i;
      const current = byId.get(c.id);
      const title = c.title.slice(0, 300);
      const change: ChapterChangeKind | undefined = !current
        ? 'added'
        : current.contentHash !== sha256(c.text) ? 'edited' : current.ordinal !== ordinal ? 'moved' : current.title !== title ? 'retitled' : undefined;
      if (change) changes.push({ id: c.id, title, ordinal, file: describeOrigin(c.origin), change });
    });
    const ownChanges = changes.length;
    const removedIds = new Set(plan.removed.map((c) => c.externalId));
    for (const moved of plan.place) {
      if (removedIds.has(moved.externalId)) continue;
      const chapter = byId.get(moved.externalId)!;
      changes.push({ id: chapter.externalId, title: chapter.title, ordinal: moved.ordinal, file: null, change: 'moved' });
    }
    changes.sort((a, b) => a.ordinal! - b.ordinal!);
    if (plan.removed.length > 0) await this.requireRemovable(storedIn!, plan.removed, input.format);
    const removedChanges = plan.removed.map((c): ChapterChange => ({ id: c.externalId, title: c.title, ordinal: null, file: null, change: 'removed' }));
    const frontMatter = (manuscript.frontMatter ?? []).map((f) => ({ file: f.origin.file, line: f.origin.line ?? null, text: f.text }));
    const described = {
      format: input.format,
      unchangedChapters: manuscript.chapters.length - ownChanges,
      chapterCount: manuscript.chapters.length,
      entityCount: manuscript.entities.length,
      relationshipCount: manuscript.relationships.length,
      skipped: manuscript.skipped,
      frontMatter,
    };
    if (input.dryRun) {
      return {
        ...described, projectId: storedIn ?? null, projectCreated: !storedIn, dryRun: true, changed: changes.length + removedChanges.length > 0,
        chapters: [...changes, ...removedChanges], counts: { ...noCounts(), chaptersRemoved: 0 }, retiredFactsSkipped: [],
      };
    }

    const result = await this.importer.import({
      accountId: input.accountId,
      principalKeyId: input.keyId,
      bundle,
      projectId: input.projectId,
      mayCreateProject: input.mayCreateProject,
      how: { chapterSource: source, claimChapters: true, place: plan.place },
    });
    for (const chapter of plan.removed) await this.chapterService.delete(result.projectId, chapter.externalId);
    return {
      ...described,
      projectId: result.projectId,
      projectCreated: result.projectCreated,
      dryRun: false,
      changed: result.changed || plan.removed.length > 0,
      chapters: [...changes, ...removedChanges],
      counts: { ...result.counts, chaptersRemoved: plan.removed.length },
      retiredFactsSkipped: result.retiredFactsSkipped,
    };
  }

  /** The chapters the target project has now: by id, or the account's one project of that name (none: a new project). */
  private async storedChapters(accountId: string, projectId: string | undefined, name: string): Promise<{ projectId?: string; chapters: StoredChapter[] }> {
    const select = { id: true, externalId: true, title: true, ordinal: true, contentHash: true, source: true } as const;
    if (projectId) return { projectId, chapters: await this.prisma.chapter.findMany({ where: { projectId, project: { accountId } }, select }) };
    const named = await this.prisma.project.findMany({ where: { accountId, name }, select: { id: true }, take: 2 });
    // Two projects of one name: the importer refuses and lists them.
    if (named.length !== 1) return { chapters: [] };
    return { projectId: named[0].id, chapters: await this.prisma.chapter.findMany({ where: { projectId: named[0].id }, select }) };
  }

  /**
   * A chapter that live facts or state values hold from or until cannot go (chapters.ts refuses it too): checked for
   * every removed chapter before anything is written, so a refused sync writes nothing.
   */
  private async requireRemovable(projectId: string, removed: StoredChapter[], format: ManuscriptFormat) {
    const ids = removed.map((c) => c.id);
    const span = { projectId, OR: [{ fromChapterId: { in: ids } }, { untilChapterId: { in: ids } }] };
    const facts = await this.prisma.fact.findMany({ where: { ...span, retiredAt: null }, select: { id: true, text: true, fromChapterId: true, untilChapterId: true, entity: { select: { name: true } } }, orderBy: { id: 'asc' }, take: 200 });
    const values = await this.prisma.stateValue.findMany({ where: span, select: { id: true, key: true, fromChapterId: true, untilChapterId: true, entity: { select: { name: true } } }, orderBy: { id: 'asc' }, take: 200 });
    if (facts.length === 0 && values.length === 0) return;
    const externalOf = new Map(removed.map((c) => [c.id, c.externalId]));
    const errors: { path: string; message: string }[] = [];
    const users = [
      ...facts.map((f) => ({ ...f, what: `fact ${f.id} of ${f.entity.name} ("${f.text.slice(0, 60)}")` })),
      ...values.map((v) => ({ ...v, what: `state value ${v.key} (${v.id}) of ${v.entity.name}` })),
    ];
    for (const u of users) {
      for (const [rowId, relation] of [[u.fromChapterId, 'from'], [u.untilChapterId, 'until']] as const) {
        const chapter = rowId ? externalOf.get(rowId) : undefined;
        if (chapter) errors.push({ path: `chapter ${chapter}`, message: `is no longer in the manuscript, but ${u.what} holds ${relation} it` });
      }
    }
    const keepId =
      format === 'markdown' || format === 'docx'
        ? ' A renamed heading gets a new id: to keep the old one, end the heading with it, as in "# New title {#old-id}".'
        : '';
    throw new LoreError(
      'in_use',
      `The sync would remove ${new Set(errors.map((e) => e.path)).size} chapter(s) that the canon's story time still names; nothing was changed. Put the chapters back, or change or retire what holds from or until them first.${keepId}`,
      { errors },
    );
  }
}

/** How a chapter's source reads in a sentence. */
const describeSource = (source: string) =>
  source === 'bundle' ? 'a canon bundle' : source === 'api' ? 'the API' : source.startsWith('manuscript:') ? `the manuscript "${source.slice('manuscript:'.length)}"` : source;

/**
 * A manuscript's chapter whose id is already a chapter of another source (a bundle, the API, another manuscript) would
 * take that chapter over, its text replaced and a later sync free to remove it: refused, every such id named, before
 * anything is written. Chapters older than sources ("unknown") are the manuscript's to take on.
 */
function requireOwnIds(stored: StoredChapter[], chapters: ManuscriptChapter[], source: string, format: ManuscriptFormat) {
  const byId = new Map(stored.map((c) => [c.externalId, c]));
  const errors = chapters.flatMap((c) => {
    const taken = byId.get(c.id);
    if (!taken || taken.source === source || taken.source === 'unknown') return [];
    return [{ path: describeOrigin(c.origin), message: `chapter id ${c.id} is already the project's chapter "${taken.title}" from ${describeSource(taken.source)}` }];
  });
  if (errors.length === 0) return;
  const rename =
    format === 'markdown' || format === 'docx'
      ? ' Give each of these chapters an id of its own by ending its heading with it, as in "# Title {#my-id}".'
      : ' Rename these chapters, or remove the project\'s chapters of those ids first.';
  throw new LoreError(
    'name_taken',
    `${errors.length} chapter(s) of the manuscript have the id of a chapter that came from elsewhere; a manuscript does not take over another source's chapters, so nothing was changed.${rename}`,
    { errors },
  );
}

/**
 * Where the manuscript's chapters go: one run of ordinals from `first`, after the chapters of other sources that come
 * before it (those up to `after`; else those before where its chapters are now; else all of them). The chapters after
 * the run keep their ordinals where they can and move up where they must (`place`). Chapters the manuscript brought
 * before and no longer has (`removed` by a sync) wait after everything until they are removed; without sync they stay,
 * right after the run.
 */
function placement(stored: StoredChapter[], ids: string[], source: string, after: string | undefined, sync: boolean) {
  const wanted = new Set(ids);
  const byOrdinal = [...stored].sort((a, b) => a.ordinal - b.ordinal);
  // A chapter of the manuscript's ids is its own (requireOwnIds refused those of other sources).
  const own = byOrdinal.filter((c) => wanted.has(c.externalId));
  const gone = byOrdinal.filter((c) => !wanted.has(c.externalId) && c.source === source);
  const others = byOrdinal.filter((c) => !wanted.has(c.externalId) && c.source !== source);
  let before: StoredChapter[];
  if (after !== undefined) {
    const anchor = others.find((c) => c.externalId === after);
    if (!anchor) {
      const why = stored.some((c) => c.externalId === after) ? 'is one of this manuscript\'s own chapters' : 'is not a chapter of the project';
      throw new LoreError('validation_error', `after: chapter ${after} ${why}; name a chapter the manuscript's chapters should follow.`, { errors: [{ path: 'after', message: `chapter ${after} ${why}` }] });
    }
    before = others.filter((c) => c.ordinal <= anchor.ordinal);
  } else if (own.length + gone.length > 0) {
    const start = Math.min(...[...own, ...gone].map((c) => c.ordinal));
    before = others.filter((c) => c.ordinal < start);
  } else {
    before = others;
  }
  const first = (before.at(-1)?.ordinal ?? 0) + 1;
  const rest = others.filter((c) => !before.includes(c));
  const place: { externalId: string; ordinal: number }[] = [];
  let previous = first + ids.length - 1;
  const follow = (chapters: StoredChapter[], keep: boolean) => {
    for (const c of chapters) {
      const ordinal = keep ? Math.max(c.ordinal, previous + 1) : previous + 1;
      if (ordinal !== c.ordinal) place.push({ externalId: c.externalId, ordinal });
      previous = ordinal;
    }
  };
  if (!sync) follow(gone, false);
  follow(rest, true);
  if (sync) follow(gone, true);
  return { first, place, removed: sync ? gone : [] };
}
