// Where the tests' PostgreSQL server is: TEST_DATABASE_URL (an admin connection), or the embedded server that
// test/support/globalSetup.ts started for this run.
import { inject } from 'vitest';

/** In a test file: the admin connection to the tests' server. */
export const adminUrl = () => inject('databaseServer');

export function databaseUrl(name: string, server = adminUrl()): string {
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}
