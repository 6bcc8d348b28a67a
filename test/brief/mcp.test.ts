// lore_author_brief through the MCP server over stdio (remote mode, against a real gateway), with the SDK's client.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entityIdsByName, importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { callTool, connectMcp, expectToolError, textOf, type McpSession } from '../mcp/harness.ts';
import { harbourBundle } from './fixtures.ts';

let gw: TestGateway;
let session: McpSession;
let ids: Record<string, string>;

beforeAll(async () => {
  gw = await startTestGateway();
  const { key } = await gw.createKey('pro');
  const projectId = (await importBundle(gw, key, harbourBundle())).projectId;
  ids = await entityIdsByName(gw, key, projectId);
  session = await connectMcp({ LORE_API_URL: gw.url, LORE_API_KEY: key, LORE_PROJECT_ID: projectId });
});
afterAll(async () => {
  await session?.close();
  await gw?.close();
});

describe('lore_author_brief', () => {
  it('when the assistant lists the tools, then the brief tells it to call it before drafting or revising a scene', async () => {
    const { tools } = await session.client.listTools();
    const tool = tools.find((t) => t.name === 'lore_author_brief')!;
    expect(tool.description).toMatch(/before drafting or revising a scene/);
    expect(tool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(Object.keys(tool.inputSchema.properties!)).toEqual(['project', 'chapter', 'text', 'entity_ids', 'budget', 'format']);
  });

  it('when it is called with a scene and a chapter, then it answers Markdown as of that chapter within the budget, with ids to cite', async () => {
    const result = await callTool(session, 'lore_author_brief', { chapter: 'ch-03', text: 'Mara thought of her brother.', budget: 600 });
    expect(result.isError, textOf(result)).toBeFalsy();
    const brief = result.structuredContent as any;
    expect(brief).toMatchObject({ chapter: 'ch-03', format: 'markdown', encoding: 'o200k_base', budget: 600 });
    expect(brief.markdown).toContain(`### Mara Voss (character) \`${ids['Mara Voss']}\``);
    expect(brief.markdown).toContain(`### Keth Voss (character) \`${ids['Keth Voss']}\``);
    expect(brief.markdown).toContain('State: status: dead');
    expect(brief.tokens).toBe(countTokens(brief.markdown));
    expect(brief.tokens).toBeLessThanOrEqual(600);
    expect(textOf(result)).toContain(brief.markdown);
    expect(textOf(result)).toMatch(new RegExp(`\\(${brief.tokens} of 600 tokens, o200k_base`));
  });

  it('when format is json, then the content comes structured', async () => {
    const result = await callTool(session, 'lore_author_brief', { entity_ids: [ids['Ada Quill']], format: 'json' });
    expect(result.isError, textOf(result)).toBeFalsy();
    const brief = result.structuredContent as any;
    expect(brief.content.entities.map((e: any) => e.name)).toEqual(['Ada Quill']);
    expect(brief.tokens).toBe(countTokens(JSON.stringify(brief.content)));
  });

  it('when the chapter is not one of the project, then a 400 validation_error tool error', async () => {
    expectToolError(await callTool(session, 'lore_author_brief', { text: 'Ada waits.', chapter: 'ch-99' }), 'validation_error', 400);
  });
});
