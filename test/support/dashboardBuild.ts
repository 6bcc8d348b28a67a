// The dashboard's tests drive the built app: test/support/globalSetup.ts builds it (npm run build:dashboard) when
// dashboard/dist is missing or older than the app's sources and operations, so no test runs against a stale build.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(`${entry.parentPath}/${entry.name}`).mtimeMs);
  }
  return latest;
}

export function ensureDashboardBuilt(): void {
  let built = 0;
  try {
    built = statSync(`${root}dashboard/dist/index.html`).mtimeMs;
  } catch {
    // not built yet
  }
  const sources = Math.max(newest(`${root}dashboard/src`), newest(`${root}graph/operations/dashboard`), statSync(`${root}dashboard/index.html`).mtimeMs);
  if (built > sources) return;
  // vitest sets NODE_ENV=test, which Vite would honour with a development build of React: build what npm ci builds.
  execFileSync('npm', ['run', 'build:dashboard'], { cwd: root, stdio: 'pipe', env: { ...process.env, NODE_ENV: 'production' } });
}
