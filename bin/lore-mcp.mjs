#!/usr/bin/env node
// The MCP server an AI client launches directly (command "node", args ["<repo>/bin/lore-mcp.mjs"]); the same as
// `lore mcp`. Add --embedded (or LORE_MCP_EMBEDDED=1) to run the core in-process instead of calling the gateway.
import { loadEntry } from './entry.mjs';

const { runMcpServer } = await loadEntry('lore-mcp', 'mcp/server.ts');
try {
  await runMcpServer({ embedded: process.argv.includes('--embedded') || undefined });
} catch (error) {
  process.stderr.write(`lore-mcp: ${error.message}\n`);
  process.exit(1);
}
