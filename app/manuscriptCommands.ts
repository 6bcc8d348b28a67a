// The `lore` commands for manuscripts: `lore import <path>` for a manuscript (cli.ts hands it over), `lore sync` to
// keep a project in step with one (once, or on every change with --watch), and `lore extract` to have the writer's
// own LLM propose canon from the chapters. Each runs named GraphQL operations with the caller's key, like the rest of
// the CLI (through the gateway when one runs: app/storeAccess.ts); files are read here, on the writer's machine, and
// sent as the operation's variables. The readers and the watcher load when a command runs, not with --help.
import { isUtf8 } from 'node:buffer';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { OperationOutcome } from '../graph/executor.ts';
import type { ExtractResult } from '../src/core/ingest/manuscripts/extract.ts';
import type { ManuscriptFormat } from '../src/core/ingest/manuscripts/manuscript.ts';
import type { ManuscriptImportResult } from '../src/core/ingest/manuscripts/manuscripts.ts';
import { defaultExtractLimit, maxExtractLimit } from '../src/core/ingest/manuscripts/limits.ts';
import { Progress, progressMode } from './progress.ts';
import type { Operations } from './storeAccess.ts';

export type CliHelpers = {
  /** runs `work` with the store reached for this command (in this process, or a running gateway), then lets it go */
  withOperations<T>(work: (operations: Operations) => Promise<T>): Promise<T>;
  print(line: string): void;
  fail(message: string): never;
  /** the --key flag, else LORE_API_KEY */
  apiKey(flag: string | undefined): Promise<string>;
};

export const keyOptionHelp = (scope: string) => `API key (scope ${scope}); default: LORE_API_KEY, which keeps it out of shell history`;

/** The options as given; `key` is the --key flag, absent when LORE_API_KEY is to be used. */
export type ManuscriptOptions = { key?: string; project?: string; name?: string; after?: string; headingLevel?: 1 | 2; chaptersFolder?: string; json?: boolean; dryRun?: boolean };

export type RetiredFactSkipped = { entity: string; text: string; retiredFactId: string; replacedBy: { id: string; text: string } | null };
/** One line per fact left retired: what it said, and the retcon that replaced it. */
export function printRetiredSkipped(print: (line: string) => void, skipped: RetiredFactSkipped[]) {
  for (const f of skipped) {
    print(`  skipped fact of ${f.entity} "${f.text}": retired as ${f.retiredFactId}${f.replacedBy ? `, replaced by ${f.replacedBy.id} ("${f.replacedBy.text}")` : ''} (--reinstate-retired writes it again)`);
  }
}

export const headingLevelOption = () =>
  new Option('--heading-level <n>', 'Markdown and .docx: cut chapters at level-1 headings only (1) or at levels 1 and 2 (2); default: level 1, or 2 under a single level-1 title').argParser((value) => {
    if (value !== '1' && value !== '2') throw new InvalidArgumentError('must be 1 or 2');
    return Number(value) as 1 | 2;
  });
export const chaptersFolderOption = () => new Option('--chapters-folder <name>', 'Obsidian: the folder whose notes are chapters (default Chapters)');

type Errors = { path: string; message: string }[];
/** ImportManuscript's answer: the result with the importer's counts under counts.importer. */
type ImportAnswer = Omit<ManuscriptImportResult, 'counts'> & { counts: { importer: Record<string, number>; chaptersRemoved: number } };

/** A failed operation: one line per problem (each naming its file and line), then what it means. */
function reportFailure(helpers: CliHelpers, outcome: Extract<OperationOutcome, { ok: false }>, what: string, json?: boolean): never {
  const errors = (outcome.error.extensions.errors as Errors | undefined) ?? [];
  if (json) helpers.print(JSON.stringify({ error: { code: outcome.error.code, detail: outcome.error.message, errors } }));
  for (const e of errors) process.stderr.write(`${e.path}: ${e.message}\n`);
  helpers.fail(errors.length > 0 && outcome.error.code === 'validation_error' ? `${what} failed: ${errors.length} problem${errors.length === 1 ? '' : 's'}, nothing was written` : `${what} failed (${outcome.error.code}): ${outcome.error.message}`);
}

/** Reads the manuscript here and imports it (sync: also removing the chapters it no longer has). */
async function runImport(executor: Operations, target: string, format: ManuscriptFormat, opts: ManuscriptOptions & { key: string }, sync: boolean): Promise<{ result?: ImportAnswer; failure?: Extract<OperationOutcome, { ok: false }> }> {
  const mode = progressMode(opts.json);
  const reading = new Progress(mode, 'read', 'files');
  let started = false;
  let local;
  const [{ readLocalManuscript }, { LoreError }] = await Promise.all([import('../src/core/ingest/manuscripts/localFiles.ts'), import('../src/core/errors.ts')]);
  try {
    local = await readLocalManuscript(target, format, (done, total) => {
      if (!started) reading.start(total);
      started = true;
      reading.update(done);
    });
  } catch (error) {
    if (error instanceof LoreError) return { failure: { ok: false, error: { code: error.code, status: 400, message: error.message, extensions: error.extensions } } };
    throw error;
  } finally {
    reading.stop();
  }
  const importing = new Progress(mode, sync ? 'sync' : 'import', 'chapters');
  importing.note(`${local.files.length} file${local.files.length === 1 ? '' : 's'} of a ${format.replace('_', ' ')} manuscript read; ${sync ? 'syncing' : 'importing'}`);
  const outcome = await executor.run(
    'ImportManuscript',
    {
      projectId: opts.project,
      name: opts.project ? undefined : (opts.name ?? local.name.slice(0, 80)),
      format,
      // Text as text; anything else (a .docx, or a file that is not the UTF-8 its name promises) as its bytes, for the reader to judge.
      files: local.files.map((f) => (isUtf8(f.content) ? { path: f.path, content: f.content.toString('utf8') } : { path: f.path, content: f.content.toString('base64'), encoding: 'base64' })),
      options: { headingLevel: opts.headingLevel, chaptersFolder: opts.chaptersFolder },
      sync,
      // The manuscript's name in the project, which its chapters record: a sync removes only chapters of the same name.
      source: path.basename(path.resolve(target)),
      after: opts.after,
      dryRun: opts.dryRun ?? false,
    },
    { credential: opts.key, requestId: 'cli' },
  );
  if (!outcome.ok) return { failure: outcome };
  const result = outcome.data.result as ImportAnswer;
  // What the folder held that this machine did not read (links out of it) is reported with what the server left out.
  return { result: { ...result, skipped: [...local.skipped, ...result.skipped] } };
}

const marks: Record<string, string> = { added: '+', edited: '~', moved: '>', retitled: '=', removed: '-' };

function printImport(helpers: CliHelpers, target: string, result: ImportAnswer, sync: boolean, json?: boolean) {
  if (json) {
    helpers.print(JSON.stringify(result));
    return;
  }
  const count = (change: string) => result.chapters.filter((c) => c.change === change).length;
  const verb = result.dryRun ? (sync ? 'would sync' : 'would import') : sync ? 'synced' : 'imported';
  const head = `${verb} ${target} (${result.format.replace('_', ' ')}) ${sync ? 'with' : 'into'} ${result.projectId ? `project ${result.projectId}` : 'a new project'}${result.projectCreated && result.projectId ? ' (new)' : ''}${result.dryRun ? ' (dry run: nothing written)' : ''}`;
  if (!result.changed) helpers.print(`${head}: nothing changed (${result.chapterCount} chapters)`);
  else {
    const summary = ['added', 'edited', 'moved', 'retitled', ...(sync ? ['removed'] : [])].map((c) => `${count(c)} ${c}`).join(', ');
    helpers.print(`${head}: ${summary}, ${result.unchangedChapters} unchanged${result.dryRun ? '' : `; ${result.counts.importer.mentionsRecorded} mentions recorded`}`);
    // A first import of a series changes hundreds: the first few say what happened, --json lists them all.
    const shown = 20;
    for (const c of result.chapters.slice(0, shown)) helpers.print(`  ${marks[c.change]} ${c.id} "${c.title}"${c.file ? ` (${c.file})` : ''} ${c.change}`);
    if (result.chapters.length > shown) helpers.print(`  … and ${result.chapters.length - shown} more (--json lists every one)`);
    const e = result.counts.importer;
    if (result.entityCount > 0 && !result.dryRun) helpers.print(`  entities: ${e.entitiesCreated} created, ${e.entitiesUpdated} updated; facts: ${e.factsCreated} created; relationships: ${e.relationshipsCreated} created`);
  }
  for (const s of result.skipped) helpers.print(`  skipped ${s.file}: ${s.reason}`);
  for (const f of result.frontMatter) helpers.print(`  front matter (${f.file}${f.line ? `:${f.line}` : ''}), not a chapter: "${f.text.split('\n')[0].slice(0, 60)}"`);
  printRetiredSkipped(helpers.print, result.retiredFactsSkipped);
}

/** `lore import <path>` for a manuscript. */
export async function importManuscriptCommand(helpers: CliHelpers, target: string, format: ManuscriptFormat, given: ManuscriptOptions) {
  const opts = { ...given, key: await helpers.apiKey(given.key) };
  const { result, failure } = await helpers.withOperations((operations) => runImport(operations, target, format, opts, false));
  if (failure) reportFailure(helpers, failure, 'import', opts.json);
  printImport(helpers, target, result!, false, opts.json);
}

export function registerManuscriptCommands(program: Command, helpers: CliHelpers, detect: (target: string) => Promise<ManuscriptFormat | 'bundle'>) {
  program
    .command('sync <path>')
    .description("bring a project in step with a manuscript: import what changed since the last sync (added, edited, moved, retitled chapters) and remove the chapters it brought and no longer has (never chapters from a bundle, the API or another manuscript); --dry-run shows it without writing; --watch keeps doing it as files change")
    .requiredOption('--project <id>', 'the project to keep in step')
    .option('--key <key>', keyOptionHelp('remember'))
    .option('--watch', 'keep watching the manuscript and sync on every change (Ctrl-C to stop)')
    .option('--dry-run', 'show what the sync would add, change and remove, writing nothing')
    .option('--after <chapter>', "put the manuscript's chapters right after this chapter of the project (default: where they are, else after every other chapter)")
    .addOption(headingLevelOption())
    .addOption(chaptersFolderOption())
    .option('--json', 'print JSON (one line per sync); progress goes to stderr as JSON lines')
    .action(async (target: string, given: ManuscriptOptions & { watch?: boolean }) => {
      const opts = { ...given, key: await helpers.apiKey(given.key) };
      if (opts.watch && opts.dryRun) helpers.fail('--dry-run and --watch do not go together: a dry run shows one sync');
      const format = await detectManuscript(helpers, detect, target);
      if (!opts.watch) {
        const { result, failure } = await helpers.withOperations((operations) => runImport(operations, target, format, opts, true));
        if (failure) reportFailure(helpers, failure, 'sync', opts.json);
        printImport(helpers, target, result!, true, opts.json);
        return;
      }
      await watchAndSync(helpers, target, format, opts);
    });

  program
    .command('extract')
    .description("have your own LLM (LORE_LLM_PROVIDER, LORE_LLM_KEY, LORE_LLM_MODEL) propose the canon each chapter establishes; proposals wait in the review queue, never approved. Costs 5 calls per request of up to --limit chapters")
    .requiredOption('--project <id>', 'the project whose chapters to read')
    .option('--key <key>', keyOptionHelp('remember'))
    .option('--chapter <id...>', 'only these chapters (default: every chapter, in reading order)')
    .option('--limit <n>', `chapters the model is asked about per request, 1..${maxExtractLimit} (default ${defaultExtractLimit})`, (value) => {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1 || n > maxExtractLimit) throw new InvalidArgumentError(`must be an integer from 1 to ${maxExtractLimit}`);
      return n;
    })
    .option('--json', 'print the totals as JSON; progress goes to stderr as JSON lines')
    .action(async (given: { project: string; key?: string; chapter?: string[]; limit?: number; json?: boolean }) => {
      const opts = { ...given, key: await helpers.apiKey(given.key) };
      const totals = await helpers.withOperations((operations) => extractAll(helpers, operations, opts));
      if (opts.json) {
        helpers.print(JSON.stringify(totals));
        return;
      }
      helpers.print(
        `extracted from ${totals.chapters} chapters of project ${totals.projectId} (${totals.asked} read by the model, ${totals.cached} read before, ${totals.empty} empty): ${totals.entitiesProposed} entities, ${totals.factsProposed} facts and ${totals.promisesProposed} promise ledger lines proposed, ${totals.dropped} dropped`,
      );
      helpers.print(totals.candidateIds.length > 0 ? `review them (${totals.candidateIds.length} candidates) on the dashboard's Review page (/projects/${totals.projectId}/review on the gateway), with lore_author_review (MCP), or with the GraphQL candidates query (status pending)` : 'nothing new to review');
    });
}

async function detectManuscript(helpers: CliHelpers, detect: (target: string) => Promise<ManuscriptFormat | 'bundle'>, target: string): Promise<ManuscriptFormat> {
  let format;
  try {
    format = await detect(target);
  } catch (error) {
    helpers.fail((error as Error).message);
  }
  if (format === 'bundle') helpers.fail(`${target} is a canon bundle, not a manuscript: use lore import`);
  return format;
}

/**
 * Syncs once, then again after every change (changes while a sync runs make one more sync), until Ctrl-C. Each sync
 * reaches the store anew and lets it go after: a gateway started or stopped between syncs is used, or not, from the
 * next one on.
 */
async function watchAndSync(helpers: CliHelpers, target: string, format: ManuscriptFormat, opts: ManuscriptOptions & { key: string }) {
  const syncOnce = async () => {
    let outcome;
    try {
      outcome = await helpers.withOperations((operations) => runImport(operations, target, format, opts, true));
    } catch (error) {
      // The store could not be reached this time (a gateway stopped mid-sync): said, and the next change tries again.
      process.stderr.write(`lore: sync failed: ${(error as Error).message}\n`);
      return;
    }
    const { result, failure } = outcome;
    if (!failure) {
      printImport(helpers, target, result!, true, opts.json);
      return;
    }
    // A problem while the writer is mid-edit is reported; the watch goes on.
    const errors = (failure.error.extensions.errors as Errors | undefined) ?? [];
    if (opts.json) helpers.print(JSON.stringify({ error: { code: failure.error.code, detail: failure.error.message, errors } }));
    for (const e of errors) process.stderr.write(`${e.path}: ${e.message}\n`);
    process.stderr.write(`lore: sync failed (${failure.error.code}): ${errors.length > 0 ? 'nothing was written; fix the files above and save again' : failure.error.message}\n`);
  };
  let running: Promise<void> | undefined;
  let again = false;
  const run = async () => {
    if (running) {
      again = true;
      return;
    }
    do {
      again = false;
      running = syncOnce();
      await running;
    } while (again);
    running = undefined;
  };
  await run();
  const watched = path.resolve(target);
  const { watch } = await import('chokidar');
  const watcher = watch(watched, {
    ignoreInitial: true,
    followSymlinks: false,
    ignored: (p: string) => path.relative(watched, p).split(path.sep).some((part) => part.startsWith('.')),
    awaitWriteFinish: { stabilityThreshold: 300, pollInterval: 100 },
  });
  let timer: NodeJS.Timeout | undefined;
  watcher.on('all', () => {
    clearTimeout(timer);
    timer = setTimeout(() => void run(), 200);
  });
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  process.stderr.write(`watching ${target} for changes (Ctrl-C to stop)\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  clearTimeout(timer);
  await watcher.close();
  await running;
}

type ExtractTotals = {
  projectId: string;
  chapters: number;
  asked: number;
  cached: number;
  empty: number;
  entitiesProposed: number;
  factsProposed: number;
  promisesProposed: number;
  dropped: number;
  candidateIds: string[];
};

/** Walks the chapters in requests of --limit, showing progress, until none is left. */
async function extractAll(helpers: CliHelpers, executor: Operations, opts: { project: string; key: string; chapter?: string[]; limit?: number; json?: boolean }): Promise<ExtractTotals> {
  const totals: ExtractTotals = { projectId: opts.project, chapters: 0, asked: 0, cached: 0, empty: 0, entitiesProposed: 0, factsProposed: 0, promisesProposed: 0, dropped: 0, candidateIds: [] };
  const progress = new Progress(progressMode(opts.json), 'extract', 'chapters');
  let startingAfter: string | undefined;
  let started = false;
  try {
    for (;;) {
      const outcome = await executor.run(
        'ExtractCanon',
        { projectId: opts.project, chapters: opts.chapter, startingAfter, limit: opts.limit },
        { credential: opts.key, requestId: 'cli', llm: (await import('../src/config.ts')).loadConfig().mcp.byok },
      );
      if (!outcome.ok) {
        progress.stop();
        if (outcome.error.code === 'precondition_required') {
          helpers.fail('extract runs your own LLM provider: set LORE_LLM_PROVIDER (anthropic, openai or openai-compatible) and LORE_LLM_KEY, and LORE_LLM_MODEL if you like, in the environment');
        }
        reportFailure(helpers, outcome, 'extract', opts.json);
      }
      const result = outcome.data.result as ExtractResult;
      totals.chapters += result.chapters.length;
      for (const c of result.chapters) totals[c.status]++;
      totals.entitiesProposed += result.entitiesProposed;
      totals.factsProposed += result.factsProposed;
      totals.promisesProposed += result.promisesProposed;
      totals.dropped += result.dropped;
      totals.candidateIds.push(...result.candidateIds);
      if (!started) progress.start(totals.chapters + result.remainingChapters);
      started = true;
      progress.update(totals.chapters, `${totals.entitiesProposed + totals.factsProposed + totals.promisesProposed} proposals`, totals.chapters + result.remainingChapters);
      if (!result.hasMore) break;
      startingAfter = result.nextStartingAfter!;
    }
  } finally {
    progress.stop();
  }
  return totals;
}
