// Story time through the MCP server over stdio (remote mode, against a real gateway): lore_author_recall with as_of,
// and lore_author_check with a chapter before and after a death.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { callTool, connectMcp, expectToolError, textOf, type McpSession } from '../mcp/harness.ts';
import { drownedYearBundle, texts } from './fixtures.ts';

let gw: TestGateway;
let llm: FakeLlm;
let session: McpSession;
let projectId: string;

beforeAll(async () => {
  llm = await startFakeLlm();
  gw = await startTestGateway({ LORE_ANTHROPIC_BASE_URL: llm.url });
  const { key } = await gw.createKey('pro');
  projectId = (await importBundle(gw, key, drownedYearBundle())).projectId;
  session = await connectMcp({
    LORE_API_URL: gw.url, LORE_API_KEY: key, LORE_PROJECT_ID: projectId, LORE_LLM_PROVIDER: 'anthropic', LORE_LLM_KEY: 'sk-test-provider-0123456789',
  });
});
afterAll(async () => {
  await session?.close();
  await gw?.close();
  await llm?.close();
});

const ilseIn = (result: Awaited<ReturnType<typeof callTool>>) => {
  expect(result.isError, textOf(result)).toBeFalsy();
  return (result.structuredContent as any).entities.find((e: any) => e.canonicalName === 'Ilse Marr');
};

describe('lore_author_recall as_of', () => {
  it('when recall is called as of ch-05, ch-31 and without as_of, then state and facts are those of that chapter, then the latest', async () => {
    const early = await callTool(session, 'lore_author_recall', { query: 'Ilse', as_of: 'ch-05' });
    const at5 = ilseIn(early);
    expect(at5.currentState).toEqual({ status: 'alive', eyes: 'grey' });
    expect(texts(at5.facts)).toEqual(['Ilse is betrothed to Oren.', 'Ilse keeps the Gull Point light.']);
    expect(texts(at5.suggestedFacts)).toEqual(['Ilse may have a twin sister.']);
    const text = textOf(early);
    expect(text).toContain('status=alive');
    expect(text).toContain('  fact: Ilse is betrothed to Oren. (until ch-10)');
    expect(text).toContain('  fact (suggested): Ilse may have a twin sister.');

    const at31 = ilseIn(await callTool(session, 'lore_author_recall', { query: 'Ilse', as_of: 'ch-31' }));
    expect(at31.currentState).toEqual({ status: 'dead', eyes: 'grey' });
    expect(texts(at31.facts)).toEqual(['Ilse drowned off Gull Point.', 'Ilse keeps the Gull Point light.']);

    const latest = await callTool(session, 'lore_author_recall', { query: 'Ilse' });
    expect(ilseIn(latest).currentState.status).toBe('dead');
    expect(textOf(latest)).toContain('  fact: Ilse drowned off Gull Point. (from ch-30)');
  });

  it('when as_of is not a chapter of the project, then a 400 validation_error tool error naming as_of', async () => {
    const text = expectToolError(await callTool(session, 'lore_author_recall', { query: 'Ilse', as_of: 'ch-99' }), 'validation_error', 400);
    expect(text).toContain('as_of');
  });
});

describe('lore_author_chapters', () => {
  it('when the assistant lists the chapters, then it gets their ids in reading order, paged, to pass as as_of', async () => {
    const first = await callTool(session, 'lore_author_chapters', { limit: 1 });
    expect(first.isError, textOf(first)).toBeFalsy();
    const page = first.structuredContent as any;
    expect(page.chapters).toHaveLength(1);
    expect(page.has_more).toBe(true);
    expect(textOf(first)).toContain(`- ${page.chapters[0].id} (${page.chapters[0].ordinal})`);
    expect(textOf(first)).toContain(`starting_after=${page.next_starting_after}`);
    const rest = (await callTool(session, 'lore_author_chapters', { starting_after: page.next_starting_after, limit: 100 })).structuredContent as any;
    const ordinals = [page.chapters[0], ...rest.chapters].map((c: any) => c.ordinal);
    expect(ordinals).toEqual([...ordinals].sort((a, b) => a - b));
    expect([page.chapters[0], ...rest.chapters].map((c: any) => c.id)).toEqual(expect.arrayContaining(['ch-05', 'ch-30', 'ch-31']));
    expect(rest.has_more).toBe(false);
  });
});

describe('lore_author_check with a chapter', () => {
  const passage = '"Keep the light burning," said Ilse, and she climbed the stair.';
  const deadActing = (result: Awaited<ReturnType<typeof callTool>>) => {
    expect(result.isError, textOf(result)).toBeFalsy();
    return (result.structuredContent as any).conflicts.filter((c: any) => c.kind === 'dead_character_active');
  };

  it('when the passage is in ch-05, before the death at ch-30, then the core reports nothing', async () => {
    expect(deadActing(await callTool(session, 'lore_author_check', { text: passage, chapter: 'ch-05' }))).toEqual([]);
  });

  it('when the passage is in ch-31, after the death, then a P1 dead_character_active hit in ch-31', async () => {
    const result = await callTool(session, 'lore_author_check', { text: passage, chapter: 'ch-31' });
    expect(deadActing(result)).toEqual([expect.objectContaining({ severity: 'P1', episode: 'ch-31' })]);
    expect(textOf(result)).toContain('[P1] Ilse Marr acts after their death');
  });
});
