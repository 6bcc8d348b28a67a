// A gateway or CLI command that cannot start says why in one line on stderr and exits non-zero: no stack, no hang.
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanFailure, lore, type CliResult } from '../support/cli.ts';
import { createTestDatabase } from '../support/gateway.ts';

let dir: string;
let taken: net.Server;
let takenPort: number;
let closedPort: number;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'lore-startup-'));
  taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  takenPort = (taken.address() as net.AddressInfo).port;
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  closedPort = (closed.address() as net.AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
});
afterAll(async () => {
  await new Promise((resolve) => taken?.close(resolve));
  if (dir) await rm(dir, { recursive: true, force: true });
});

function expectOneLine(result: CliResult, message: RegExp) {
  expectCleanFailure(result, message);
  expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
  expect(result.stderr).toMatch(/^lore: /);
}

// Each CLI run loads the sources through tsx: seconds apiece, many more on a busy machine.
describe('start-up errors', { timeout: 240_000 }, () => {
  it('when DATABASE_URL points at a port where nothing listens, then serve and the CLI say PostgreSQL cannot be reached', async () => {
    const env = { DATABASE_URL: `postgresql://postgres:postgres@127.0.0.1:${closedPort}/lore` };
    const [served, listed] = await Promise.all([lore(['serve'], { ...env, PORT: '0' }), lore(['keys', 'list'], env)]);
    for (const result of [served, listed]) expectOneLine(result, new RegExp(`cannot reach PostgreSQL at 127\\.0\\.0\\.1:${closedPort}/lore: .*ECONNREFUSED`));
  });

  it('when DATABASE_URL is not a postgresql:// URL, then it says so', async () => {
    const results = await Promise.all(['not-a-url', 'postgresql://a b@/x', 'mysql://root@localhost/lore'].map((url) => lore(['serve'], { DATABASE_URL: url, PORT: '0' })));
    for (const result of results) expectOneLine(result, /invalid configuration: DATABASE_URL must be a postgresql:\/\/ URL/);
  });

  it('when PORT is already taken, then it says which port, over PostgreSQL and over the embedded store alike', async () => {
    const dataDir = path.join(dir, 'taken-port');
    const [postgres, embedded] = await Promise.all([
      createTestDatabase().then((url) => lore(['serve'], { DATABASE_URL: url, PORT: String(takenPort) })),
      lore(['serve'], { LORE_DATA_DIR: dataDir, PORT: String(takenPort) }),
    ]);
    for (const result of [postgres, embedded]) expectOneLine(result, new RegExp(`port ${takenPort} on 127\\.0\\.0\\.1 is already in use`));
    // The embedded store it had opened is released: no owner is recorded, and its secret is gone.
    expect(await readdir(dataDir)).not.toContain('owner.json');
    expect(await readdir(dataDir)).not.toContain('pglite.secret');
  });

  it('when PORT is not a port number, then it says PORT is invalid', async () => {
    const results = await Promise.all(['http', '70000'].map((port) => lore(['serve'], { LORE_DATA_DIR: path.join(dir, 'unused'), PORT: port })));
    for (const result of results) expectOneLine(result, /invalid configuration: PORT /);
  });

  it('when LORE_DATA_DIR lies under a regular file, then it says the data directory is not usable', async () => {
    const file = path.join(dir, 'a-file');
    await writeFile(file, 'not a directory');
    const [served, created] = await Promise.all([
      lore(['serve'], { LORE_DATA_DIR: path.join(file, 'data'), PORT: '0' }),
      lore(['keys', 'create', '--tier', 'free'], { LORE_DATA_DIR: path.join(file, 'data') }),
    ]);
    for (const result of [served, created]) expectOneLine(result, /data directory .*a-file\/data is not usable: ENOTDIR/);
  });

  // Permission bits do not bind root, so this case runs only as an ordinary user.
  it.skipIf(process.getuid?.() === 0)('when LORE_DATA_DIR is not writable, then it says the data directory is not usable', async () => {
    const readOnly = path.join(dir, 'read-only');
    await mkdir(readOnly, { mode: 0o500 });
    expectOneLine(await lore(['serve'], { LORE_DATA_DIR: readOnly, PORT: '0' }), /data directory .*read-only is not usable: EACCES/);
  });
});
