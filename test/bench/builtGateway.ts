// The gateways a bench starts run the JavaScript build, as `npm start` does after `npm ci`: with sources edited since
// the build, bin/lore.mjs would run them through tsx, whose start-up and compiled code are not what users run.
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freshBuild } from '../../bin/entry.mjs';

/** Builds dist/cli of the checkout at `checkout` (a directory path) unless its build is fresh. */
export function ensureBuilt(checkout = fileURLToPath(new URL('../../', import.meta.url))): void {
  const root = pathToFileURL(checkout.endsWith('/') ? checkout : `${checkout}/`);
  if (freshBuild('lore', root)) return;
  execFileSync(process.execPath, ['scripts/build-cli.mjs'], { cwd: checkout, stdio: 'ignore' });
  if (!freshBuild('lore', root)) throw new Error(`${checkout}: its CLI build is still stale after scripts/build-cli.mjs`);
}
