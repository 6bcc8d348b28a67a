// Imports a manuscript (any format the readers take) through the bundle importer, and with `sync` also removes the
// project's chapters the manuscript no longer has: a project kept in step with a book the writer goes on editing.
// The importer matches chapters on their ids, so only what changed is written, and only changed chapters' mentions
// are recorded again.
import type { PrismaClient } from '../../../generated/prisma/client.ts';
import type { ChapterService } from '../../canon/chapters.ts';
import { LoreError } from '../../errors.ts';
import type { ImportCounts, Importer } from '../importer.ts';
import { sha256 } from '../mentions.ts';
import { describeOrigin, type ManuscriptFile, type ManuscriptFormat, type ReadOptions, type SkippedFile } from './manuscript.ts';
import type { ManuscriptReader } from './readerPool.ts';

export const chapterChanges = ['added', 'edited', 'moved', 'retitled', 'removed'] as const;
export type ChapterChangeKind = (typeof chapterChanges)[number];
/** A chapter the import changed; `ordinal` and `file` are absent for a removed one. */
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
  /** also remove the project's chapters that are not in the manuscript */
  sync: boolean;
};

export type ManuscriptImportResult = {
  projectId: string;
  projectCreated: boolean;
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
};

type StoredChapter = { id: string; externalId: string; title: string; ordinal: number; contentHash: string };

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
    const { manuscript, name, bundle } = await this.reader.read(input.format, input.files, input.options, input.name);

    const { projectId: storedIn, chapters: stored } = await this.storedChapters(input.accountId, input.projectId, name);
    const byId = new Map(stored.map((c) => [c.externalId, c]));
    const wanted = new Set(manuscript.chapters.map((c) => c.id));
    const changes: ChapterChange[] = [];
    manuscript.chapters.forEach((c, i) => {
      const ordinal = i + 1;
      const current = byId.get(c.id);
      const title = c.title.slice(0, 300);
      const change: ChapterChangeKind | undefined = !current
        ? 'added'
        : current.contentHash !== sha256(c.text) ? 'edited' : current.ordinal !== ordinal ? 'moved' : current.title !== title ? 'retitled' : undefined;
      if (change) changes.push({ id: c.id, title, ordinal, file: describeOrigin(c.origin), change });
    });
    const removed = input.sync ? stored.filter((c) => !wanted.has(c.externalId)) : [];
    if (removed.length > 0) await this.requireRemovable(storedIn!, removed, input.format);

    const result = await this.importer.import({ accountId: input.accountId, principalKeyId: input.keyId, bundle, projectId: input.projectId, mayCreateProject: input.mayCreateProject });
    for (const chapter of removed) {
      await this.chapterService.delete(result.projectId, chapter.externalId);
      changes.push({ id: chapter.externalId, title: chapter.title, ordinal: null, file: null, change: 'removed' });
    }
    return {
      projectId: result.projectId,
      projectCreated: result.projectCreated,
      changed: result.changed || removed.length > 0,
      format: input.format,
      chapters: changes,
      unchangedChapters: manuscript.chapters.length - (changes.length - removed.length),
      chapterCount: manuscript.chapters.length,
      entityCount: manuscript.entities.length,
      relationshipCount: manuscript.relationships.length,
      counts: { ...result.counts, chaptersRemoved: removed.length },
      skipped: manuscript.skipped,
    };
  }

  /** The chapters the target project has now: by id, or the account's one project of that name (none: a new project). */
  private async storedChapters(accountId: string, projectId: string | undefined, name: string): Promise<{ projectId?: string; chapters: StoredChapter[] }> {
    const select = { id: true, externalId: true, title: true, ordinal: true, contentHash: true } as const;
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
