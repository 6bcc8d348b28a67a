// The MCP server in remote mode: spawned over stdio, it calls a real gateway (over its own PostgreSQL database) with
// the key from its env block, so scopes, quotas and rate limits are the gateway's.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { describeToolBehaviour } from './behaviour.ts';
import { callTool, connectMcp, expectToolError, repoRoot } from './harness.ts';

let gw: TestGateway;
let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
  gw = await startTestGateway({ LORE_ANTHROPIC_BASE_URL: llm.url });
});
afterAll(async () => {
  await gw?.close();
  await llm?.close();
});

describeToolBehaviour('remote', {
  gateway: () => gw,
  llm: () => llm,
  connect: (env, options) =>
    connectMcp({ LORE_API_URL: gw.url, ...env }, options?.viaCli ? ['bin/lore.mjs', 'mcp'] : ['bin/lore-mcp.mjs']),
});

describe('remote: transport', () => {
  it('when the gateway cannot be reached, then a tool error says where it looked and what to do', async () => {
    const session = await connectMcp({ LORE_API_URL: 'http://127.0.0.1:9', LORE_API_KEY: `sk_lore_${'B'.repeat(40)}`, LORE_PROJECT_ID: 'prj_x' });
    try {
      const text = expectToolError(await callTool(session, 'lore_author_recall', {}), 'gateway_unreachable');
      expect(text).toContain('http://127.0.0.1:9');
      expect(text).toContain('LORE_MCP_EMBEDDED');
    } finally {
      await session.close();
    }
  });

  it('when a client speaks raw JSON-RPC on stdin, then every stdout line is a protocol message', async () => {
    const child = spawn('node', ['bin/lore-mcp.mjs'], { cwd: repoRoot, env: { PATH: process.env.PATH, LORE_API_URL: gw.url }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'lore_author_recall', arguments: {} } });
    const deadline = Date.now() + 45_000;
    while (!stdout.includes('"id":2') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdin.end();
    expect(await exited).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    const messages = lines.map((line) => JSON.parse(line));
    for (const m of messages) expect(m.jsonrpc).toBe('2.0');
    expect(messages[0].result.serverInfo.name).toBe('lore');
    expect(messages[1].result.isError).toBe(true);
  });
});
