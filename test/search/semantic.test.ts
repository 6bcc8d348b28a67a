// Semantic search on PostgreSQL with pgvector: vectors computed after the write by the gateway's worker from an
// OpenAI-compatible endpoint (a loopback fake with deterministic vectors), hybrid ranking over REST, GraphQL and MCP,
// the outbox through a provider outage, the fallback, pagination over fused results, tenant isolation and
// `lore embeddings rebuild` after a model change.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectMcp, textOf } from '../mcp/harness.ts';
import { expectCleanFailure, lore } from '../support/cli.ts';
import { startFakeEmbeddings, type FakeEmbeddings } from '../support/fakeEmbeddings.ts';
import { entityIdsByName, importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectProblem } from '../support/problem.ts';
import { waitFor } from '../support/wait.ts';
import { seaBundle, seaVectorCount } from './fixtures.ts';
import { drained, embeddingEnv, health, search, walk } from './helpers.ts';
import { pgvectorTestsRun } from './pgvector.ts';

const runs = await pgvectorTestsRun('test/search/semantic.test.ts');

let fake: FakeEmbeddings;
let gw: TestGateway;
/** the gateway after a model change (the last test) */
let rebuiltGw: TestGateway | undefined;
/** the same database without an embedding provider: what search answered before this issue */
let lexicalGw: TestGateway;
let db: pg.Client;
let key: string;
let projectId: string;
let ids: Record<string, string>;
/** another account's project, with vectors of its own, and that account's key */
let otherProject: string;
let otherKey: string;

const vectorsOf = async (project: string) =>
  (await db.query<{ model: string; n: number }>('SELECT model, COUNT(*)::int AS n FROM "Embedding" WHERE "projectId" = $1 GROUP BY model', [project])).rows;

beforeAll(async () => {
  if (!runs) return;
  fake = await startFakeEmbeddings();
  gw = await startTestGateway(embeddingEnv(fake.url));
  lexicalGw = await startTestGateway({ DATABASE_URL: gw.databaseUrl });
  db = new pg.Client({ connectionString: gw.databaseUrl });
  await db.connect();
  ({ key } = await gw.createKey('studio'));
}, 60_000);

afterAll(async () => {
  await db?.end();
  await rebuiltGw?.close();
  await lexicalGw?.close();
  await gw?.close();
  await fake?.close();
});

describe.runIf(runs)('semantic search on PostgreSQL (pgvector)', () => {
  it('when an import lands while the provider is down, then the import does not wait for it, search answers lexically, /health shows the backlog, and once the provider is back every vector arrives and search ranks by meaning', async () => {
    fake.failing = 503;
    const started = Date.now();
    projectId = (await importBundle(gw, key, seaBundle())).projectId;
    expect(Date.now() - started).toBeLessThan(10_000);
    ids = await entityIdsByName(gw, key, projectId);

    const waiting = await waitFor('the worker to meet the outage', async () => {
      const h = await health(gw);
      return h.embeddings?.provider === 'unreachable' ? h.embeddings : undefined;
    }, 30_000);
    expect(waiting).toMatchObject({ model: 'fake-embed-1', vectors: 'pgvector', outbox_pending: seaVectorCount });
    expect(waiting.last_error).toMatch(/503/);
    expect(waiting.oldest_pending_age_seconds).toEqual(expect.any(Number));
    expect(JSON.stringify(waiting)).not.toContain('sk-fake-embeddings-key');

    // No vector yet: lexical, as before (the phrase matches nothing word for word).
    const before = await search(gw, key, projectId, "the sailor's fear of deep water");
    expect(before).toMatchObject({ ranking: 'lexical', names: [] });
    expect(await vectorsOf(projectId)).toEqual([]);

    fake.failing = false;
    await drained(gw);
    // Each entity's search text and each approved fact; the bell's suggested fact is not canon, so not embedded.
    expect(await vectorsOf(projectId)).toEqual([{ model: 'fake-embed-1', n: seaVectorCount }]);
    expect((await health(gw)).embeddings).toMatchObject({ provider: 'reachable', outbox_pending: 0, oldest_pending_age_seconds: null, last_error: null });
    // The worker batches: the whole import went in one request once the provider answered.
    const batch = fake.requests.filter((r) => r.input.length > 1).at(-1)!;
    expect(batch).toMatchObject({ path: '/v1/embeddings', model: 'fake-embed-1', authorization: 'Bearer sk-fake-embeddings-key' });
    expect(batch.input).toHaveLength(seaVectorCount);

    const after = await search(gw, key, projectId, "the sailor's fear of deep water");
    expect(after.ranking).toBe('hybrid');
    expect(after.names).toEqual(['Oren Hale', 'Tobin Reed', 'Keth Voss']);
    expect((await search(gw, key, projectId, 'the oath on the beach')).names[0]).toBe("Mara's oath");
  });

  it('when both rankings find an entity, then it ranks above those only one finds (reciprocal rank fusion), and a project without a provider still ranks lexically', async () => {
    // Lexically only Tobin has both words; by meaning Oren's "swims the sea" is nearest, then Tobin, then Keth.
    const lexical = await search(lexicalGw, key, projectId, 'deep water');
    expect(lexical).toMatchObject({ ranking: 'lexical', names: ['Tobin Reed'] });
    const hybrid = await search(gw, key, projectId, 'deep water');
    expect(hybrid).toMatchObject({ ranking: 'hybrid', names: ['Tobin Reed', 'Oren Hale', 'Keth Voss'] });
    // Exact words still win where meaning adds nothing: the lexical order is kept.
    expect((await search(gw, key, projectId, 'Mara')).names.slice(0, 2)).toEqual((await search(lexicalGw, key, projectId, 'Mara')).names.slice(0, 2));

    const graphql = await gw.graphql('query ($p: ID!) { search(projectId: $p, q: "deep water") { ranking data { canonicalName } } }', { p: projectId }, key);
    expect(graphql.data.search).toEqual({ ranking: 'hybrid', data: [{ canonicalName: 'Tobin Reed' }, { canonicalName: 'Oren Hale' }, { canonicalName: 'Keth Voss' }] });
    const openapi = await (await fetch(`${gw.api}/openapi.json`)).json();
    expect(openapi.paths['/projects/{id}/search'].get.responses['200'].headers['Lore-Search-Ranking'].description).toMatch(/hybrid/);
  });

  it('when results are fused, then they page exactly as lexical search does: a cursor per page, has_more, and a cursor from elsewhere is a 400', async () => {
    const all = await search(gw, key, projectId, "the sailor's fear of deep water", { limit: '100' });
    expect(all.res.body.has_more).toBe(false);
    expect(await walk(gw, key, projectId, "the sailor's fear of deep water", 1)).toEqual(all.names);
    expect(await walk(gw, key, projectId, "the sailor's fear of deep water", 2)).toEqual(all.names);

    const res = await gw.request(`/projects/${projectId}/search?q=${encodeURIComponent('deep water')}&starting_after=${ids['Mara Quell']}`, { key });
    expectProblem(res, 400, 'invalid_cursor');
  });

  it('when canon changes, then only what changed is embedded again, and the new fact ranks by meaning', async () => {
    const sent = fake.requests.length;
    const approved = await gw.request(`/projects/${projectId}/canon/${ids['Ilse Marr']}/approve`, { key, method: 'POST', json: { fact: 'Ilse swims the deep sea at night.' } });
    expect(approved.status, approved.text).toBe(200);
    await drained(gw);
    // The fact and Ilse's search text (which now holds it), nothing else.
    expect(fake.requests.slice(sent).flatMap((r) => r.input).sort()).toEqual(['Ilse Marr\nIlse\nIlse is afraid of the dark.\nIlse swims the deep sea at night.', 'Ilse swims the deep sea at night.']);
    expect((await search(gw, key, projectId, 'deep water')).names).toContain('Ilse Marr');
    expect(await vectorsOf(projectId)).toEqual([{ model: 'fake-embed-1', n: seaVectorCount + 1 }]);
  });

  it('when the provider fails at query time, then search answers lexically at once, says so, and keeps nothing of it; a query is embedded once however often it is asked', async () => {
    fake.failing = 500;
    const failed = await search(gw, key, projectId, 'swimming in deep water');
    expect(failed.ranking).toBe('lexical');
    expect(failed.res.body).toEqual((await search(lexicalGw, key, projectId, 'swimming in deep water')).res.body);
    const graphql = await gw.graphql('query ($p: ID!) { search(projectId: $p, q: "swimming in deep water") { ranking } }', { p: projectId }, key);
    expect(graphql.data.search.ranking).toBe('lexical');

    fake.failing = false;
    // After a failure the provider is left alone for five seconds, then asked again: the lexical page was not kept.
    const recovered = await waitFor('a hybrid answer again', async () => {
      const again = await search(gw, key, projectId, 'swimming in deep water');
      return again.ranking === 'hybrid' ? again : undefined;
    }, 20_000);
    expect(recovered.names.slice(0, 2)).toEqual(['Ilse Marr', 'Oren Hale']);

    const asked = () => fake.requests.filter((r) => r.input.includes('swimming in deep water')).length;
    const before = asked();
    await search(gw, key, projectId, 'swimming in deep water', { limit: '3' });
    await search(gw, key, projectId, 'swimming in deep water', { limit: '4' });
    expect(asked()).toBe(before);
  });

  it("when another account's project holds nearer vectors, then they never rank in this project, nor this project's in it", async () => {
    const before = await search(gw, key, projectId, 'deep water', { limit: '100' });
    const other = await gw.createKey('studio');
    otherKey = other.key;
    otherProject = (await importBundle(gw, other.key, {
      project: { name: 'Another book' },
      entities: [{ key: 'marlow', type: 'character', name: 'Marlow', facts: ['Marlow swims the deep sea water.'] }],
    })).projectId;
    await drained(gw);
    const after = await search(gw, key, projectId, 'deep water', { limit: '100' });
    expect(after.res.body).toEqual(before.res.body);
    expect(await search(gw, other.key, otherProject, 'deep water')).toMatchObject({ ranking: 'hybrid', names: ['Marlow'] });
    // And another account's project answers exactly like a missing one.
    expectProblem(await gw.request(`/projects/${otherProject}/search?q=deep`, { key }), 404, 'not_found');
  });

  it('when the provider refuses one text, then that item is retried alone, later and later, while the others are embedded', async () => {
    fake.refuse = { text: 'Pell keeps a ledger of the drowned.', status: 400 };
    const sent = fake.requests.length;
    const { projectId: pellProject } = await importBundle(gw, key, {
      project: { name: 'Refusals' },
      entities: [{ key: 'pell', type: 'character', name: 'Pell', facts: ['Pell keeps a ledger of the drowned.', 'Pell swims at dawn.'] }],
    });
    const stuck = await waitFor('only the refused item to wait', async () => {
      const h = (await health(gw)).embeddings!;
      return h.outbox_pending === 1 && h.last_error ? h : undefined;
    }, 30_000);
    expect(stuck.last_error).toMatch(/400/);
    expect(await vectorsOf(pellProject)).toEqual([{ model: 'fake-embed-1', n: 2 }]);
    expect(fake.requests.slice(sent).some((r) => r.input.length === 1 && r.input[0] === 'Pell keeps a ledger of the drowned.')).toBe(true);
    fake.refuse = undefined;
    // Its next try comes after its own backoff (seconds), and then it is stored.
    await drained(gw, 30_000);
    expect(await vectorsOf(pellProject)).toEqual([{ model: 'fake-embed-1', n: 3 }]);
  });

  it('when an AI client searches over MCP, then the tool says it searches by meaning and ranks the same way', async () => {
    const session = await connectMcp({ LORE_API_URL: gw.url, LORE_API_KEY: key, LORE_PROJECT_ID: projectId });
    try {
      const { tools } = await session.client.listTools();
      expect(tools.find((t) => t.name === 'lore_author_search')!.description).toMatch(/by meaning/);
      const result = await callTool(session, 'lore_author_search', { query: 'deep water', limit: 3 });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ ranking: 'hybrid', entities: [{ canonicalName: 'Tobin Reed' }, { canonicalName: 'Ilse Marr' }, { canonicalName: 'Oren Hale' }] });
      expect(textOf(result)).toMatch(/by words and meaning/);
    } finally {
      await session.close();
    }
  });

  it('when the operator changes the model and runs `lore embeddings rebuild --project`, then that project is embedded again with the new model and dimension, the others keep theirs, and a gateway on the new model ranks by meaning', async () => {
    // The gateways on the old model stop first, as in a model change (a running one would embed the queue its way).
    await gw.close();
    const newModel = { ...embeddingEnv(fake.url, 'fake-embed-2'), LORE_EMBEDDINGS_DIMENSIONS: '64', DATABASE_URL: gw.databaseUrl };
    const sent = fake.requests.length;
    const rebuilt = await lore(['embeddings', 'rebuild', '--project', projectId, '--json'], newModel);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(JSON.parse(rebuilt.stdout)).toEqual({ projectId, queued: seaVectorCount + 1, waiting: 0 });
    const asked = fake.requests.slice(sent);
    expect(asked.every((r) => r.model === 'fake-embed-2' && r.dimensions === 64)).toBe(true);
    expect(asked.flatMap((r) => r.input)).toHaveLength(seaVectorCount + 1);
    expect(await vectorsOf(projectId)).toEqual([{ model: 'fake-embed-2', n: seaVectorCount + 1 }]);
    expect((await db.query('SELECT DISTINCT dimensions FROM "Embedding" WHERE "projectId" = $1', [projectId])).rows).toEqual([{ dimensions: 64 }]);
    expect(await vectorsOf(otherProject)).toEqual([{ model: 'fake-embed-1', n: 2 }]);

    rebuiltGw = await startTestGateway(newModel);
    const hybrid = await search(rebuiltGw, key, projectId, 'deep water');
    expect(hybrid.ranking).toBe('hybrid');
    expect(hybrid.names.slice(0, 3)).toEqual(['Tobin Reed', 'Ilse Marr', 'Oren Hale']);
    // The other project's vectors are of the old model: not comparable, so it ranks lexically until rebuilt too.
    expect((await search(rebuiltGw, otherKey, otherProject, 'deep water')).ranking).toBe('lexical');

    expectCleanFailure(await lore(['embeddings', 'rebuild', '--project', 'prj_missing'], newModel), /not_found: Project prj_missing not found/);
    expectCleanFailure(await lore(['embeddings', 'rebuild'], { DATABASE_URL: gw.databaseUrl }), /needs an embedding provider: set LORE_EMBEDDINGS_URL/);
  });
});
