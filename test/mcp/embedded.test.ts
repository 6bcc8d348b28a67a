// The MCP server in embedded mode: it opens the core in its own process on DATABASE_URL and calls no gateway
// (LORE_API_URL points at a closed port). The gateway here only sets up keys and data on the same database.
import { afterAll, beforeAll } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.ts';
import { createTestDatabase, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { describeToolBehaviour } from './behaviour.ts';
import { connectMcp } from './harness.ts';

let gw: TestGateway;
let llm: FakeLlm;
let databaseUrl: string;
beforeAll(async () => {
  llm = await startFakeLlm();
  databaseUrl = await createTestDatabase();
  gw = await startTestGateway({ DATABASE_URL: databaseUrl });
});
afterAll(async () => {
  await gw?.close();
  await llm?.close();
});

describeToolBehaviour('embedded', {
  gateway: () => gw,
  llm: () => llm,
  connect: (env, options) => {
    const base = { DATABASE_URL: databaseUrl, LORE_API_URL: 'http://127.0.0.1:9', LORE_ANTHROPIC_BASE_URL: llm.url, ...env };
    // Both switches: the CLI flag, and LORE_MCP_EMBEDDED for the bin entry.
    return options?.viaCli
      ? connectMcp(base, ['bin/lore.mjs', 'mcp', '--embedded'])
      : connectMcp({ ...base, LORE_MCP_EMBEDDED: '1' }, ['bin/lore-mcp.mjs']);
  },
});
