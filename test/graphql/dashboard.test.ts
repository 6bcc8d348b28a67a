// The schema fields the dashboard reads: project counts, the entity listing, an entity as of a chapter, a fact's
// provenance, the mention map and the names recognised in a chapter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saltmarshBundle } from '../support/fixtures.ts';
import { entityIdsByName, importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let key: string;
let projectId: string;
let ids: Record<string, string>;

/** Saltmarsh (its oath waits for review) with Keth alive until he drowns in ch-02 (a timed state). */
function bundle() {
  const b = saltmarshBundle();
  const keth = b.entities.find((e: { key: string }) => e.key === 'keth');
  keth.state = {};
  keth.stateChanges = [{ until: 'ch-02', state: { status: 'alive' } }, { from: 'ch-02', state: { status: 'dead' } }];
  keth.facts = [{ text: 'Keth sails with his sister.', until: 'ch-02' }, { text: 'Keth drowned at Gull Point.', from: 'ch-02' }];
  return b;
}

beforeAll(async () => {
  gw = await startTestGateway();
  ({ key } = await gw.createKey('pro'));
  ({ projectId } = await importBundle(gw, key, bundle()));
  ids = await entityIdsByName(gw, key, projectId);
  const proposed = await gw.graphql(
    'mutation ($p: ID!, $e: ID!) { propose(projectId: $p, input: { entityId: $e, facts: [{ text: "Mara fears deep water." }], content: "She would not look down." }) { candidates { id } } }',
    { p: projectId, e: ids['Mara Voss'] },
    key,
  );
  expect(proposed.errors).toBeUndefined();
});
afterAll(() => gw?.close());

describe('dashboard fields', () => {
  it('when projects are listed, then each says how many entities, candidates waiting for review and open conflicts it has', async () => {
    const result = await gw.graphql('{ projects { id entityCount pendingReviewCount conflictCount } }', {}, key);
    expect(result.errors).toBeUndefined();
    expect(result.data.projects).toEqual([{ id: projectId, entityCount: 6, pendingReviewCount: 2, conflictCount: 0 }]);
  });

  it('when entities of a type are listed a page at a time, then the pages follow name order and give the total', async () => {
    const query = 'query ($p: ID!, $after: String) { entities(projectId: $p, type: character, limit: 1, startingAfter: $after) { data { canonicalName type } total hasMore nextStartingAfter } }';
    const first = await gw.graphql(query, { p: projectId }, key);
    expect(first.errors).toBeUndefined();
    expect(first.data.entities).toMatchObject({ data: [{ canonicalName: 'Keth Voss', type: 'character' }], total: 2, hasMore: true });
    const second = await gw.graphql(query, { p: projectId, after: first.data.entities.nextStartingAfter }, key);
    expect(second.data.entities).toMatchObject({ data: [{ canonicalName: 'Mara Voss' }], total: 2, hasMore: false, nextStartingAfter: null });
  });

  it('when an entity is read as of two chapters, then its state and facts are those of each chapter', async () => {
    const query = 'query ($p: ID!, $e: ID!, $at: String) { entity(projectId: $p, entityId: $e, asOf: $at) { currentState approvedFacts { text } } }';
    const before = await gw.graphql(query, { p: projectId, e: ids['Keth Voss'], at: 'ch-01' }, key);
    const after = await gw.graphql(query, { p: projectId, e: ids['Keth Voss'], at: 'ch-02' }, key);
    expect(before.errors).toBeUndefined();
    expect(before.data.entity).toEqual({ currentState: { status: 'alive' }, approvedFacts: [{ text: 'Keth sails with his sister.' }] });
    expect(after.data.entity).toEqual({ currentState: { status: 'dead' }, approvedFacts: [{ text: 'Keth drowned at Gull Point.' }] });
    const unknown = await gw.graphql(query, { p: projectId, e: ids['Keth Voss'], at: 'ch-99' }, key);
    expect(unknown.errors?.[0].extensions.code).toBe('validation_error');
  });

  it("when an entity's facts are read, then each says who proposed it, from which passage, and who decided", async () => {
    const result = await gw.graphql('query ($p: ID!, $e: ID!) { entity(projectId: $p, entityId: $e) { facts { text status provenance { proposedBy content decision decidedBy } } } }', { p: projectId, e: ids['Mara Voss'] }, key);
    expect(result.errors).toBeUndefined();
    const suggested = result.data.entity.facts.find((f: { text: string }) => f.text === 'Mara fears deep water.');
    expect(suggested).toEqual({ text: 'Mara fears deep water.', status: 'suggested', provenance: { proposedBy: expect.any(String), content: 'She would not look down.', decision: null, decidedBy: null } });
    const approved = result.data.entity.facts.find((f: { status: string }) => f.status === 'approved');
    expect(approved.provenance).toMatchObject({ decision: 'approved', decidedBy: expect.any(String) });
  });

  it('when the mention map is read, then each entity has its mentions per chapter in reading order, most mentioned first', async () => {
    const result = await gw.graphql('query ($p: ID!) { mentionMap(projectId: $p, type: character) { chapters { id } rows { canonicalName total counts } } }', { p: projectId }, key);
    expect(result.errors).toBeUndefined();
    expect(result.data.mentionMap.chapters).toEqual([{ id: 'ch-01' }, { id: 'ch-02' }]);
    expect(result.data.mentionMap.rows).toEqual([
      { canonicalName: 'Mara Voss', total: 3, counts: [2, 1] },
      { canonicalName: 'Keth Voss', total: 2, counts: [1, 1] },
    ]);
  });

  it('when a chapter is read, then the names Lore recognises in it come with their place', async () => {
    const result = await gw.graphql('query ($p: ID!) { chapter(projectId: $p, chapterId: "ch-02") { names { canonicalName line column } } }', { p: projectId }, key);
    expect(result.errors).toBeUndefined();
    expect(result.data.chapter.names).toEqual([
      { canonicalName: 'Keth Voss', line: 2, column: 1 },
      { canonicalName: 'Gull Point', line: 2, column: 28 },
      { canonicalName: 'Mara Voss', line: 3, column: 1 },
    ]);
  });

  it('when the stored timeline is read without an LLM key, then the imported beats come back, and without stored the key is still required', async () => {
    const stored = await gw.graphql('query ($p: ID!) { timeline(projectId: $p, stored: true) { data { chapter beats { summary } } } }', { p: projectId }, key);
    expect(stored.errors).toBeUndefined();
    expect(stored.data.timeline.data).toEqual([
      { chapter: 'ch-01', beats: [{ summary: 'Mara and Keth sail past the dark lighthouse.' }] },
      { chapter: 'ch-02', beats: [{ summary: 'Keth drowns at Gull Point in a storm.' }] },
    ]);
    const asked = await gw.graphql('query ($p: ID!) { timeline(projectId: $p) { data { chapter } } }', { p: projectId }, key);
    expect(asked.errors?.[0].extensions.code).toBe('precondition_required');
  });

  it("when another account's project is asked for, then it answers as missing", async () => {
    const other = await gw.createKey('pro');
    for (const query of ['query ($p: ID!) { entities(projectId: $p) { total } }', 'query ($p: ID!) { mentionMap(projectId: $p) { rows { total } } }']) {
      const result = await gw.graphql(query, { p: projectId }, other.key);
      expect(result.errors?.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['not_found']);
    }
  });
});
