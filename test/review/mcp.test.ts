// Review through the MCP server over stdio (remote mode, against a real gateway): the assistant proposes, lists the
// queue and decides; and the case end to end: a fact proposed with the tool is approved through REST and
// only then used by the conflict check.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saltmarshBundle } from '../support/fixtures.ts';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { callTool, connectMcp, expectToolError, textOf, type McpSession } from '../mcp/harness.ts';

let gw: TestGateway;
let llm: FakeLlm;
let key: { id: string; key: string };
let projectId: string;
let session: McpSession;

beforeAll(async () => {
  llm = await startFakeLlm();
  // The model finds nothing: only the deterministic core speaks.
  llm.fallback = { object: { conflicts: [] } };
  gw = await startTestGateway({ LORE_OPENAI_BASE_URL: llm.url });
  key = await gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 });
  projectId = (await importBundle(gw, key.key, saltmarshBundle())).projectId;
  session = await connectMcp({ LORE_API_URL: gw.url, LORE_API_KEY: key.key, LORE_PROJECT_ID: projectId });
});
afterAll(async () => {
  await session?.close();
  await gw?.close();
  await llm?.close();
});

const check = async (text: string) => {
  const res = await gw.request(`/projects/${projectId}/conflicts/check`, {
    method: 'POST',
    key: key.key,
    headers: { 'X-LLM-Provider': 'openai', 'X-LLM-Key': 'sk-test-provider-key-0123456789' },
    json: { text },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.conflicts as { kind: string; refs: string[] }[];
};

describe('review over MCP', () => {
  it('when remember proposes a fact, then it is only suggested and the check ignores it; once approved through REST, the check cites it', async () => {
    const passage = "Keth's eyes were blue as the winter sea.";
    const proposed = await callTool(session, 'lore_author_remember', {
      entity: 'Keth',
      fact: "Keth's eyes are grey.",
      source: 'Keth looked at her with his grey eyes.',
    });
    expect(proposed.isError, textOf(proposed)).toBeFalsy();
    const content = proposed.structuredContent as any;
    expect(content).toMatchObject({ projectId, entity: { name: 'Keth Voss', isNew: false, status: 'approved' }, status: 'suggested', facts: ["Keth's eyes are grey."], alreadyCanon: [] });
    expect(content.candidateIds).toEqual([expect.stringMatching(/^cnd_/)]);
    expect(textOf(proposed)).toMatch(/^Suggested for review: "Keth's eyes are grey\." about Keth Voss \(ent_\w+\); candidate cnd_\w+\. The writer approves it with lore_author_decide or in the review queue\.$/);

    expect((await check(passage)).filter((c) => c.kind === 'attribute_contradiction')).toEqual([]);

    const listed = await callTool(session, 'lore_author_review', {});
    expect(listed.isError, textOf(listed)).toBeFalsy();
    const queued = (listed.structuredContent as any).candidates.find((c: any) => c.id === content.candidateIds[0]);
    expect(queued).toMatchObject({ kind: 'fact', status: 'pending', entity_name: 'Keth Voss', proposed_by: key.id, content: 'Keth looked at her with his grey eyes.' });
    expect(textOf(listed)).toContain(`- ${content.candidateIds[0]}: fact about Keth Voss`);
    expect(textOf(listed)).toContain(`fact: "Keth's eyes are grey."`);
    expect(textOf(listed)).toContain(`proposed by ${key.id} at `);

    const approved = await gw.request(`/projects/${projectId}/candidates/${content.candidateIds[0]}/approve`, { method: 'POST', key: key.key });
    expect(approved.status, approved.text).toBe(200);
    const factId = approved.body.facts[0].id;

    const hits = (await check(passage)).filter((c) => c.kind === 'attribute_contradiction');
    expect(hits).toHaveLength(1);
    expect(hits[0].refs).toContain(factId);
  });

  it('when remember proposes a new entity and lore_author_decide rejects it with a reason, then the entity is gone and the decision kept', async () => {
    const proposed = await callTool(session, 'lore_author_remember', {
      entity: 'Brother Anselm',
      type: 'character',
      aliases: ['Anselm'],
      facts: ['Brother Anselm keeps bees at Gull Point.'],
      from: 'ch-02',
    });
    expect(proposed.isError, textOf(proposed)).toBeFalsy();
    const content = proposed.structuredContent as any;
    expect(content).toMatchObject({ entity: { name: 'Brother Anselm', isNew: true, status: 'suggested' }, status: 'suggested' });
    expect(textOf(proposed)).toContain('Suggested for review: "Brother Anselm keeps bees at Gull Point." about new entity Brother Anselm');
    const recalled = (await callTool(session, 'lore_author_recall', { query: 'Anselm' })).structuredContent as any;
    expect(recalled.entities.map((e: any) => [e.canonicalName, e.approvalStatus])).toEqual([['Brother Anselm', 'suggested']]);

    const listed = (await callTool(session, 'lore_author_review', { limit: 100 })).structuredContent as any;
    expect(listed.candidates.find((c: any) => c.id === content.candidateIds[0])).toMatchObject({
      kind: 'entity',
      facts: [{ text: 'Brother Anselm keeps bees at Gull Point.', from: 'ch-02', status: 'suggested' }],
    });

    const rejected = await callTool(session, 'lore_author_decide', { candidate: content.candidateIds[0], decision: 'reject', reason: 'he belongs to the sequel' });
    expect(rejected.isError, textOf(rejected)).toBeFalsy();
    const decided = (rejected.structuredContent as any).candidate;
    expect(decided).toMatchObject({ status: 'rejected', decision: { status: 'rejected', reason: 'he belongs to the sequel', decided_by: key.id } });
    expect(decided.entity_id).toBeUndefined();
    expect(decided.removed_ids).toContain(content.entity.id);
    expect(textOf(rejected)).toContain('Rejected; removed');
    expect(((await callTool(session, 'lore_author_recall', { query: 'Anselm' })).structuredContent as any).entities).toEqual([]);

    const again = expectToolError(await callTool(session, 'lore_author_decide', { candidate: content.candidateIds[0], decision: 'approve' }), 'already_decided', 409);
    expect(again).toContain(key.id);
  });

  it('when the queue is empty of a kind or a candidate is unknown, then the tools say so plainly', async () => {
    const other = await gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 });
    const otherProject = (await importBundle(gw, other.key, { project: { name: 'Empty' } })).projectId;
    const empty = await callTool(session, 'lore_author_review', { project: otherProject });
    // Another account's project: not found, as on REST.
    expectToolError(empty, 'not_found', 404);
    expectToolError(await callTool(session, 'lore_author_decide', { candidate: 'cnd_nosuchcandidate', decision: 'approve' }), 'not_found', 404);
    const stranger = await connectMcp({ LORE_API_URL: gw.url, LORE_API_KEY: other.key, LORE_PROJECT_ID: otherProject });
    try {
      const nothing = await callTool(stranger, 'lore_author_review', {});
      expect(textOf(nothing)).toBe(`Nothing is waiting for review in project ${otherProject}.`);
    } finally {
      await stranger.close();
    }
  });

  it('when remember is given an unknown chapter or no fact about a known entity, then a 400 tool error naming the field and nothing is proposed', async () => {
    const before = ((await callTool(session, 'lore_author_review', { limit: 100 })).structuredContent as any).candidates.length;
    expect(expectToolError(await callTool(session, 'lore_author_remember', { entity: 'Mara', fact: 'Mara sings.', from: 'ch-77' }), 'validation_error', 400)).toContain('input.facts.0.from');
    expect(expectToolError(await callTool(session, 'lore_author_remember', { entity: 'Mara' }), 'validation_error', 400)).toContain('input.facts');
    expect(((await callTool(session, 'lore_author_review', { limit: 100 })).structuredContent as any).candidates).toHaveLength(before);
  });
});
