// Runs schemathesis (test/schemathesis/.venv, installed by run.sh) against a real gateway: `lore serve` on a fresh
// PostgreSQL database, two accounts (enterprise keys made with `lore keys create`) each with the saltmarsh example
// imported with `lore import`, and the LLM providers pointed at the tests' local fake. Exits with schemathesis's status.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { lore, repoRoot } from '../support/cli.ts';
import { startFakeLlm } from '../support/fakeLlm.ts';
import { spawnGateway } from '../support/processes.ts';

const here = path.join(repoRoot, 'test/schemathesis');
const reports = path.join(here, '.report');
const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres:postgres@127.0.0.1:5432/postgres';

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const authFile = path.join(reports, 'auth.json');

/** A new account's key, with the saltmarsh example imported into it. */
async function account(databaseUrl: string): Promise<string> {
  // Quota and rate high enough that every generated request reaches validation; 402 and 429 are tested elsewhere.
  const created = await lore(['keys', 'create', '--tier', 'enterprise', '--quota', '100000000', '--rate-limit', '1000000', '--json'], { DATABASE_URL: databaseUrl });
  if (created.code !== 0) throw new Error(`lore keys create failed: ${created.stderr}`);
  const { key } = JSON.parse(created.stdout) as { key: string };
  const imported = await lore(['import', 'examples/saltmarsh.json', '--key', key, '--json'], { DATABASE_URL: databaseUrl });
  if (imported.code !== 0) throw new Error(`lore import failed: ${imported.stderr}`);
  return key;
}

async function main(): Promise<number> {
  const name = `lore_schemathesis_${randomBytes(6).toString('hex')}`;
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  await admin(`CREATE DATABASE ${name}`);
  // Answers both the conflict check's and the timeline's structured requests, so valid BYOK calls succeed.
  const llm = await startFakeLlm();
  llm.fallback = { object: { conflicts: [], beats: [] } };
  const env = {
    LORE_OPENAI_BASE_URL: llm.url,
    LORE_ANTHROPIC_BASE_URL: llm.url,
    LORE_OPENAI_COMPATIBLE_BASE_URL: llm.url,
  };
  let gateway: Awaited<ReturnType<typeof spawnGateway>> | undefined;
  try {
    gateway = await spawnGateway(databaseUrl, { ...env, LORE_LOG_LEVEL: 'error' });
    // The gateway's errors, to read beside a failure schemathesis reports.
    mkdirSync(reports, { recursive: true });
    gateway.child.stderr!.pipe(createWriteStream(path.join(reports, 'gateway.log')));
    // Two accounts alike: schemathesis runs as alice and replays her reads as bob (object_level_authorization).
    const [alice, bob] = [await account(databaseUrl), await account(databaseUrl)];
    // The keys as a Web Fuzzing Commons auth file, owner-only, removed at the end.
    writeFileSync(
      authFile,
      JSON.stringify({ auth: Object.entries({ alice, bob }).map(([name, key]) => ({ name, fixedHeaders: [{ name: 'Authorization', value: `Bearer ${key}` }] })) }),
      { mode: 0o600 },
    );

    const args = [
      '--config-file', path.join(here, 'schemathesis.toml'),
      'run', `${gateway.api}/openapi.json`,
      '--report', 'junit', '--report-dir', reports,
      // run.sh's own arguments, such as --seed 7 or --max-examples 500
      ...process.argv.slice(2),
    ];
    return await new Promise<number>((resolve, reject) => {
      const child = spawn(path.join(here, '.venv/bin/schemathesis'), args, {
        cwd: here,
        env: { ...process.env, LORE_SCHEMATHESIS_AUTH: authFile, NO_COLOR: '1' },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      child.once('error', reject);
      child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  } finally {
    rmSync(authFile, { force: true });
    await gateway?.stop();
    await llm.close();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

process.exitCode = await main().catch((error: Error) => {
  console.error(`schemathesis run: ${error.message}`);
  return 1;
});
