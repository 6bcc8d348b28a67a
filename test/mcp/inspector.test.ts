// An MCP client no one here wrote: the MCP Inspector's CLI mode (@modelcontextprotocol/inspector, pinned as a
// devDependency) launches the server itself, lists the tools and calls recall against a real gateway.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saltmarshBundle } from '../support/fixtures.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { repoRoot, toolNames } from './harness.ts';

let gw: TestGateway;
let serverEnv: string[];
beforeAll(async () => {
  gw = await startTestGateway();
  // An indie key has no projects:write: the project comes from a pro key of its account.
  const owner = await gw.createKey('pro');
  const { key } = await gw.createKey('indie', { accountId: owner.account });
  const { projectId } = await importBundle(gw, owner.key, saltmarshBundle());
  serverEnv = ['-e', `LORE_API_URL=${gw.url}`, '-e', `LORE_API_KEY=${key}`, '-e', `LORE_PROJECT_ID=${projectId}`];
});
afterAll(() => gw?.close());

/** `npx mcp-inspector --cli node bin/lore-mcp.mjs …`: its exit code and output, whatever the exit code. */
async function inspector(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  // The server starts in seconds, but CI machines can be busy: allow more than the Inspector's default 15 s.
  const argv = ['mcp-inspector', '--cli', 'node', 'bin/lore-mcp.mjs', ...serverEnv, '--connect-timeout', '60000', ...args];
  try {
    const { stdout, stderr } = await promisify(execFile)('npx', argv, { cwd: repoRoot, timeout: 110_000, env: { ...process.env, npm_config_loglevel: 'error' } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('MCP Inspector CLI', { timeout: 120_000 }, () => {
  it('when it lists the tools with --strict, then it exits 0 and finds every tool with portable schemas', async () => {
    const run = await inspector('--method', 'tools/list', '--format', 'json', '-q', '--strict');
    expect(run.code, run.stderr).toBe(0);
    const listed = JSON.parse(run.stdout);
    expect(listed.result.tools.map((t: { name: string }) => t.name).sort()).toEqual([...toolNames].sort());
    expect(run.stderr).not.toMatch(/Warning: tool/);
  });

  it('when it calls lore_author_recall with a query, then it exits 0 with the entity in structured and text content', async () => {
    const run = await inspector('--method', 'tools/call', '--tool-name', 'lore_author_recall', '--tool-arg', 'query=Keth', '--format', 'json', '-q');
    expect(run.code, run.stderr).toBe(0);
    const { result } = JSON.parse(run.stdout);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.entities).toHaveLength(1);
    expect(result.structuredContent.entities[0]).toMatchObject({ canonicalName: 'Keth Voss', currentState: { status: 'dead' } });
    expect(result.content[0].text).toContain('Keth Voss (character, approved');
  });

  it('when it calls a tool that fails, then it exits 5 with the tool error', async () => {
    const run = await inspector('--method', 'tools/call', '--tool-name', 'lore_author_recall', '--tool-arg', 'project=prj_missing', '--format', 'json', '-q');
    expect(run.code, run.stdout + run.stderr).toBe(5);
    expect(run.stdout + run.stderr).toContain('Lore error not_found (HTTP 404)');
  });
});
