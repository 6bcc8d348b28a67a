// The `lore` command: serve the gateway, manage keys, import and export canon bundles, print the GraphQL schema.
// Every module beyond the command line's own is loaded by the command that needs it (`await import`): Prisma, the
// schema, the HTTP stack and the readers would otherwise cost every command, --help included, seconds to start.
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { Command, InvalidArgumentError, Option } from 'commander';
import { AdminError } from './adminClient.ts';
import { chaptersFolderOption, headingLevelOption, importManuscriptCommand, keyOptionHelp, printRetiredSkipped, registerManuscriptCommands, type RetiredFactSkipped } from './manuscriptCommands.ts';
import { CliFailure, withAdmin as adminWith, withOperations as operationsWith, type Admin, type Operations } from './storeAccess.ts';
import type { Config } from '../src/config.ts';
import { tiers } from '../src/core/access/tiers.ts';
import type { ExportedBundle } from '../src/core/ingest/exporter.ts';
import type { CreatedKey, KeyService } from '../src/core/access/keys.ts';
import type { RebuildResult as EmbeddingRebuild } from '../src/core/embeddings/worker.ts';
import type { RebuildResult } from '../src/core/relationships/neo4jSync.ts';

type KeyListing = Awaited<ReturnType<KeyService['list']>>[number];

const print = (line: string) => process.stdout.write(`${line}\n`);

function fail(message: string): never {
  process.stderr.write(`lore: ${message}\n`);
  process.exit(1);
}

/**
 * One line for a failure: a Lore error's (or the admin socket's) code and message, else the message alone (never a
 * stack trace). LoreError is not imported here (it loads graphql): it is known by its name.
 */
const describeFailure = (error: unknown) => {
  if (!(error instanceof Error)) return String(error);
  const code = error instanceof AdminError || error.name === 'LoreError' ? (error as AdminError).code : undefined;
  return code && !(error instanceof CliFailure) ? `${code}: ${error.message}` : error.message;
};

// Whatever escapes a command (a connection that fails between statements, a library's stray rejection) ends it with
// one line and a non-zero exit, as every expected failure does.
process.on('uncaughtException', (error) => fail(describeFailure(error)));
process.on('unhandledRejection', (reason) => fail(describeFailure(reason)));
// A command left waiting on a connection that vanished without a word has nothing left to run, and Node would exit
// with 13 and no line at all.
process.on('exit', (code) => {
  if (code !== 13) return;
  process.stderr.write('lore: stopped before finishing: the connection to the Lore store was lost (did the gateway serving it stop?)\n');
});

/**
 * The command as the store's holder names it to others while they wait (`lore keys list`): its words only, never an
 * argument, which could be a key.
 */
const commandName = () => {
  const words: string[] = [];
  for (const word of process.argv.slice(2, 4)) {
    if (!/^[a-z]+$/.test(word)) break;
    words.push(word);
  }
  return ['lore', ...words].join(' ');
};
/** Loaded when a command runs: validating the environment loads zod, which --help does without. */
const loadConfig = async (): Promise<Config> => (await import('../src/config.ts')).loadConfig();
const withOperations = async <T>(work: (operations: Operations) => Promise<T>) => operationsWith(await loadConfig(), commandName(), work);
const withAdmin = async <T>(work: (admin: Admin) => Promise<T>) => adminWith(await loadConfig(), commandName(), work);
const detectFormat = async (target: string) => (await import('../src/core/ingest/manuscripts/localFiles.ts')).detectFormat(target);

/** The --key flag, else LORE_API_KEY from the environment. */
async function apiKey(flag: string | undefined): Promise<string> {
  const key = flag ?? (await loadConfig()).apiKey;
  if (!key) fail('no API key: pass --key <key> or set LORE_API_KEY');
  return key;
}

const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive integer');
  return n;
};
const isoDate = (value: string) => {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new InvalidArgumentError('must be an ISO 8601 date-time');
  return date;
};

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command('lore').description('Lore: the canon of your fiction, served to AI tools.').version(version).showHelpAfterError();

program
  .command('serve')
  .description('run the gateway (REST /api/v1, GraphQL /graphql) on PORT (default 8787)')
  .action(async () => {
    const config = await loadConfig();
    const announce = (url: string, store: string) => process.stderr.write(`Lore gateway listening on ${url} (store: ${store})\n`);
    const { isWorker, reportListening, superviseWorkers } = await import('./cluster.ts');
    if (config.workers > 1 && !isWorker()) return superviseWorkers(config, announce);
    const { startGateway } = await import('./gateway.ts');
    const gateway = await startGateway(config, { onWait: (line) => process.stderr.write(`lore: ${line}\n`) });
    const store = gateway.runtime.db.mode === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)';
    gateway.runtime.logger.info({ url: gateway.url, store }, 'gateway started');
    if (isWorker()) reportListening(gateway.url, store);
    else announce(gateway.url, store);
    // One shutdown however many signals come: a terminal's Ctrl-C reaches the workers as well as their supervisor,
    // which then sends SIGTERM too.
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      gateway.runtime.logger.info({ signal }, 'shutting down: finishing requests in flight');
      // The graph sync worker and the store get a few seconds of their own after the requests' bound.
      setTimeout(() => {
        process.stderr.write('lore: shutdown did not finish in time; exiting\n');
        process.exit(1);
      }, config.shutdownTimeoutMs + 5_000).unref();
      gateway.close({ graceMs: config.shutdownTimeoutMs }).then(
        ({ forced }) => {
          if (forced) process.stderr.write(`lore: requests still running after ${config.shutdownTimeoutMs} ms (LORE_SHUTDOWN_TIMEOUT_MS) were cut off\n`);
          process.exit(forced ? 1 : 0);
        },
        (error: Error) => {
          process.stderr.write(`lore: shutdown failed: ${error.message}\n`);
          process.exit(1);
        },
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });

const keys = program.command('keys').description('create, rotate, revoke and list API keys');

keys
  .command('create')
  .description('create a key; the secret is printed once and stored only as a hash')
  .addOption(new Option('--tier <tier>', 'tier').choices(tiers).makeOptionMandatory())
  .option('--account <id>', 'account to add the key to (default: a new account)')
  .option('--name <name>', 'a label for the key')
  .option('--expires-at <iso>', 'expiry date-time', isoDate)
  .option('--quota <n>', 'enterprise: calls per month', positiveInt)
  .option('--rate-limit <n>', 'enterprise: requests per minute', positiveInt)
  .option('--scope <scope...>', 'enterprise: extra custom scopes')
  .option('--json', 'print JSON')
  .action(async (opts) => {
    const created = await withAdmin((admin) =>
      admin.run<CreatedKey>('keys/create', {
        tier: opts.tier, accountId: opts.account, name: opts.name, expiresAt: opts.expiresAt,
        customQuota: opts.quota, customRate: opts.rateLimit, customScopes: opts.scope,
      }),
    );
    if (opts.json) {
      print(JSON.stringify(created));
      return;
    }
    print(`key ${created.id} (account ${created.account}, tier ${created.tier})`);
    print(`scopes: ${created.scopes.join(' ')}`);
    print(`secret: ${created.key}`);
    print('Store the secret now: it is not shown again.');
  });

keys
  .command('rotate <id>')
  .description('issue a new secret for the same account and tier; the old one stops working at once')
  .option('--json', 'print JSON')
  .action(async (id: string, opts) => {
    const created = await withAdmin((admin) => admin.run<CreatedKey>('keys/rotate', { id }));
    if (opts.json) {
      print(JSON.stringify({ ...created, replaces: id }));
      return;
    }
    print(`key ${created.id} replaces ${id} (account ${created.account})`);
    print(`secret: ${created.key}`);
    print('Store the secret now: it is not shown again.');
  });

keys
  .command('revoke <id>')
  .description('revoke a key at once')
  .action(async (id: string) => {
    await withAdmin((admin) => admin.run('keys/revoke', { id }));
    print(`revoked ${id}`);
  });

keys
  .command('list')
  .description('list keys (never their secrets)')
  .option('--json', 'print JSON')
  .action(async (opts) => {
    const list = await withAdmin((admin) => admin.run<KeyListing[]>('keys/list'));
    if (opts.json) {
      print(JSON.stringify(list));
      return;
    }
    for (const k of list) print([k.id, k.account, k.tier, k.status, k.prefix, k.name ?? ''].join('\t').trimEnd());
  });

program
  .command('import <file>')
  .description('import a canon bundle (JSON or YAML), or a manuscript (a Markdown or text file, a folder of them, a .docx, a Scrivener .scriv project, an Obsidian vault), with an API key; importing the same again changes nothing')
  .option('--key <key>', keyOptionHelp('remember'))
  .option('--project <id>', "project to import into (default: the key's project of the bundle's name, or named after the manuscript's file or folder, created if needed)")
  .option('--name <name>', "a manuscript's project name when --project is not given (default: the file or folder name)")
  .option('--after <chapter>', "a manuscript's chapters go right after this chapter of the project (default: where they are, else after every other chapter)")
  .option('--reinstate-retired', 'a bundle: write again the facts the project retired since (default: they stay retired and are listed as skipped)')
  .addOption(headingLevelOption())
  .addOption(chaptersFolderOption())
  .option('--json', 'print JSON')
  .action(async (file: string, opts) => {
    const format = await detectFormat(file).catch((error: Error) => fail(error.message));
    if (format !== 'bundle') return importManuscriptCommand({ withOperations, print, fail, apiKey }, file, format, opts);
    const key = await apiKey(opts.key);
    let bundle: unknown;
    try {
      const text = await readFile(file, 'utf8');
      bundle = /\.ya?ml$/i.test(file) ? (await import('yaml')).default.parse(text) : JSON.parse(text);
    } catch (error) {
      fail(`cannot read ${file}: ${(error as Error).message}`);
    }
    const outcome = await withOperations((operations) =>
      operations.run('ImportBundle', { bundle, projectId: opts.project, reinstateRetired: opts.reinstateRetired }, { credential: key, requestId: 'cli' }),
    );
    if (!outcome.ok) {
      const errors = (outcome.error.extensions.errors as { path: string; message: string }[] | undefined) ?? [];
      if (opts.json) print(JSON.stringify({ error: { code: outcome.error.code, detail: outcome.error.message, errors } }));
      else for (const e of errors) process.stderr.write(`  ${e.path}: ${e.message}\n`);
      fail(`import failed (${outcome.error.code}): ${outcome.error.message}`);
    }
    const result = outcome.data.result as { projectId: string; changed: boolean; counts: Record<string, number>; retiredFactsSkipped: RetiredFactSkipped[] };
    if (opts.json) {
      print(JSON.stringify({ projectId: result.projectId, changed: result.changed, counts: result.counts, retiredFactsSkipped: result.retiredFactsSkipped }));
      return;
    }
    print(`imported into project ${result.projectId}${result.changed ? '' : ' (nothing changed)'}`);
    for (const [name, count] of Object.entries(result.counts)) print(`  ${name}: ${count}`);
    printRetiredSkipped(print, result.retiredFactsSkipped);
  });

program
  .command('export')
  .description('export a project as a canon bundle (JSON, or YAML when --out ends in .yaml or .yml) that lore import reads back')
  .requiredOption('--project <id>', 'project to export')
  .option('--key <key>', keyOptionHelp('recall'))
  .option('--out <file>', 'write the bundle to this file and print a summary (default: print the bundle)')
  .option('--json', 'print JSON: the summary with --out, else the bundle on one line')
  .action(async (opts) => {
    const key = await apiKey(opts.key);
    const outcome = await withOperations((operations) => operations.run('ExportProject', { projectId: opts.project }, { credential: key, requestId: 'cli' }));
    if (!outcome.ok) {
      if (opts.json) print(JSON.stringify({ error: { code: outcome.error.code, detail: outcome.error.message } }));
      fail(`export failed (${outcome.error.code}): ${outcome.error.message}`);
    }
    const bundle = outcome.data.bundle as ExportedBundle;
    if (!opts.out) {
      print(opts.json ? JSON.stringify(bundle) : JSON.stringify(bundle, null, 2));
      return;
    }
    // No folding of long lines: a chapter's text stays as written, line for line.
    const text = /\.ya?ml$/i.test(opts.out) ? (await import('yaml')).default.stringify(bundle, { lineWidth: 0 }) : `${JSON.stringify(bundle, null, 2)}\n`;
    try {
      await writeFile(opts.out, text);
    } catch (error) {
      fail(`cannot write ${opts.out}: ${(error as Error).message}`);
    }
    const entities = bundle.entities ?? [];
    const counts = {
      entities: entities.length,
      facts: entities.reduce((n, e) => n + (e.facts?.length ?? 0), 0),
      stateChanges: entities.reduce((n, e) => n + (e.stateChanges?.length ?? 0), 0),
      relationships: bundle.relationships?.length ?? 0,
      chapters: bundle.chapters?.length ?? 0,
      beats: (bundle.timeline ?? []).reduce((n, t) => n + t.beats.length, 0),
    };
    if (opts.json) {
      print(JSON.stringify({ projectId: opts.project, file: opts.out, counts }));
      return;
    }
    print(`exported project ${opts.project} to ${opts.out}: ${Object.entries(counts).map(([name, n]) => `${n} ${name.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)}`).join(', ')}`);
  });

registerManuscriptCommands(program, { withOperations, print, fail, apiKey }, detectFormat);

program
  .command('mcp')
  .description('serve the lore_author_* MCP tools over stdio to an AI client (LORE_API_KEY, LORE_PROJECT_ID in its env block)')
  .option('--embedded', 'run the core in this process on LORE_DATA_DIR or DATABASE_URL instead of calling the gateway at LORE_API_URL')
  .action(async (opts) => {
    const { runMcpServer } = await import('../mcp/server.ts');
    await runMcpServer({ embedded: opts.embedded || undefined });
  });

program
  .command('graph')
  .description('the relationship graph in Neo4j (NEO4J_URL, NEO4J_USER, NEO4J_PASSWORD)')
  .command('rebuild')
  .description('replace the graph in Neo4j with a copy from PostgreSQL, for one project or all of them')
  .option('--project <id>', 'only this project (default: every project, and nodes of unknown projects are removed)')
  .option('--json', 'print JSON')
  .action(async (opts) => {
    if (!(await loadConfig()).neo4j) fail('graph rebuild needs Neo4j: set NEO4J_URL, NEO4J_USER and NEO4J_PASSWORD');
    const results = await withAdmin((admin) => admin.run<RebuildResult[]>('graph/rebuild', { project: opts.project }));
    if (opts.json) {
      print(JSON.stringify({ projects: results }));
      return;
    }
    for (const r of results) print(`rebuilt ${r.projectId}: ${r.nodes} nodes, ${r.edges} relationships`);
    print(`${results.length} project${results.length === 1 ? '' : 's'} rebuilt in Neo4j`);
  });

program
  .command('embeddings')
  .description('the vectors semantic search ranks by (LORE_EMBEDDINGS_URL, LORE_EMBEDDINGS_MODEL)')
  .command('rebuild')
  .description('embed every entity and approved fact again with the configured model (after a model change), for one project or all')
  .option('--project <id>', 'only this project (default: every project)')
  .option('--json', 'print JSON')
  .action(async (opts) => {
    if (!(await loadConfig()).embeddings) fail('embeddings rebuild needs an embedding provider: set LORE_EMBEDDINGS_URL and LORE_EMBEDDINGS_MODEL');
    const result = await withAdmin((admin) => admin.run<EmbeddingRebuild>('embeddings/rebuild', { project: opts.project }));
    if (opts.json) {
      print(JSON.stringify(result));
      return;
    }
    const where = result.projectId ? `project ${result.projectId}` : 'every project';
    print(`re-embedded ${result.queued - result.waiting} of ${result.queued} items in ${where} with ${(await loadConfig()).embeddings!.model}`);
    if (result.waiting > 0) print(`${result.waiting} items the provider refused wait in the outbox (GET /health shows the last error)`);
  });

program
  .command('schema')
  .description('GraphQL schema tools')
  .command('print')
  .description('print the GraphQL SDL (or write it to --out)')
  .option('--out <file>', 'file to write')
  .action(async (opts) => {
    const { printedSchema } = await import('../graph/schema.ts');
    const sdl = `${printedSchema()}\n`;
    if (opts.out) await writeFile(opts.out, sdl);
    else process.stdout.write(sdl);
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  fail(describeFailure(error));
}
