// Spawns Lore's MCP server as an AI client does (command "node", args [bin entry], an env block) and talks to it with
// the SDK's own Client over stdio; plus the checks both modes share.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export type McpSession = { client: Client; stderr(): string; close(): Promise<void> };

/** args: the bin entry and its flags, for example ['bin/lore-mcp.mjs'] or ['bin/lore.mjs', 'mcp', '--embedded']. */
export async function connectMcp(env: Record<string, string>, args = ['bin/lore-mcp.mjs']): Promise<McpSession> {
  // Only the env block (and the SDK's few inherited variables such as PATH and HOME) reaches the server.
  const transport = new StdioClientTransport({ command: 'node', args, cwd: repoRoot, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'lore-mcp-test', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`the MCP server did not start: ${(error as Error).message}\n${stderr}`);
  }
  return { client, stderr: () => stderr, close: () => client.close() };
}

export async function callTool(session: McpSession, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await session.client.callTool({ name, arguments: args })) as CallToolResult;
}

export const textOf = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** A tool error carries the problem's code and HTTP status in its text: "Lore error <code> (HTTP <status>): <detail>". */
export function expectToolError(result: CallToolResult, code: string, status?: number): string {
  const text = textOf(result);
  expect(result.isError, text).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  expect(text).toMatch(new RegExp(`^Lore error ${code}${status ? ` \\(HTTP ${status}\\)` : ''}: \\S`));
  return text;
}

export const toolNames = ['lore_author_brief', 'lore_author_promises', 'lore_author_knowledge', 'lore_author_recall', 'lore_author_remember', 'lore_author_graph', 'lore_author_search', 'lore_author_check', 'lore_author_timeline', 'lore_author_review', 'lore_author_decide', 'lore_author_extract', 'lore_author_chapters', 'lore_author_check_chapter'];

/** The listing both modes must give: every tool, described, with input and output schemas and honest annotations. */
export async function expectToolListing(session: McpSession) {
  const { tools } = await session.client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual([...toolNames].sort());
  for (const tool of tools) {
    expect(tool.title, tool.name).toBeTruthy();
    expect(tool.description!.length, tool.name).toBeGreaterThan(80);
    expect(tool.inputSchema.type).toBe('object');
    expect(tool.outputSchema?.type, tool.name).toBe('object');
    for (const [field, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
      expect((schema as { description?: string }).description, `${tool.name}.${field}`).toBeTruthy();
    }
    // check, timeline and extract call the writer's LLM provider: the only tools that reach outside Lore.
    expect(tool.annotations?.openWorldHint).toBe(['lore_author_check', 'lore_author_timeline', 'lore_author_extract'].includes(tool.name));
  }
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const name of ['lore_author_recall', 'lore_author_graph', 'lore_author_search', 'lore_author_timeline']) {
    expect(byName.get(name)!.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
  }
  // A tool that writes says whether it may destroy (the protocol's default is that it may); only decide can (a rejection removes).
  for (const tool of tools.filter((t) => t.annotations?.readOnlyHint === false)) {
    expect(tool.annotations?.destructiveHint, tool.name).toBe(tool.name === 'lore_author_decide');
  }
  expect(byName.get('lore_author_search')!.inputSchema.required).toEqual(['query']);
  expect(byName.get('lore_author_check')!.inputSchema.required).toEqual(['text']);
  expect(byName.get('lore_author_remember')!.inputSchema.required).toEqual(['entity']);
  expect(Object.keys(byName.get('lore_author_recall')!.inputSchema.properties!)).toEqual(['project', 'query', 'limit', 'as_of']);
}
