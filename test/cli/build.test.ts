// The CLI's JavaScript build (scripts/build-cli.mjs, run by npm's `prepare`): a command starts from it without tsx,
// and only while every source file it was built from holds what it held then.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freshBuild } from '../../bin/entry.mjs';
import { cliEnv, repoRoot } from '../support/cli.ts';

const run = promisify(execFile);
// The CPU time the command spent, printed as it exits: wall time depends on how busy the machine is, this much less.
const reportCpu = 'data:text/javascript,process.on("exit",()=>{const u=process.cpuUsage();process.stderr.write(`cpu-ms ${(u.user+u.system)/1000}\\n`)})';

let dir: string | undefined;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the CLI build', { timeout: 120_000 }, () => {
  it('when the CLI is built, then --help and --version start from the build, without tsx, in a fraction of its cost', async () => {
    await run(process.execPath, ['scripts/build-cli.mjs'], { cwd: repoRoot });
    const { version } = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    const lore = (args: string[]) => run(process.execPath, ['--import', reportCpu, 'bin/lore.mjs', ...args], { cwd: repoRoot, env: cliEnv({}) });
    const shown = await lore(['--version']);
    expect(shown.stdout.trim()).toBe(version);
    const help = await lore(['--help']);
    expect(help.stdout).toMatch(/Usage: lore/);
    // Through tsx --help costs 0.55-0.65 s of CPU (tsx alone about 0.35 s), from the build 0.1-0.2 s on an idle
    // machine and up to 0.31 s seen beside the whole suite: the bound tells the two apart, it is not a speed target.
    const cpuMs = Number(/cpu-ms (\S+)/.exec(help.stderr)?.[1]);
    expect(cpuMs).toBeLessThan(450);
  });

  it('when the Prisma client is generated again after the build (npm ci does), then the build stays in use: it stands for the client by its schema', async () => {
    const meta = JSON.parse(await readFile(path.join(repoRoot, 'dist/cli/meta.json'), 'utf8')) as { inputs: Record<string, string> };
    // Each generation writes its own absolute path and its config's keys in no fixed order.
    expect(Object.keys(meta.inputs).filter((input) => input.startsWith('src/generated/'))).toEqual([]);
    expect(Object.keys(meta.inputs)).toEqual(expect.arrayContaining(['prisma/schema.prisma', 'package.json', 'app/cli.ts']));
    expect(freshBuild('lore')).toBeDefined();
  });

  it('when a source file changed since the build, or is missing, or there is no build, then the build is not used; a file rewritten as it was keeps it', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'lore-build-'));
    const root = pathToFileURL(`${dir}/`);
    expect(freshBuild('lore', root)).toBeUndefined();
    await mkdir(path.join(dir, 'dist/cli'), { recursive: true });
    await writeFile(path.join(dir, 'a.ts'), 'export const a = 1;\n');
    const builtAt = Date.now();
    const hash = createHash('sha256').update('export const a = 1;\n').digest('hex');
    await utimes(path.join(dir, 'a.ts'), new Date(builtAt - 60_000), new Date(builtAt - 60_000));
    await writeFile(path.join(dir, 'dist/cli/meta.json'), JSON.stringify({ builtAt, inputs: { 'a.ts': hash } }));
    const built = new URL('dist/cli/lore.mjs', root).href;
    expect(freshBuild('lore', root)?.href).toBe(built);
    // As npm's postinstall does to the generated Prisma client after the build in a fresh clone.
    await writeFile(path.join(dir, 'a.ts'), 'export const a = 1;\n');
    await utimes(path.join(dir, 'a.ts'), new Date(builtAt + 1_000), new Date(builtAt + 1_000));
    expect(freshBuild('lore', root)?.href).toBe(built);
    await writeFile(path.join(dir, 'a.ts'), 'export const a = 2;\n');
    await utimes(path.join(dir, 'a.ts'), new Date(builtAt + 2_000), new Date(builtAt + 2_000));
    expect(freshBuild('lore', root)).toBeUndefined();
    await writeFile(path.join(dir, 'dist/cli/meta.json'), JSON.stringify({ builtAt, inputs: { 'gone.ts': hash } }));
    expect(freshBuild('lore', root)).toBeUndefined();
  });
});
