import { readFileSync } from 'node:fs';

/** The example bundle from the README, as a fresh object each time. */
export function saltmarshBundle(): any {
  return JSON.parse(readFileSync(new URL('../../examples/saltmarsh.json', import.meta.url), 'utf8'));
}
