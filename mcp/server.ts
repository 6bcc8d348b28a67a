// Lore's MCP server over stdio: AI clients spawn it (`lore mcp`, or `node bin/lore-mcp.mjs`) with LORE_API_KEY in the
// env block. stdout carries only the protocol; the start-up line and logs go to stderr.
import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { keyProblem, openClient } from './client.ts';
import { brief } from './tools/brief.ts';
import { promises } from './tools/promises.ts';
import { knowledge } from './tools/knowledge.ts';
import { check } from './tools/check.ts';
import { checkChapter } from './tools/checkChapter.ts';
import { graph } from './tools/graph.ts';
import { recall } from './tools/recall.ts';
import { remember } from './tools/remember.ts';
import { search } from './tools/search.ts';
import { timeline } from './tools/timeline.ts';
import { decide } from './tools/decide.ts';
import { review } from './tools/review.ts';
import { chapters } from './tools/chapters.ts';
import { extract } from './tools/extract.ts';
import type { LoreTool } from './tools/shared.ts';

// The tool registry: one file per tool. check, timeline and extract run the writer's own LLM (LORE_LLM_* in the env block).
export const tools: LoreTool[] = [brief, promises, knowledge, recall, remember, graph, search, check, checkChapter, timeline, review, decide, extract, chapters];

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

const instructions =
  'Lore keeps the canon of a work of fiction: characters, locations, objects, events, rules and promises, their facts, ' +
  'mentions in the manuscript and relationships. Recall or search before writing about an entity; remember proposes ' +
  'canon for the writer to review, and approves only when the author explicitly asks. Tools act on one project: ' +
  'pass "project" or rely on the default (LORE_PROJECT_ID).';

const say = (line: string) => process.stderr.write(`lore-mcp: ${line}\n`);

/** Serves the tools over stdio until the client closes stdin or the process is told to stop. */
export async function runMcpServer(options: { embedded?: boolean } = {}): Promise<void> {
  const config = loadConfig();
  // Warnings and errors only: clients show a server's stderr as its log.
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const embedded = options.embedded ?? config.mcp.embedded;
  const client = openClient(config, logger, { embedded });

  const server = new McpServer({ name: 'lore', title: 'Lore', version }, { instructions });
  for (const tool of tools) tool.register(server, { client, defaultProjectId: config.mcp.projectId, logger });

  say(`${tools.map((t) => t.name).join(', ')} over stdio; ${client.mode} mode, ${client.target}; default project ${config.mcp.projectId ?? 'none (pass "project")'}`);
  const problem = keyProblem(config.apiKey);
  if (problem) say(`${problem.code}: ${problem.detail} Set it in the "env" block of this server in the AI client's configuration; every tool call fails until then.`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.close().catch(() => undefined);
    await client.close().catch((error: Error) => logger.error({ err: error }, 'closing the store failed'));
    process.exit(0);
  };
  // The SDK's stdio transport does not watch for end of input; a client closes a server by ending its stdin.
  process.stdin.once('end', stop);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await server.connect(new StdioServerTransport());
}
