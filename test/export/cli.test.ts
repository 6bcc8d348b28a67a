// `lore export` as a child process against PostgreSQL (DATABASE_URL): the bundle on stdout, or in a JSON or YAML file
// with a summary line, and `lore import` of that file into a new project giving the same export back.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanFailure, lore } from '../support/cli.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { generatedBundle } from './generated.ts';

let gw: TestGateway;
let dir: string;
let env: Record<string, string>;
let key: string;
let projectId: string;
let exported: any;

beforeAll(async () => {
  gw = await startTestGateway();
  env = { DATABASE_URL: gw.databaseUrl };
  dir = await mkdtemp(path.join(tmpdir(), 'lore-export-'));
  ({ key } = await gw.createKey('pro'));
  projectId = (await importBundle(gw, key, generatedBundle())).projectId;
  const res = await gw.request(`/projects/${projectId}/export`, { key });
  expect(res.status, res.text).toBe(200);
  exported = res.body;
});
afterAll(async () => {
  await gw?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function run(args: string[]) {
  const result = await lore(args, env);
  if (result.code !== 0) throw new Error(`lore ${args.join(' ')} exited ${result.code}:\n${result.stderr}`);
  return result;
}

/** `lore import` of `file` with a new account's key (so into a new project of the bundle's name), then its export. */
async function importedBack(file: string) {
  const other = await gw.createKey('pro');
  const imported = JSON.parse((await run(['import', file, '--key', other.key, '--json'])).stdout);
  expect(imported).toMatchObject({ projectId: expect.stringMatching(/^prj_/), changed: true });
  const res = await gw.request(`/projects/${imported.projectId}/export`, { key: other.key });
  expect(res.status, res.text).toBe(200);
  return res;
}

/** What the summary counts, from the bundle itself. */
const countsOf = (bundle: any) => ({
  entities: bundle.entities.length,
  facts: bundle.entities.reduce((n: number, e: any) => n + (e.facts?.length ?? 0), 0),
  stateChanges: bundle.entities.reduce((n: number, e: any) => n + (e.stateChanges?.length ?? 0), 0),
  relationships: bundle.relationships.length,
  chapters: bundle.chapters.length,
  beats: bundle.timeline.reduce((n: number, t: any) => n + t.beats.length, 0),
});

// Each CLI run loads the sources through tsx: seconds apiece, many more on a busy machine.
describe('lore export', { timeout: 240_000 }, () => {
  it('when run without --out, then it prints the bundle: indented, or on one line with --json', async () => {
    const [text, json] = await Promise.all([
      run(['export', '--project', projectId, '--key', key]),
      run(['export', '--project', projectId, '--key', key, '--json']),
    ]);
    expect(JSON.parse(text.stdout)).toEqual(exported);
    expect(text.stdout).toBe(`${JSON.stringify(exported, null, 2)}\n`);
    expect(json.stdout).toBe(`${JSON.stringify(exported)}\n`);
    expect(text.stderr).toBe('');
  });

  it('when --out names a JSON file, then it writes the bundle and prints a summary, and lore import of the file gives the same export', async () => {
    const file = path.join(dir, 'orchard.lore.json');
    const jsonFile = path.join(dir, 'orchard-summary.json');
    const [text, json] = await Promise.all([
      run(['export', '--project', projectId, '--key', key, '--out', file]),
      run(['export', '--project', projectId, '--key', key, '--out', jsonFile, '--json']),
    ]);
    const counts = countsOf(exported);
    expect(counts).toEqual({ entities: 24, facts: 108, stateChanges: 54, relationships: 30, chapters: 9, beats: 10 });
    expect(text.stdout).toBe(
      `exported project ${projectId} to ${file}: 24 entities, 108 facts, 54 state changes, 30 relationships, 9 chapters, 10 beats\n`,
    );
    expect(JSON.parse(json.stdout)).toEqual({ projectId, file: jsonFile, counts });
    expect(await readFile(file, 'utf8')).toBe(`${JSON.stringify(exported, null, 2)}\n`);

    const back = await importedBack(file);
    expect(back.body).toEqual(exported);
    expect(back.text).toBe(JSON.stringify(exported));
  });

  it('when --out ends in .yaml, then it writes YAML, and lore import of it gives the same export', async () => {
    const file = path.join(dir, 'orchard.yaml');
    await run(['export', '--project', projectId, '--key', key, '--out', file]);
    const written = await readFile(file, 'utf8');
    expect(() => JSON.parse(written)).toThrow();
    expect(YAML.parse(written)).toEqual(exported);

    const back = await importedBack(file);
    expect(back.text).toBe(JSON.stringify(exported));
  });

  it("when the project is another account's or missing, the key is bad, or the file cannot be written, then it exits non-zero with a clear message", async () => {
    const other = await gw.createKey('pro');
    const [theirs, missing, badKey, unwritable, json] = await Promise.all([
      lore(['export', '--project', projectId, '--key', other.key], env),
      lore(['export', '--project', 'prj_01nosuchproject0000000000', '--key', key], env),
      lore(['export', '--project', projectId, '--key', `sk_lore_${'C'.repeat(40)}`], env),
      lore(['export', '--project', projectId, '--key', key, '--out', path.join(dir, 'no-such-dir', 'x.json')], env),
      lore(['export', '--project', projectId, '--key', other.key, '--json'], env),
    ]);
    expectCleanFailure(theirs, new RegExp(`export failed \\(not_found\\): Project ${projectId} not found`));
    expectCleanFailure(missing, /export failed \(not_found\): Project prj_01nosuchproject0000000000 not found/);
    expectCleanFailure(badKey, /AUTH_INVALID_KEY/);
    expectCleanFailure(unwritable, /cannot write .*no-such-dir/);
    for (const failed of [theirs, missing, badKey, unwritable]) expect(failed.stdout).toBe('');
    expectCleanFailure(json, /not_found/);
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: 'not_found', detail: `Project ${projectId} not found.` } });
  });
});
