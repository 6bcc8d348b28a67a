// Builds the `lore` and `lore-mcp` entries into plain JavaScript (dist/cli/), so a command starts without compiling
// TypeScript first (tsx's own start-up costs a third of a second). npm runs it in `prepare`; bin/*.mjs use the build
// only while it is newer than every source file it was built from (dist/cli/meta.json), else the sources through tsx.
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = path.join(root, 'dist/cli');
// Built beside it and swapped in at the end (at the same depth, so the URLs below hold): a command starting meanwhile
// finds either the old build or none (and runs the sources), never half of one.
const building = path.join(root, 'dist/cli.building');

/**
 * Modules find their files (package.json, operations, migrations, assets, the generated Prisma client's own folder)
 * relative to import.meta.url: each module keeps the URL of its source file, relative to the chunk it lands in, so
 * those files are found where they are and the build moves with the checkout or the installed package.
 */
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const text = await readFile(args.path, 'utf8');
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
const inputs = Object.keys(result.metafile.inputs).filter((input) => !input.startsWith('node_modules/'));
await writeFile(path.join(building, 'meta.json'), `${JSON.stringify({ builtAt: startedAt, inputs: [...inputs, 'package.json'] })}\n`);
await rm(outdir, { recursive: true, force: true });
await rename(building, outdir);
