// What importing or syncing a manuscript did: the chapters it changed, the importer's counts, the files it left out.
import { chapterChanges, type ChapterChange, type ManuscriptImportResult as Result } from '../../src/core/ingest/manuscripts/manuscripts.ts';
import { manuscriptFormats, type SkippedFile } from '../../src/core/ingest/manuscripts/manuscript.ts';
import { fileEncodings } from '../../src/core/ingest/manuscripts/rules.ts';
import { builder } from '../builder.ts';
import { ImportCountsRef, SkippedRetiredFactRef } from './ImportResult.ts';
import type { FrontMatterPart } from '../../src/core/ingest/manuscripts/manuscripts.ts';

export const ManuscriptFormat = builder.enumType('ManuscriptFormat', {
  values: manuscriptFormats,
  description:
    'markdown: one Markdown or text file cut at its headings; markdown_folder: one chapter per file; docx: Word, cut at Heading 1/2; scrivener: a Scrivener 3 .scriv folder; obsidian: a vault (entity notes and chapter notes)',
});
export const ManuscriptFileEncoding = builder.enumType('ManuscriptFileEncoding', { values: fileEncodings });
export const ChapterChangeKind = builder.enumType('ChapterChangeKind', { values: chapterChanges });

export const ManuscriptFileInput = builder.inputType('ManuscriptFileInput', {
  fields: (t) => ({
    path: t.string({ required: true, description: "the file's path inside the manuscript (relative, / between folders); for a single file, its name" }),
    content: t.string({ required: true, description: 'the content: text, or base64 for a binary file (a .docx)' }),
    encoding: t.field({ type: ManuscriptFileEncoding, description: 'utf8 (default) or base64' }),
  }),
});

export const ManuscriptOptionsInput = builder.inputType('ManuscriptOptionsInput', {
  fields: (t) => ({
    headingLevel: t.int({ description: 'markdown, docx: cut chapters at level-1 headings only (1) or at levels 1 and 2 (2); default: at level 1, or at level 2 under a single level-1 title' }),
    chaptersFolder: t.string({ description: 'obsidian: the folder whose notes are chapters (default Chapters)' }),
  }),
});

const ChapterChangeRef = builder.objectRef<ChapterChange>('ChapterChange').implement({
  fields: (t) => ({
    id: t.exposeString('id', { description: 'the chapter id (stable per source: a heading, a file path, a binder id)' }),
    title: t.exposeString('title'),
    ordinal: t.exposeInt('ordinal', { nullable: true, description: 'its place in reading order; absent for a removed chapter' }),
    file: t.exposeString('file', { nullable: true, description: 'the file (and line) it comes from; absent for a removed chapter' }),
    change: t.expose('change', { type: ChapterChangeKind, description: 'added, edited (its text), moved (its place), retitled, or removed (sync)' }),
  }),
});

const SkippedFileRef = builder.objectRef<SkippedFile>('SkippedFile').implement({
  fields: (t) => ({ file: t.exposeString('file'), reason: t.exposeString('reason') }),
});

const ManuscriptCounts = builder.objectRef<Result['counts']>('ManuscriptImportCounts').implement({
  fields: (t) => ({
    importer: t.field({ type: ImportCountsRef, description: 'what the bundle importer wrote', resolve: (c) => c }),
    chaptersRemoved: t.exposeInt('chaptersRemoved', { description: 'chapters a sync removed' }),
  }),
});

const FrontMatterRef = builder.objectRef<FrontMatterPart>('FrontMatter').implement({
  description: "Text before a manuscript's first chapter heading (a title page, a byline): kept here, not a chapter",
  fields: (t) => ({
    file: t.exposeString('file'),
    line: t.exposeInt('line', { nullable: true, description: 'its first line (1-based)' }),
    text: t.exposeString('text'),
  }),
});

export const ManuscriptImportResult = builder.objectRef<Result>('ManuscriptImportResult').implement({
  fields: (t) => ({
    projectId: t.exposeString('projectId', { nullable: true, description: 'absent only for a dry run into a project that does not exist yet' }),
    projectCreated: t.exposeBoolean('projectCreated', { description: 'a dry run: whether the import would create it' }),
    dryRun: t.exposeBoolean('dryRun', { description: 'true: nothing was written; chapters says what the import would do and counts are 0' }),
    changed: t.exposeBoolean('changed', { description: 'false when the project already held the manuscript as it is' }),
    format: t.expose('format', { type: ManuscriptFormat }),
    chapters: t.field({ type: [ChapterChangeRef], description: "the chapters that changed (the manuscript's, and other chapters it moved along), in reading order, removed ones last", resolve: (r) => r.chapters }),
    unchangedChapters: t.exposeInt('unchangedChapters'),
    chapterCount: t.exposeInt('chapterCount', { description: 'chapters in the manuscript' }),
    entityCount: t.exposeInt('entityCount', { description: 'entity notes in the manuscript (obsidian)' }),
    relationshipCount: t.exposeInt('relationshipCount', { description: 'relationships in the manuscript (obsidian)' }),
    counts: t.field({ type: ManuscriptCounts, resolve: (r) => r.counts }),
    skipped: t.field({ type: [SkippedFileRef], description: 'files of the manuscript that are not read, and why', resolve: (r) => r.skipped }),
    frontMatter: t.field({ type: [FrontMatterRef], description: 'text before the first chapter heading: not a chapter, not in the reading order', resolve: (r) => r.frontMatter }),
    retiredFactsSkipped: t.field({ type: [SkippedRetiredFactRef], description: 'facts of the manuscript the project retired since, left retired', resolve: (r) => r.retiredFactsSkipped }),
  }),
});
