// Where the tests' PostgreSQL server is: TEST_DATABASE_URL (an admin connection), by default the local cluster .ci/run starts.
export const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres:postgres@127.0.0.1:5432/postgres';

export function databaseUrl(name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
