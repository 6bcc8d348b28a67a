// Story time inside a chapter: a state change anchored at a line or a phrase of its chapter, a stored chapter checked
// in place with positions (REST, GraphQL, MCP), its kept result, an anchor that follows an edit and one that is lost,
// and a passage checked at a line of its chapter.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectMcp, textOf, type McpSession } from '../mcp/harness.ts';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';

const deathChapter = [
  'Ilse climbed the lighthouse stair at dusk and trimmed the lamp.', // 1
  '', // 2
  'Oren watched her from the quay.', // 3
  '', // 4
  'The wave took the gallery rail, and Ilse went with it into the sea.', // 5
  '', // 6
  'At midnight Ilse lit the lamp again.', // 7
].join('\n');

const bundle = (anchor: { line?: number; anchor?: string }) => ({
  project: { name: 'The Drowned Light' },
  chapters: [
    { id: 'ch-01', ordinal: 1, text: 'Ilse kept the Gull Point light. Oren mended nets.' },
    { id: 'ch-02', ordinal: 2, text: deathChapter },
    { id: 'ch-03', ordinal: 3, text: 'Oren walked the shore alone.' },
  ],
  entities: [
    { key: 'ilse', type: 'character', name: 'Ilse Marr', aliases: ['Ilse'], state: { status: 'alive', pronouns: 'she/her' }, stateChanges: [{ from: 'ch-02', ...anchor, state: { status: 'dead' } }] },
    { key: 'oren', type: 'character', name: 'Oren Vale', aliases: ['Oren'], state: { status: 'alive', pronouns: 'he/him' } },
  ],
});

let gw: TestGateway;
let llm: FakeLlm;
let key: string;

beforeAll(async () => {
  llm = await startFakeLlm();
  gw = await startTestGateway({ LORE_OPENAI_BASE_URL: llm.url });
  ({ key } = await gw.createKey('pro'));
});
afterAll(async () => {
  await gw?.close();
  await llm?.close();
});

const checkChapter = (projectId: string, chapter: string) => gw.request(`/projects/${projectId}/chapters/${chapter}/check`, { method: 'POST', key });

describe('a chapter checked in place', () => {
  it('when a death is anchored at a phrase of its chapter, then only what the character does after it is a hit, with its line and offsets, and asking again answers from the kept result', async () => {
    const { projectId } = await importBundle(gw, key, bundle({ anchor: 'The wave took the gallery rail' }));
    const first = await checkChapter(projectId, 'ch-02');
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ chapter: 'ch-02', words: 38, cached: false, anchors_lost: [] });
    expect(first.body.hits).toHaveLength(1);
    const [hit] = first.body.hits;
    expect(hit).toMatchObject({ kind: 'dead_character_active', severity: 'P1', line: 7 });
    expect(deathChapter.slice(hit.start, hit.end)).toBe(hit.quote);
    expect(hit.quote).toContain('Ilse lit');
    expect(hit.id).toMatch(/^cfl_/);

    const again = await checkChapter(projectId, 'ch-02');
    expect(again.body).toEqual({ ...first.body, cached: true });

    // The whole chapter as one passage, as of the chapter alone (after it): Ilse is dead throughout, so her first line is a hit too.
    const passage = await gw.request(`/projects/${projectId}/conflicts/check`, {
      method: 'POST', key, headers: { 'X-LLM-Provider': 'openai', 'X-LLM-Key': 'sk-test-0123456789abcdef' }, json: { text: deathChapter.split('\n')[0], chapter: 'ch-02' },
    });
    expect(passage.body.conflicts.map((c: { kind: string }) => c.kind)).toEqual(['dead_character_active']);
    // At line 1 of the chapter she is not dead yet.
    const atLine = await gw.request(`/projects/${projectId}/conflicts/check`, {
      method: 'POST', key, headers: { 'X-LLM-Provider': 'openai', 'X-LLM-Key': 'sk-test-0123456789abcdef' }, json: { text: deathChapter.split('\n')[0], chapter: 'ch-02', line: 1 },
    });
    expect(atLine.status, atLine.text).toBe(200);
    expect(atLine.body.conflicts).toEqual([]);
  });

  // Whether the check found the parse made after the write is a matter of speed (npm run bench:chapter); here, that
  // what it answers is what a check parsing the text itself answers, and never what the text before an edit said.
  it('when a chapter is written, then its check answers as a check that parses the chapter itself; after an edit the old text is not what it reads', async () => {
    const acting = 'Oren walked the shore alone.\n\nIlse waved to him from the gallery.';
    // Imported, the chapter is parsed by its check.
    const imported = bundle({ anchor: 'The wave took the gallery rail' });
    imported.chapters[2].text = acting;
    const parsedByCheck = await importBundle(gw, key, imported);
    const reference = await checkChapter(parsedByCheck.projectId, 'ch-03');
    expect(reference.status, reference.text).toBe(200);
    expect(reference.body.hits.map((h: { kind: string; line: number }) => [h.kind, h.line])).toEqual([['dead_character_active', 3]]);

    // Written through the chapter write, it is parsed before the check asks (a text never seen: one more line break).
    const { projectId } = await importBundle(gw, key, bundle({ anchor: 'The wave took the gallery rail' }));
    const written = `${acting}\n`;
    const put = await gw.request(`/projects/${projectId}/chapters/ch-03`, { method: 'PUT', key, json: { ordinal: 3, text: written } });
    expect(put.status, put.text).toBe(200);
    const checked = await checkChapter(projectId, 'ch-03');
    const positions = (body: { hits: { kind: string; line: number; start: number; end: number; quote: string; title: string }[] }) => body.hits.map(({ kind, line, start, end, quote, title }) => ({ kind, line, start, end, quote, title }));
    expect(positions(checked.body)).toEqual(positions(reference.body));

    // Edited so that Ilse no longer acts: the parse of the text before is never what the check reads.
    const quiet = 'Oren walked the shore alone.\n\nThe gallery stood empty.\n';
    await gw.request(`/projects/${projectId}/chapters/ch-03`, { method: 'PUT', key, json: { ordinal: 3, text: quiet } });
    const after = await checkChapter(projectId, 'ch-03');
    expect(after.body).toMatchObject({ cached: false, hits: [] });
  });

  // Another process (the CLI, a sync, MCP over stdio) writes the chapter straight into the database: the gateway hears
  // of it and parses it before the check asks, or the check parses it; either way it answers as after a gateway write.
  it('when a chapter is written by another process, then its check gives the hits, lines and offsets a check after the same text written through the gateway gives, with a death anchored in it and without', async () => {
    const anchored = `${deathChapter}\n\nOren saw Ilse on the stair.`;
    const acting = 'Oren walked the shore alone.\n\nIlse waved to him from the gallery.\n\nShe smiled at Oren.';
    const writeBehind = async (projectId: string, chapter: string, text: string) => {
      const db = new pg.Client({ connectionString: gw.databaseUrl });
      await db.connect();
      try {
        const written = await db.query('UPDATE "Chapter" SET text = $3, "contentHash" = $4 WHERE "projectId" = $1 AND "externalId" = $2', [projectId, chapter, text, createHash('sha256').update(text).digest('hex')]);
        expect(written.rowCount).toBe(1);
      } finally {
        await db.end();
      }
    };
    const positions = (body: { hits: { kind: string; line: number; start: number; end: number; quote: string; title: string }[] }) => body.hits.map(({ kind, line, start, end, quote, title }) => ({ kind, line, start, end, quote, title }));
    const behind = await importBundle(gw, key, bundle({ anchor: 'The wave took the gallery rail' }));
    const through = await importBundle(gw, key, bundle({ anchor: 'The wave took the gallery rail' }));
    for (const [chapter, ordinal, text] of [['ch-02', 2, anchored], ['ch-03', 3, acting]] as const) {
      await writeBehind(behind.projectId, chapter, text);
      const put = await gw.request(`/projects/${through.projectId}/chapters/${chapter}`, { method: 'PUT', key, json: { ordinal, text } });
      expect(put.status, put.text).toBe(200);
      const [other, own] = [await checkChapter(behind.projectId, chapter), await checkChapter(through.projectId, chapter)];
      expect(other.status, other.text).toBe(200);
      expect(other.body).toMatchObject({ cached: false, anchors_lost: [] });
      expect(positions(other.body)).toEqual(positions(own.body));
      expect(other.body.hits.length).toBeGreaterThan(0);
      for (const hit of other.body.hits) expect(text.slice(hit.start, hit.end)).toBe(hit.quote);
    }
  });

  it('when the chapter is edited around the anchor, then the death follows it; when the anchor is gone, it is reported and the given line holds', async () => {
    const { projectId } = await importBundle(gw, key, bundle({ anchor: 'The wave took the gallery rail', line: 5 }));
    const edited = ['Ilse lit the lamp.', '', 'Oren slept.', '', 'Ilse sang on the gallery.', '', 'The wave took the gallery rail, and Ilse went with it.', '', 'Oren woke.'].join('\n');
    const put = await gw.request(`/projects/${projectId}/chapters/ch-02`, { method: 'PUT', key, json: { ordinal: 2, text: edited } });
    expect(put.status, put.text).toBe(200);
    const followed = await checkChapter(projectId, 'ch-02');
    expect(followed.body.hits).toEqual([]);
    expect(followed.body.anchors_lost).toEqual([]);

    const without = ['Ilse lit the lamp.', '', 'Oren slept.', '', 'The sea rose over the rocks.', '', 'Ilse sang on the gallery.'].join('\n');
    await gw.request(`/projects/${projectId}/chapters/ch-02`, { method: 'PUT', key, json: { ordinal: 2, text: without } });
    const lost = await checkChapter(projectId, 'ch-02');
    expect(lost.body.anchors_lost).toEqual([{ entity: expect.stringMatching(/^ent_/), key: 'status', anchor: 'The wave took the gallery rail', line: 5 }]);
    expect(lost.body.hits.map((h: { line: number }) => h.line)).toEqual([7]);
  });

  it('when a death is placed in its chapter without a line or phrase, then the chapter checked in place calls nothing in it a contradiction, and the chapter after it and a passage given the chapter alone still read the death', async () => {
    const { projectId } = await importBundle(gw, key, bundle({}));
    const inPlace = await checkChapter(projectId, 'ch-02');
    expect(inPlace.status, inPlace.text).toBe(200);
    expect(inPlace.body.hits).toEqual([]);
    const check = (json: Record<string, unknown>) => gw.request(`/projects/${projectId}/conflicts/check`, {
      method: 'POST', key, headers: { 'X-LLM-Provider': 'openai', 'X-LLM-Key': 'sk-test-0123456789abcdef' }, json,
    });
    const kinds = (r: { body: { conflicts: { kind: string }[] } }) => r.body.conflicts.map((c) => c.kind);
    expect(kinds(await check({ text: 'At midnight Ilse lit the lamp again.', chapter: 'ch-02', line: 7 }))).toEqual([]);
    expect(kinds(await check({ text: 'At midnight Ilse lit the lamp again.', chapter: 'ch-02' }))).toEqual(['dead_character_active']);
    expect(kinds(await check({ text: 'At midnight Ilse lit the lamp again.', chapter: 'ch-03', line: 1 }))).toEqual(['dead_character_active']);
  });

  it('when a death is given as the state\'s died_in chapter (the quick start example\'s form), then that chapter checked in place calls nothing in it a contradiction, and the chapter after it still reads the death', async () => {
    const diedIn = bundle({});
    diedIn.entities[0] = { ...diedIn.entities[0], state: { status: 'dead', pronouns: 'she/her', died_in: 'ch-02' } as never, stateChanges: [] };
    const { projectId } = await importBundle(gw, key, diedIn);
    const inPlace = await checkChapter(projectId, 'ch-02');
    expect(inPlace.status, inPlace.text).toBe(200);
    expect(inPlace.body.hits).toEqual([]);
    const after = await gw.request(`/projects/${projectId}/conflicts/check`, {
      method: 'POST', key, headers: { 'X-LLM-Provider': 'openai', 'X-LLM-Key': 'sk-test-0123456789abcdef' }, json: { text: 'At midnight Ilse lit the lamp again.', chapter: 'ch-03', line: 1 },
    });
    expect(after.body.conflicts.map((c: { kind: string }) => c.kind)).toEqual(['dead_character_active']);
  });

  it('when the change gives only a line, then the bundle exports it again as given; a line without from, or a chapter of another project, is refused', async () => {
    const { projectId } = await importBundle(gw, key, bundle({ line: 5 }));
    const exported = await gw.request(`/projects/${projectId}/export`, { key });
    const ilse = exported.body.entities.find((e: { key: string }) => e.key === 'ilse');
    expect(ilse.stateChanges).toEqual([{ from: 'ch-02', line: 5, state: { status: 'dead' } }]);
    expect((await checkChapter(projectId, 'ch-02')).body.hits.map((h: { line: number }) => h.line)).toEqual([7]);

    const bad = await gw.graphql('mutation ($b: JSON!) { importBundle(bundle: $b) { projectId } }', {
      b: { ...bundle({}), project: { name: 'Bad' }, entities: [{ key: 'x', type: 'character', name: 'X', stateChanges: [{ until: 'ch-02', line: 3, state: { status: 'dead' } }] }] },
    }, key);
    expect(bad.errors?.[0].extensions.code).toBe('invalid_bundle');
    expect(bad.errors?.[0].message).toContain('from');

    const { key: other } = await gw.createKey('pro');
    const foreign = await gw.request(`/projects/${projectId}/chapters/ch-02/check`, { method: 'POST', key: other });
    expect(foreign.status).toBe(404);
    const missing = await checkChapter(projectId, 'ch-99');
    expect(missing.status).toBe(404);
  });

  it('when the check is asked through GraphQL and over MCP, then they answer the same hits with positions', async () => {
    const { projectId } = await importBundle(gw, key, bundle({ anchor: 'The wave took the gallery rail' }));
    const graphql = await gw.graphql(
      'mutation ($p: ID!, $c: String!) { checkChapter(projectId: $p, chapter: $c) { chapter cached hits { kind line start end quote } anchorsLost { anchor } } }',
      { p: projectId, c: 'ch-02' },
      key,
    );
    expect(graphql.errors).toBeUndefined();
    expect(graphql.data.checkChapter.hits).toEqual([{ kind: 'dead_character_active', line: 7, start: expect.any(Number), end: expect.any(Number), quote: expect.stringContaining('Ilse') }]);

    let session: McpSession | undefined;
    try {
      session = await connectMcp({ LORE_API_URL: gw.url, LORE_API_KEY: key, LORE_PROJECT_ID: projectId });
      const result = await callTool(session, 'lore_author_check_chapter', { chapter: 'ch-02' });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect((result.structuredContent as any).hits.map((h: any) => h.line)).toEqual([7]);
      expect(textOf(result)).toContain('line 7 [P1]');
    } finally {
      await session?.close();
    }
  });
});
