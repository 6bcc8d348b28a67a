// Which code a bin runs: the JavaScript build in dist/cli (scripts/build-cli.mjs) while every source file it was built
// from holds what it held then, else the TypeScript sources through tsx, so an edit or a checkout is never run stale.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';

const checkout = new URL('../', import.meta.url);

/** The URL of the built entry `name` under `root` (a file: URL ending in /), or undefined when absent or stale. */
export function freshBuild(name, root = checkout) {
  let meta;
  try {
    meta = JSON.parse(readFileSync(new URL('dist/cli/meta.json', root), 'utf8'));
  } catch {
    return undefined;
  }
  for (const [input, hash] of Object.entries(meta.inputs)) {
    try {
      const file = new URL(input, root);
      // Only a file written since the build is read: it may hold what it held then.
      if (statSync(file).mtimeMs > meta.builtAt && createHash('sha256').update(readFileSync(file)).digest('hex') !== hash) return undefined;
    } catch {
      return undefined;
    }
  }
  return new URL(`dist/cli/${name}.mjs`, root);
}

/** Loads the entry `name` (lore, lore-mcp) from the build or, from `source`, through tsx. */
export async function loadEntry(name, source) {
  const built = freshBuild(name);
  if (built) return import(built.href);
  const { register } = await import('tsx/esm/api');
  register();
  return import(new URL(source, checkout).href);
}
