// `lore import <path>` and `lore sync` as a writer runs them, on real files of every format the tests write
// themselves, against PostgreSQL (DATABASE_URL), checked through the gateway that serves the same database.
import { rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, expectCleanFailure, lore, repoRoot } from '../support/cli.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { cocoaRtf, docxBomb, docxBook, markdownBook, saltmarshVault, tempDir, writeFiles, writeScrivener } from './fixtures.ts';
import { exported, mentionsOf, recallOne } from './support.ts';

let gw: TestGateway;
let key: string;
let env: Record<string, string>;
const dirs: string[] = [];
const dir = async (prefix: string) => {
  const made = await tempDir(prefix);
  dirs.push(made);
  return made;
};

beforeAll(async () => {
  gw = await startTestGateway();
  env = { DATABASE_URL: gw.databaseUrl };
  ({ key } = await gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 }));
});
afterAll(async () => {
  await gw?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function run(args: string[]) {
  const result = await lore(args, env);
  if (result.code !== 0) throw new Error(`lore ${args.join(' ')} exited ${result.code}:\n${result.stderr}\n${result.stdout}`);
  return result;
}

const entitiesOnly = (name: string) => ({
  project: { name },
  entities: [
    { key: 'mara', type: 'character', name: 'Mara Voss', aliases: ['Mara'] },
    { key: 'keth', type: 'character', name: 'Keth Voss', aliases: ['Keth'] },
  ],
});

// Each CLI run loads the sources through tsx: seconds apiece, more on a busy machine.
describe('lore import <manuscript>', { timeout: 300_000 }, () => {
  it('when a Markdown file is imported, then it is cut into chapters at its headings, named after the file, and importing it again changes nothing', async () => {
    const d = await dir('md');
    const file = path.join(d, 'saltmarsh-draft.md');
    await writeFile(file, markdownBook([
      { title: 'Low Tide', text: 'Mara Voss stood on the quay.\nThe tide went out.' },
      { title: 'High Water', text: 'Keth came home.\n\n```\n## not a chapter\n```' },
    ]));
    const first = await run(['import', file, '--key', key]);
    const projectId = /into project (prj_\w+) \(new\): 2 added/.exec(first.stdout)?.[1];
    expect(projectId, first.stdout).toBeTruthy();
    expect(first.stdout).toMatch(/\+ low-tide "Low Tide" \(saltmarsh-draft\.md:3\) added/);
    const { chapters } = await exported(gw, key, projectId!);
    expect(chapters.map((c) => [c.id, c.title, c.ordinal])).toEqual([['low-tide', 'Low Tide', 1], ['high-water', 'High Water', 2]]);
    expect(chapters[1].text).toBe('Keth came home.\n\n```\n## not a chapter\n```');
    const projects = await gw.request('/projects', { key });
    expect(projects.body.data.find((p: any) => p.id === projectId).name).toBe('saltmarsh-draft');

    const again = await run(['import', file, '--key', key, '--json']);
    const result = JSON.parse(again.stdout);
    expect(result).toMatchObject({ projectId, projectCreated: false, changed: false, chapters: [], unchangedChapters: 2 });
  });

  it('when a .docx written by Word is imported, then its Heading 1 paragraphs start the chapters and each paragraph is a line', async () => {
    const d = await dir('docx');
    const file = path.join(d, 'Novel.docx');
    await writeFile(file, await docxBook([
      { title: 'The Wreck', text: 'Mara Voss dove for the wreck.\nThe water was cold.' },
      { title: 'The Harbour', text: 'Keth waited on the quay.' },
    ]));
    const { stdout } = await run(['import', file, '--key', key, '--json']);
    const result = JSON.parse(stdout);
    expect(result.format).toBe('docx');
    const { chapters } = await exported(gw, key, result.projectId);
    expect(chapters.map((c) => [c.id, c.title, c.text])).toEqual([
      ['the-wreck', 'The Wreck', 'Mara Voss dove for the wreck.\nThe water was cold.'],
      ['the-harbour', 'The Harbour', 'Keth waited on the quay.'],
    ]);
  });

  it('when a Scrivener 3 project is imported, then the Draft folder gives the chapters in binder order, a folder chapter holds its scenes, and excluded items and Research stay out', async () => {
    const d = await dir('scriv');
    const project = path.join(d, 'Saltmarsh.scriv');
    await writeScrivener(project, [
      { uuid: 'A1B2C3D4-0000-4000-8000-00000000000A', title: 'Low Tide', text: 'Mara Voss stood on the quay.\nCafé “Gull” was closed.' },
      {
        uuid: 'A1B2C3D4-0000-4000-8000-00000000000B', title: 'High Water', type: 'Folder', children: [
          { uuid: 'A1B2C3D4-0000-4000-8000-00000000000C', title: 'Scene one', text: 'Keth came home.' },
          { uuid: 'A1B2C3D4-0000-4000-8000-00000000000D', title: 'Cut scene', text: 'Never compiled.', include: false },
          { uuid: 'A1B2C3D4-0000-4000-8000-00000000000E', title: 'Scene two', text: 'The storm broke.' },
        ],
      },
      { uuid: 'A1B2C3D4-0000-4000-8000-00000000000F', title: 'Notes to self', text: 'Fix chapter two.', include: false },
    ], [{ uuid: 'A1B2C3D4-0000-4000-8000-000000000010', title: 'Map', text: 'Research text.' }]);
    const { stdout } = await run(['import', project, '--key', key, '--json']);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ format: 'scrivener', chapterCount: 2 });
    expect(result.skipped.map((s: any) => s.reason)).toEqual(['not included in the compile', 'not included in the compile']);
    const { chapters } = await exported(gw, key, result.projectId);
    expect(chapters.map((c) => [c.id, c.title, c.text])).toEqual([
      ['A1B2C3D4-0000-4000-8000-00000000000A', 'Low Tide', 'Mara Voss stood on the quay.\nCafé “Gull” was closed.'],
      ['A1B2C3D4-0000-4000-8000-00000000000B', 'High Water', 'Keth came home.\n\nThe storm broke.'],
    ]);
    const projects = await gw.request('/projects', { key });
    expect(projects.body.data.find((p: any) => p.id === result.projectId).name).toBe('Saltmarsh');
  });

  it('when an Obsidian vault is imported, then entity notes become entities with aliases, facts, state and relationships, links read as their text and are found as mentions, and chapter notes become chapters', async () => {
    const d = await dir('vault');
    await writeFiles(d, saltmarshVault());
    const { stdout } = await run(['import', d, '--key', key, '--name', 'Saltmarsh vault', '--json']);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ format: 'obsidian', chapterCount: 2, entityCount: 3, relationshipCount: 1 });
    expect(result.skipped).toEqual([{ file: 'Ideas.md', reason: expect.stringMatching(/neither an entity .* nor a chapter/) }]);
    const { projectId } = result;
    const { chapters, relationships } = await exported(gw, key, projectId);
    expect(chapters.map((c) => [c.id, c.title, c.ordinal])).toEqual([['chapters.01-low-tide', 'Low Tide', 1], ['chapters.02-high-water', 'High Water', 2]]);
    expect(chapters[0].text).toBe('The Captain stood on the deck of the Gull.\nKeth watched her. ');
    expect(relationships).toEqual([expect.objectContaining({ from: 'mara-voss', to: 'keth-voss', kind: 'sibling_of' })]);

    const mara = await recallOne(gw, key, projectId, 'Mara Voss');
    expect(mara.aliases).toEqual(['Mara', 'The Captain']);
    expect(mara.approvalStatus).toBe('approved');
    expect(mara.currentState).toEqual({ status: 'alive' });
    expect(mara.facts.map((f: any) => f.text)).toEqual(["Mara's eyes are green.", 'She captains the Gull.']);
    const maraMentions = await mentionsOf(gw, key, projectId, mara.id);
    expect(maraMentions.map((m) => [m.chapter, m.line])).toEqual([['chapters.01-low-tide', 1], ['chapters.02-high-water', 1]]);
    const gull = await recallOne(gw, key, projectId, 'The Gull');
    expect((await mentionsOf(gw, key, projectId, gull.id)).map((m) => m.chapter)).toEqual(['chapters.01-low-tide']);
  });
});

describe('lore sync', { timeout: 300_000 }, () => {
  let book: string;
  let projectId: string;

  beforeAll(async () => {
    projectId = (await importBundle(gw, key, entitiesOnly('Sync book'))).projectId;
    book = await dir('sync');
    await writeFiles(book, {
      '01 Low Tide.md': '# Low Tide\n\nMara stood on the quay.',
      '2 High Water.md': '# High Water\n\nKeth came home.',
      '10 Storm.md': '# Storm\n\nMara and Keth Voss rode out the storm.',
      'notes.pdf': 'not read',
    });
  });

  it('when a folder is synced, then it takes the files in natural order; after an edit, an addition and a removal it does exactly those and records only the edited and added chapters\' mentions', async () => {
    const first = await run(['sync', book, '--project', projectId, '--key', key]);
    expect(first.stdout).toMatch(/synced .* with project prj_\w+: 3 added, 0 edited, 0 moved, 0 retitled, 0 removed, 0 unchanged/);
    let { chapters } = await exported(gw, key, projectId);
    expect(chapters.map((c) => [c.id, c.ordinal])).toEqual([['01-low-tide', 1], ['2-high-water', 2], ['10-storm', 3]]);
    const mara = await recallOne(gw, key, projectId, 'Mara Voss');
    const before = await mentionsOf(gw, key, projectId, mara.id);
    expect(before.map((m) => m.chapter)).toEqual(['01-low-tide', '10-storm']);

    await writeFile(path.join(book, '2 High Water.md'), '# High Water\n\nKeth came home. Mara was waiting.');
    await writeFile(path.join(book, '05 Calm.md'), '# Calm\n\nThe sea lay flat.');
    await unlink(path.join(book, '10 Storm.md'));
    const second = await run(['sync', book, '--project', projectId, '--key', key]);
    expect(second.stdout).toMatch(/1 added, 1 edited, 0 moved, 0 retitled, 1 removed, 1 unchanged/);
    expect(second.stdout).toContain('~ 2-high-water "High Water" (2 High Water.md:1) edited');
    expect(second.stdout).toContain('+ 05-calm "Calm" (05 Calm.md:1) added');
    expect(second.stdout).toContain('- 10-storm "Storm" removed');
    ({ chapters } = await exported(gw, key, projectId));
    expect(chapters.map((c) => [c.id, c.ordinal])).toEqual([['01-low-tide', 1], ['2-high-water', 2], ['05-calm', 3]]);
    const after = await mentionsOf(gw, key, projectId, mara.id);
    // The untouched chapter keeps its very mention rows; the edited one has new ones; the removed one's are gone.
    expect(after.find((m) => m.chapter === '01-low-tide')!.id).toBe(before.find((m) => m.chapter === '01-low-tide')!.id);
    expect(after.map((m) => m.chapter)).toEqual(['01-low-tide', '2-high-water']);

    const third = await run(['sync', book, '--project', projectId, '--key', key]);
    expect(third.stdout).toMatch(/nothing changed \(3 chapters\)/);
  });

  it('when a removed chapter is still the start of a fact, then the sync is refused with a line naming the chapter and the fact, and nothing of it is written', async () => {
    const bundle = { project: { name: 'Sync book' }, entities: [{ key: 'keth', type: 'character', name: 'Keth Voss', aliases: ['Keth'], facts: [{ text: 'Keth is home.', from: '2-high-water' }] }] };
    await importBundle(gw, key, bundle, projectId);
    await rename(path.join(book, '2 High Water.md'), path.join(book, '2 Homecoming.md'));
    await writeFile(path.join(book, '07 Dawn.md'), '# Dawn\n\nLight.');
    const refused = await lore(['sync', book, '--project', projectId, '--key', key], env);
    expectCleanFailure(refused, /sync failed \(in_use\)/);
    expect(refused.stderr).toMatch(/^chapter 2-high-water: is no longer in the manuscript, but fact fct_\w+ of Keth Voss \("Keth is home\."\) holds from it$/m);
    const { chapters } = await exported(gw, key, projectId);
    expect(chapters.map((c) => c.id)).toEqual(['01-low-tide', '2-high-water', '05-calm']);
    await rename(path.join(book, '2 Homecoming.md'), path.join(book, '2 High Water.md'));
    await unlink(path.join(book, '07 Dawn.md'));
  });

  it('when --json is given, then stdout is the result as JSON and progress goes to stderr as JSON lines', async () => {
    await writeFile(path.join(book, '05 Calm.md'), '# Calm\n\nThe sea lay flat, and Mara slept.');
    const { stdout, stderr } = await run(['sync', book, '--project', projectId, '--key', key, '--json']);
    expect(JSON.parse(stdout)).toMatchObject({ projectId, changed: true, chapters: [{ id: '05-calm', change: 'edited', ordinal: 3 }], unchangedChapters: 2 });
    const progress = stderr.trim().split('\n').map((line) => JSON.parse(line).progress);
    expect(progress).toContainEqual(expect.objectContaining({ phase: 'read', done: 3, total: 3, unit: 'files' }));
    expect(progress).toContainEqual(expect.objectContaining({ phase: 'sync' }));
  });

  it('when --watch runs, then saving a chapter syncs it, and Ctrl-C stops the watch cleanly', async () => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/lore.mjs'), 'sync', book, '--project', projectId, '--key', key, '--watch'], { cwd: repoRoot, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const waitFor = async (check: () => boolean, what: string) => {
      for (let i = 0; i < 600 && !check(); i++) await new Promise((r) => setTimeout(r, 100));
      if (!check()) throw new Error(`${what} did not happen:\n${stdout}\n${stderr}`);
    };
    try {
      await waitFor(() => stderr.includes('watching'), 'the watch starting');
      expect(stdout).toMatch(/nothing changed/);
      await writeFile(path.join(book, '01 Low Tide.md'), '# Low Tide\n\nMara stood on the quay at dusk.');
      // The summary and the line per chapter may arrive in separate chunks: waited for is the last of them.
      await waitFor(() => stdout.includes('~ 01-low-tide "Low Tide" (01 Low Tide.md:1) edited'), 'the sync after a save');
      expect(stdout).toMatch(/0 added, 1 edited, 0 moved, 0 retitled, 0 removed, 2 unchanged/);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    const { chapters } = await exported(gw, key, projectId);
    expect(chapters[0].text).toBe('Mara stood on the quay at dusk.');
  });
});

describe('lore sync beside chapters of other sources', { timeout: 300_000 }, () => {
  it('when a project has chapters from a bundle, then --dry-run shows the sync without writing, the sync removes none of them, and --after places the manuscript', async () => {
    const bundle = {
      ...entitiesOnly('Sync beside a bundle'),
      chapters: [1, 2, 3].map((n) => ({ id: `ch-0${n}`, ordinal: n, title: `Bundle ${n}`, text: `Mara, chapter ${n}.` })),
    };
    const { projectId } = await importBundle(gw, key, bundle);
    const file = path.join(await dir('beside'), 'novel.md');
    await writeFile(file, markdownBook([{ title: 'Low Tide', text: 'Mara stood on the quay.' }, { title: 'High Water', text: 'Keth came home.' }]));

    const dry = await run(['sync', file, '--project', projectId, '--key', key, '--dry-run']);
    expect(dry.stdout).toMatch(/would sync .* with project prj_\w+ \(dry run: nothing written\): 2 added, 0 edited, 0 moved, 0 retitled, 0 removed/);
    expect(dry.stdout).toContain('+ low-tide "Low Tide" (novel.md:3) added');
    expect((await exported(gw, key, projectId)).chapters.map((c) => c.id)).toEqual(['ch-01', 'ch-02', 'ch-03']);

    const synced = await run(['sync', file, '--project', projectId, '--key', key]);
    expect(synced.stdout).toMatch(/2 added, 0 edited, 0 moved, 0 retitled, 0 removed/);
    expect((await exported(gw, key, projectId)).chapters.map((c) => [c.id, c.ordinal])).toEqual([['ch-01', 1], ['ch-02', 2], ['ch-03', 3], ['low-tide', 4], ['high-water', 5]]);

    await run(['sync', file, '--project', projectId, '--key', key, '--after', 'ch-01']);
    expect((await exported(gw, key, projectId)).chapters.map((c) => [c.id, c.ordinal])).toEqual([['ch-01', 1], ['low-tide', 2], ['high-water', 3], ['ch-02', 4], ['ch-03', 5]]);
  });
});

describe('bad manuscripts', { timeout: 300_000 }, () => {
  let projectId: string;
  beforeAll(async () => {
    projectId = (await importBundle(gw, key, { ...entitiesOnly('Bad input'), chapters: [{ id: 'kept', title: 'Kept', ordinal: 1, text: 'Mara.' }] })).projectId;
  });
  const unchanged = async () => expect((await exported(gw, key, projectId)).chapters.map((c) => c.id)).toEqual(['kept']);

  it('when a .docx is not a zip, is encrypted, or is cut short, then each is one line naming the file and nothing is written', async () => {
    const d = await dir('bad-docx');
    const good = await docxBook([{ title: 'One', text: 'Text.' }]);
    const cases: [string, Buffer, RegExp][] = [
      ['plain.docx', Buffer.from('just some text'), /^plain\.docx: is not a \.docx file/m],
      ['locked.docx', Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(512)]), /^locked\.docx: is encrypted \(password-protected\)/m],
      ['cut.docx', good.subarray(0, Math.floor(good.length / 2)), /^cut\.docx: is a corrupt \.docx file/m],
    ];
    for (const [name, content, line] of cases) {
      await writeFile(path.join(d, name), content);
      const result = await lore(['import', path.join(d, name), '--key', key, '--project', projectId], env);
      expectCleanFailure(result, /import failed: 1 problem, nothing was written/);
      expect(result.stderr).toMatch(line);
    }
    await unchanged();
  });

  it('when a .docx inflates to 400 MB, then one line names the file and the limit, the exit is non-zero, and nothing is written', async () => {
    const d = await dir('bomb');
    await writeFile(path.join(d, 'bomb.docx'), await docxBomb(400 * 1024 * 1024));
    const result = await lore(['import', path.join(d, 'bomb.docx'), '--key', key, '--project', projectId], env);
    expectCleanFailure(result, /^lore: import failed \(payload_too_large\): bomb\.docx would inflate to more than 128 MB \(its directory declares \d+ MB so far\); an archive may inflate to at most 128 MB; nothing was imported\.$/m);
    expect(result.stderr.split('\n').filter((line) => /fail|error|memory|bomb/i.test(line))).toHaveLength(1);
    await unchanged();
  });

  it('when a folder holds a binary file named .md and a chapter over the size limit, then both are reported, each naming its file, and nothing is written', async () => {
    const d = await dir('bad-folder');
    await writeFiles(d, {
      '01 Fine.md': '# Fine\n\nMara.',
      '02 Picture.md': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0xff, 0xfe]),
      '03 Huge.txt': 'word '.repeat(1_000_001),
    });
    const result = await lore(['sync', d, '--project', projectId, '--key', key], env);
    expectCleanFailure(result, /sync failed: 2 problems, nothing was written/);
    expect(result.stderr).toMatch(/^02 Picture\.md: is not UTF-8 text/m);
    expect(result.stderr).toMatch(/^03 Huge\.txt:1: chapter "03 Huge" is 5,000,005 characters long; a chapter may have at most 5,000,000$/m);
    await unchanged();
  });

  it('when a vault has broken front matter and a relationship to no note, then each is reported with its file and line', async () => {
    const d = await dir('bad-vault');
    await writeFiles(d, {
      '.obsidian/app.json': '{}',
      'Characters/Mara.md': '---\ntype: character\naliases: [Mara, Captain\n---\nText.',
      'Characters/Keth.md': '---\ntype: character\nrelationships:\n  sibling_of: "[[Nobody]]"\n---\n',
    });
    const result = await lore(['import', d, '--key', key, '--project', projectId], env);
    expectCleanFailure(result, /import failed: \d+ problems/);
    expect(result.stderr).toMatch(/^Characters\/Mara\.md:3: broken front matter/m);
    expect(result.stderr).toMatch(/^Characters\/Keth\.md:3: relationships\.sibling_of: "\[\[Nobody\]\]" is not an entity note of this vault$/m);
    await unchanged();
  });

  it('when a Scrivener project has a damaged document or binder, then the line names the file', async () => {
    const d = await dir('bad-scriv');
    const project = path.join(d, 'Broken.scriv');
    await writeScrivener(project, [{ uuid: 'B0000000-0000-4000-8000-000000000001', title: 'One', text: 'Mara.' }]);
    const rtf = path.join(project, 'Files/Data/B0000000-0000-4000-8000-000000000001/content.rtf');
    await writeFile(rtf, cocoaRtf('Mara stood.').slice(0, 120));
    let result = await lore(['import', project, '--key', key, '--project', projectId], env);
    expectCleanFailure(result, /import failed: 1 problem/);
    expect(result.stderr).toMatch(/^Files\/Data\/B0000000-0000-4000-8000-000000000001\/content\.rtf: \(One\) is a damaged RTF document/m);
    await writeFile(path.join(project, 'Broken.scrivx'), '<?xml version="1.0"?>\n<ScrivenerProject>\n<Binder>\n</Binder2>\n</ScrivenerProject>');
    result = await lore(['import', project, '--key', key, '--project', projectId], env);
    expect(result.stderr).toMatch(/^Broken\.scrivx:4: is not well-formed XML/m);
    await unchanged();
  });

  it('when a link in the folder leads outside it, then the file behind it is never read', async () => {
    const outside = await dir('outside');
    await writeFile(path.join(outside, 'secret.md'), '# Secret\n\nThe password is hunter2.');
    const d = await dir('links');
    // A chapter of its own: the project's "kept" came from a bundle, which no manuscript takes over.
    await writeFiles(d, { 'also.md': '# Also kept\n\nMara.' });
    await symlink(path.join(outside, 'secret.md'), path.join(d, 'secret.md'));
    const { stdout } = await run(['sync', d, '--project', projectId, '--key', key, '--json']);
    const result = JSON.parse(stdout);
    expect(result.skipped).toEqual([{ file: 'secret.md', reason: 'a link to a file outside the manuscript folder: not read' }]);
    const { chapters } = await exported(gw, key, projectId);
    expect(chapters.map((c) => c.id)).toEqual(['kept', 'also']);
    expect(JSON.stringify(chapters)).not.toContain('hunter2');
  });
});
