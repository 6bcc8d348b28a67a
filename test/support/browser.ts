// The headless Chromium the dashboard's browser tests drive (playwright-core launches it; nothing is downloaded):
// LORE_CHROMIUM, else Debian's /usr/bin/chromium. Where there is none, test/support/globalSetup.ts says so in one line
// and browserTests.ts skips the tests; LORE_REQUIRE_BROWSER=1 (as CI sets it) makes its absence an error instead.
import { accessSync, constants } from 'node:fs';

const requireVariable = 'LORE_REQUIRE_BROWSER';
// LORE_CHROMIUM, when set, is the only one tried (so pointing it nowhere shows what happens without a browser).
const candidates = () => (process.env.LORE_CHROMIUM ? [process.env.LORE_CHROMIUM] : ['/usr/bin/chromium', '/usr/bin/chromium-browser']);

/** The browser's path, or undefined (with the reason) when there is none. */
export function findBrowser(): { path?: string; reason?: string } {
  for (const path of candidates()) {
    try {
      accessSync(path, constants.X_OK);
      return { path };
    } catch {
      // next candidate
    }
  }
  const reason = `no Chromium at ${candidates().join(' or ')} (set LORE_CHROMIUM to its path)`;
  if (/^(1|true|yes)$/i.test(process.env[requireVariable] ?? '')) throw new Error(`${requireVariable} is set, but the browser tests cannot run: ${reason}`);
  return { reason };
}

/** What launching it takes here: headless, without a sandbox (containers), GPU or anything that calls out. */
export const browserArgs = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
];
