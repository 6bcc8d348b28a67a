// Builds the `lore` and `lore-mcp` entries into plain JavaScript (dist/cli/), so a command starts without compiling
// TypeScript first (tsx's own start-up costs a third of a second). npm runs it in `prepare`; bin/*.mjs use the build
// only while every source file it was built from is as it was (dist/cli/meta.json), else the sources through tsx.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = path.join(root, 'dist/cli');
// Built beside it (at the same depth, so the URLs below hold), then moved in: chunks first, entries next, meta.json
// last, so a command starting meanwhile runs a whole build. Chunks are named by their content and those of earlier
// builds stay a week: a process started from one may still load them lazily (a tool's first call, say).
const building = path.join(root, 'dist/cli.building');
const keepOldChunksMs = 7 * 24 * 3600_000;

/**
 * Modules find their files (package.json, operations, migrations, assets, the generated Prisma client's own folder)
 * relative to import.meta.url: each module keeps the URL of its source file, relative to the chunk it lands in, so
 * those files are found where they are and the build moves with the checkout or the installed package.
 */
const sha256 = (content) => createHash('sha256').update(content).digest('hex');
/** The hash of each source as the build read it. */
const readHashes = new Map();
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const text = await readFile(args.path, 'utf8');
      readHashes.set(path.relative(root, args.path).split(path.sep).join('/'), sha256(text));
      const fromChunk = path.relative(outdir, args.path).split(path.sep).join('/');
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromChunk)}, import.meta.url).href`), loader: 'ts' };
    });
  },
};

// Taken before reading any source: a file saved while the build runs is newer than the build, so it is not used.
const startedAt = Date.now();
await rm(building, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { lore: 'app/cli.ts', 'lore-mcp': 'mcp/server.ts' },
  outdir: building,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  // The dynamic imports stay dynamic: a command loads only the chunks it needs.
  // Every chunk beside the entries: the URLs above are relative to that one folder.
  chunkNames: '[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
  plugins: [sourceUrls],
});
// Each source with its content's hash: a file rewritten with the same content leaves the build in use. The generated
// client stands as what it is generated from, its schema and package.json (which pins Prisma): each generation writes
// its own absolute path and its config's keys in no fixed order, so npm ci's second generation (or a moved checkout)
// would otherwise differ from what the build read.
const generated = 'src/generated/';
const inputs = {};
const sources = Object.keys(result.metafile.inputs).filter((input) => !input.startsWith('node_modules/') && !input.startsWith(generated));
for (const input of [...sources, 'prisma/schema.prisma', 'package.json']) {
  inputs[input] = readHashes.get(input) ?? sha256(await readFile(path.join(root, input)));
}
await writeFile(path.join(building, 'meta.json'), `${JSON.stringify({ builtAt: startedAt, inputs })}\n`);
const built = await readdir(building);
const entries = new Set(['lore.mjs', 'lore-mcp.mjs', 'meta.json']);
await mkdir(outdir, { recursive: true });
for (const file of [...built.filter((f) => !entries.has(f)), 'lore.mjs', 'lore-mcp.mjs', 'meta.json']) await rename(path.join(building, file), path.join(outdir, file));
await rm(building, { recursive: true, force: true });
for (const file of await readdir(outdir)) {
  if (built.includes(file)) continue;
  if (Date.now() - (await stat(path.join(outdir, file))).mtimeMs > keepOldChunksMs) await rm(path.join(outdir, file), { force: true });
}
