// lore_author_extract over stdio, as an AI client starts the server (remote mode against a real gateway; the writer's
// provider in the env block, answered by a loopback server speaking OpenAI's wire format); and `lore extract`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lore } from '../support/cli.ts';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { callTool, connectMcp, expectToolError, expectToolListing, textOf, type McpSession } from '../mcp/harness.ts';

let gw: TestGateway;
let fake: FakeLlm;
let key: string;
let projectId: string;
let session: McpSession;
const providerKey = 'sk-test-provider-key-0123456789';

const chapters = [
  { id: 'ch-01', title: 'Low Tide', ordinal: 1, text: 'Mara stood on the quay.\nThe lighthouse on Gull Point was dark.' },
  { id: 'ch-02', title: 'High Water', ordinal: 2, text: 'Keth swore an oath to find the Heron.' },
  { id: 'ch-03', title: 'Storm', ordinal: 3, text: 'The storm broke over Saltmarsh.' },
];

beforeAll(async () => {
  fake = await startFakeLlm();
  gw = await startTestGateway({ LORE_OPENAI_BASE_URL: fake.url });
  ({ key } = await gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 }));
  projectId = (await importBundle(gw, key, { project: { name: 'Extract over MCP' }, entities: [{ key: 'mara', type: 'character', name: 'Mara Voss', aliases: ['Mara'] }], chapters })).projectId;
  session = await connectMcp({ LORE_API_URL: gw.url, LORE_API_KEY: key, LORE_PROJECT_ID: projectId, LORE_LLM_PROVIDER: 'openai', LORE_LLM_KEY: providerKey });
});
afterAll(async () => {
  await session?.close();
  await gw?.close();
  await fake?.close();
});

describe('lore_author_extract', () => {
  it('when listed, then it is described with its input and output and marked as reaching the writer\'s provider', async () => {
    await expectToolListing(session);
    const { tools } = await session.client.listTools();
    expect(tools.find((t) => t.name === 'lore_author_extract')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: true });
  });

  it('when the assistant asks for a chapter, then the writer\'s provider reads it and the proposals wait for review, listed by lore_author_review', async () => {
    fake.script({
      object: {
        entities: [
          { name: 'Gull Point', type: 'location', aliases: [], quote: 'The lighthouse on Gull Point was dark.', facts: [{ text: 'Gull Point has a lighthouse.', quote: 'The lighthouse on Gull Point' }] },
          { name: 'Mara Voss', type: 'character', aliases: ['Mara'], quote: 'Mara stood on the quay.', facts: [{ text: 'Mara waits on the quay.', quote: 'Mara stood on the quay.' }] },
        ],
      },
    });
    const result = await callTool(session, 'lore_author_extract', { chapters: ['ch-01'] });
    expect(result.isError, textOf(result)).toBeFalsy();
    const out = result.structuredContent as any;
    expect(out).toMatchObject({ projectId, entities_proposed: 1, facts_proposed: 2, remaining_chapters: 0 });
    expect(out.chapters).toEqual([{ chapter: 'ch-01', title: 'Low Tide', status: 'asked', entities_proposed: 1, facts_proposed: 2, entities_matched: 1, promises_proposed: 0, dropped: 0 }]);
    expect(textOf(result)).toContain('lore_author_review');
    // The provider key went to the provider, in its own header, and nowhere else.
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${providerKey}`);

    const queue = await callTool(session, 'lore_author_review', {});
    const pending = (queue.structuredContent as any).candidates.map((c: any) => c.id).sort();
    expect(pending).toEqual([...out.candidate_ids].sort());
    expect(textOf(queue)).toContain('Gull Point');
  });

  it('when a chapter id is unknown, then the tool error names it', async () => {
    const result = await callTool(session, 'lore_author_extract', { chapters: ['ch-99'] });
    expect(expectToolError(result, 'validation_error', 400)).toContain('no chapter ch-99');
  });
});

describe('lore extract', { timeout: 240_000 }, () => {
  it('when run over the project, then it walks every chapter in requests of --limit, reports progress on stderr, and the totals on stdout', async () => {
    fake.fallback = { object: { entities: [{ name: 'Saltmarsh', type: 'location', aliases: [], quote: 'Saltmarsh', facts: [] }] } };
    try {
      const result = await lore(['extract', '--project', projectId, '--key', key, '--limit', '1', '--json'], {
        DATABASE_URL: gw.databaseUrl, LORE_OPENAI_BASE_URL: fake.url, LORE_LLM_PROVIDER: 'openai', LORE_LLM_KEY: providerKey,
      });
      expect(result.code, result.stderr).toBe(0);
      // ch-01 was read over MCP at this version: only the two others are asked.
      expect(JSON.parse(result.stdout)).toMatchObject({ projectId, chapters: 3, asked: 2, cached: 1, empty: 0, entitiesProposed: 1, dropped: 1 });
      const progress = result.stderr.trim().split('\n').map((line) => JSON.parse(line).progress);
      expect(progress.at(-1)).toMatchObject({ phase: 'extract', done: 3, total: 3, unit: 'chapters' });
      expect(result.stderr).not.toContain(providerKey);
    } finally {
      fake.fallback = { object: { conflicts: [] } };
    }
  });

  it('when no provider is configured, then it says which variables to set', async () => {
    const result = await lore(['extract', '--project', projectId, '--key', key], { DATABASE_URL: gw.databaseUrl });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/set LORE_LLM_PROVIDER .* and LORE_LLM_KEY/);
  });
});
