// The tool calls and error cases both modes must pass. Each test file brings its own database and gateway (for
// setup and, in remote mode, for the server to call) and says how to spawn the server with a given env block.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBundle, type TestGateway } from '../support/gateway.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import type { FakeLlm } from '../support/fakeLlm.ts';
import { callTool, expectToolError, expectToolListing, textOf, toolNames, type McpSession } from './harness.ts';

export type ModeSetup = {
  gateway(): TestGateway;
  /** the stand-in LLM provider the check and timeline tools reach (through the gateway, or in-process) */
  llm(): FakeLlm;
  /** spawns the server in this mode with these variables in its env block */
  connect(env: Record<string, string>, options?: { viaCli?: boolean }): Promise<McpSession>;
};

const llmKey = 'sk-test-provider-secret-0123456789';

export function describeToolBehaviour(mode: string, setup: ModeSetup) {
  let gw: TestGateway;
  let projectId: string;
  let proKey: string;
  let main: McpSession;
  const opened: McpSession[] = [];
  const connect = async (env: Record<string, string>, options?: { viaCli?: boolean }) => {
    const session = await setup.connect(env, options);
    opened.push(session);
    return session;
  };

  beforeAll(async () => {
    gw = setup.gateway();
    proKey = (await gw.createKey('pro')).key;
    projectId = (await importBundle(gw, proKey, saltmarshBundle())).projectId;
    main = await connect(
      { LORE_API_KEY: proKey, LORE_PROJECT_ID: projectId, LORE_LLM_PROVIDER: 'anthropic', LORE_LLM_KEY: llmKey },
      { viaCli: true },
    );
  });
  afterAll(async () => {
    await Promise.all(opened.map((s) => s.close()));
  });

  describe(`${mode}: tools`, () => {
    it('when a client lists the tools, then it gets every lore_author_* tool with described schemas and annotations', async () => {
      await expectToolListing(main);
    });

    it('when the server starts, then stderr names the mode and default project and never carries a key', async () => {
      expect(main.stderr()).toContain(`${mode} mode`);
      expect(main.stderr()).toContain(`default project ${projectId}`);
      expect(main.stderr()).not.toContain(proKey);
      expect(main.stderr()).not.toContain(llmKey);
    });

    it('when recall is called with a name, then entities come back with state, approval, conflicts and recent mentions', async () => {
      const result = await callTool(main, 'lore_author_recall', { query: 'mara' });
      expect(result.isError).toBeFalsy();
      const content = result.structuredContent as any;
      expect(content.projectId).toBe(projectId);
      expect(content.entities.map((e: any) => e.canonicalName)).toEqual(['Mara Voss', "Mara's oath"]);
      const mara = content.entities[0];
      expect(mara).toMatchObject({
        type: 'character',
        aliases: ['Mara', 'the Captain'],
        approvalStatus: 'approved',
        confidence: 0.95,
        currentState: { status: 'alive', eyes: 'green', age: 34 },
        pendingConflictIds: [],
      });
      expect(mara.id).toMatch(/^ent_/);
      expect(mara.lastMentions[0]).toMatchObject({ chapter: 'ch-02', line: 3, snippet: expect.stringContaining('Mara searched') });
      expect(content.entities[1].approvalStatus).toBe('suggested');
      const text = textOf(result);
      expect(text).toContain('Mara Voss (character, approved');
      expect(text).toContain('eyes=green');
      expect(text).toContain('mentioned ch-02 line 3');
    });

    it('when recall is given a project that does not exist, then a 404 tool error', async () => {
      const text = expectToolError(await callTool(main, 'lore_author_recall', { project: 'prj_doesnotexist' }), 'not_found', 404);
      expect(text).toContain('prj_doesnotexist');
    });

    it('when search is called, then the best match comes first and pages follow the cursor', async () => {
      const hit = await callTool(main, 'lore_author_search', { query: 'lighthouse' });
      expect(hit.isError).toBeFalsy();
      expect((hit.structuredContent as any).entities[0].canonicalName).toBe('Gull Point');
      expect(textOf(hit)).toContain('Gull Point (location');

      const first = (await callTool(main, 'lore_author_search', { query: 'Voss', limit: 1 })).structuredContent as any;
      expect(first.entities).toHaveLength(1);
      expect(first.has_more).toBe(true);
      const second = (await callTool(main, 'lore_author_search', { query: 'Voss', limit: 1, starting_after: first.next_starting_after }))
        .structuredContent as any;
      expect(second.entities).toHaveLength(1);
      expect(second.entities[0].id).not.toBe(first.entities[0].id);
      expect(second.entities.concat(first.entities).map((e: any) => e.canonicalName).sort()).toEqual(['Keth Voss', 'Mara Voss']);
    });

    it('when search input breaks the schema, then the tool error names the field', async () => {
      const result = await callTool(main, 'lore_author_search', { query: 'Voss', limit: 500 });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('limit');
    });

    it('when an entity is named with a NUL character, then the tool error names the field and nothing is approved', async () => {
      const remembered = await callTool(main, 'lore_author_remember', { entity: 'Mara\u0000Voss', fact: 'Mara hums sea shanties.' });
      expect(remembered.isError).toBe(true);
      expect(textOf(remembered)).toMatch(/NUL characters or unpaired surrogates at entity/);
      const graph = await callTool(main, 'lore_author_graph', { root: '\u0000' });
      expect(graph.isError).toBe(true);
      expect(textOf(graph)).toMatch(/NUL characters or unpaired surrogates at root/);
      const found = await callTool(main, 'lore_author_search', { query: 'sea shanties' });
      expect(JSON.stringify(found.structuredContent)).not.toContain('shanties');
    });

    it('when the graph is read around a name, then the neighbours and relationships come back', async () => {
      const result = await callTool(main, 'lore_author_graph', { root: 'Mara Voss' });
      expect(result.isError).toBeFalsy();
      const content = result.structuredContent as any;
      const ids = new Map(content.nodes.map((n: any) => [n.label, n.id]));
      expect([...ids.keys()].sort()).toEqual(['Keth Voss', 'Mara Voss', 'the Heron']);
      expect(content.root).toBe(ids.get('Mara Voss'));
      expect(content.edges).toContainEqual({ from: ids.get('Mara Voss'), to: ids.get('Keth Voss'), kind: 'sibling_of', weight: 1 });
      expect(textOf(result)).toContain('Mara Voss -[sibling_of]-> Keth Voss');

      const byId = (await callTool(main, 'lore_author_graph', { root: content.root, depth: 2 })).structuredContent as any;
      expect(byId.nodes.map((n: any) => n.label)).toContain('Gull Point');
      const whole = (await callTool(main, 'lore_author_graph', {})).structuredContent as any;
      expect(whole.root).toBeUndefined();
      expect(whole.edges).toHaveLength(3);
    });

    it('when the graph root names no entity, then a 404 tool error says how to find it', async () => {
      const text = expectToolError(await callTool(main, 'lore_author_graph', { root: 'Captain Nemo' }), 'not_found', 404);
      expect(text).toContain('lore_author_search');
    });

    it('when remember is told to approve a fact about an entity named by alias, then the fact is canon and searchable', async () => {
      const result = await callTool(main, 'lore_author_remember', {
        entity: 'the captain',
        fact: 'Mara has a scar across her left palm.',
        source: 'Mara closed her scarred left hand around the rope.',
        approve: true,
      });
      expect(result.isError, textOf(result)).toBeFalsy();
      const content = result.structuredContent as any;
      expect(content).toMatchObject({ projectId, entity: { name: 'Mara Voss', isNew: false }, status: 'approved', facts: ['Mara has a scar across her left palm.'] });
      expect(content.candidateIds).toEqual([expect.stringMatching(/^cnd_/)]);
      expect(textOf(result)).toContain('Mara Voss');

      const found = (await callTool(main, 'lore_author_search', { query: 'scar palm' })).structuredContent as any;
      expect(found.entities[0].id).toBe(content.entity.id);
    });

    it('when check is given a passage where a dead character speaks, then the conflict comes back, using the provider key from the env block', async () => {
      const before = setup.llm().requests.length;
      const result = await callTool(main, 'lore_author_check', { text: '"Bring her about," said Keth, laughing.' });
      expect(result.isError, textOf(result)).toBeFalsy();
      const content = result.structuredContent as any;
      const hit = content.conflicts.find((c: any) => c.kind === 'dead_character_active');
      expect(hit).toMatchObject({ severity: 'P1' });
      expect(textOf(result)).toContain('[P1]');
      const sent = setup.llm().requests.slice(before);
      expect(sent).toHaveLength(1);
      expect(sent[0].headers['x-api-key']).toBe(llmKey);
    });

    it('when timeline is called, then chapters come back in reading order with their beats', async () => {
      const result = await callTool(main, 'lore_author_timeline', { from: 1, to: 2 });
      expect(result.isError, textOf(result)).toBeFalsy();
      const content = result.structuredContent as any;
      expect(content.timeline.map((e: any) => e.chapter)).toEqual(['ch-01', 'ch-02']);
      expect(content.timeline[1].beats[0].summary).toBe('Keth drowns at Gull Point in a storm.');
      expect(textOf(result)).toContain('ch-02 (#2):');
    });

    it('when check runs without LORE_LLM_PROVIDER and LORE_LLM_KEY, then a 402 precondition_required tool error', async () => {
      const session = await connect({ LORE_API_KEY: proKey, LORE_PROJECT_ID: projectId });
      expectToolError(await callTool(session, 'lore_author_check', { text: 'Mara Voss walked.' }), 'precondition_required', 402);
    });

    it('when remember names an entity that does not exist without a type, then a 400 tool error naming type and nothing is proposed', async () => {
      const text = expectToolError(await callTool(main, 'lore_author_remember', { entity: 'Nobody', fact: 'Nobody was here.' }), 'validation_error', 400);
      expect(text).toContain('input.type');
      const found = (await callTool(main, 'lore_author_recall', { query: 'Nobody' })).structuredContent as any;
      expect(found.entities).toEqual([]);
    });
  });

  describe(`${mode}: errors`, () => {
    it('when LORE_API_KEY and LORE_PROJECT_ID are missing, then the server starts, says so on stderr and at each call', async () => {
      const bare = await connect({});
      expect(bare.stderr()).toMatch(/AUTH_MISSING_KEY: LORE_API_KEY is not set/);
      expect((await bare.client.listTools()).tools).toHaveLength(toolNames.length);
      const text = expectToolError(await callTool(bare, 'lore_author_recall', { project: projectId }), 'AUTH_MISSING_KEY', 401);
      expect(text).toContain('env');
      const noProject = expectToolError(await callTool(bare, 'lore_author_recall', {}), 'validation_error', 400);
      expect(noProject).toContain('LORE_PROJECT_ID');
    });

    it('when the key is malformed or unknown, then an AUTH_INVALID_KEY tool error', async () => {
      const [malformed, unknown] = await Promise.all([
        connect({ LORE_API_KEY: 'not-a-key', LORE_PROJECT_ID: projectId }),
        connect({ LORE_API_KEY: `sk_lore_${'A'.repeat(40)}`, LORE_PROJECT_ID: projectId }),
      ]);
      expect(malformed.stderr()).toContain('AUTH_INVALID_KEY');
      expect(malformed.stderr()).not.toContain('not-a-key');
      expectToolError(await callTool(malformed, 'lore_author_recall', {}), 'AUTH_INVALID_KEY', 401);
      const text = expectToolError(await callTool(unknown, 'lore_author_search', { query: 'Mara' }), 'AUTH_INVALID_KEY', 401);
      expect(text).toContain('restart the client');
    });

    it("when another account's key asks for the project, then 404, as on REST", async () => {
      const other = await connect({ LORE_API_KEY: (await gw.createKey('pro')).key, LORE_PROJECT_ID: projectId });
      expectToolError(await callTool(other, 'lore_author_recall', {}), 'not_found', 404);
    });

    it('when a free key goes past 30 calls a minute, then a 429 tool error with the seconds to wait, and REST agrees', async () => {
      // A free key has no projects:write: the project comes from a pro key of its account, and the free key imports into it.
      const owner = await gw.createKey('pro');
      const free = await gw.createKey('free', { accountId: owner.account });
      const freeProject = (await importBundle(gw, owner.key, saltmarshBundle())).projectId;
      await importBundle(gw, free.key, saltmarshBundle(), freeProject);
      const session = await connect({ LORE_API_KEY: free.key, LORE_PROJECT_ID: freeProject });
      // The import above was the first call of this minute.
      for (let i = 0; i < 29; i++) {
        const ok = await callTool(session, 'lore_author_recall', { limit: 1 });
        expect(ok.isError, `call ${i + 2}: ${textOf(ok)}`).toBeFalsy();
      }
      const text = expectToolError(await callTool(session, 'lore_author_recall', { limit: 1 }), 'rate_limited', 429);
      const wait = Number(/Wait (\d+) seconds/.exec(text)?.[1]);
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);
      const rest = await gw.request(`/projects/${freeProject}/recall`, { key: free.key });
      expect(rest.status).toBe(429);
      expect(Number(rest.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    });

    it('when a free key has used its daily quota, then a 402 tool error that says when it resets', async () => {
      const free = await gw.createKey('free');
      const services = gw.gateway.runtime.services;
      await services.metering.reserve(await services.keys.authenticate(free.key), 50);
      const session = await connect({ LORE_API_KEY: free.key, LORE_PROJECT_ID: projectId });
      const text = expectToolError(await callTool(session, 'lore_author_recall', {}), 'quota_exceeded', 402);
      expect(text).toMatch(/Do not retry before the quota resets at \d{4}-\d{2}-\d{2}T00:00:00\.000Z/);
    });
  });
}
