import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TimelineEnvelope } from '../../rest/schemas.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let fake: FakeLlm;
let key: string;
/** a pro key of the same account, which makes its projects (an indie key has no projects:write) */
let ownerKey: string;
let projectId: string;
const headers = { 'X-LLM-Provider': 'anthropic', 'X-LLM-Key': 'sk-ant-test', 'X-LLM-Model': 'claude-test' };

function bundleWithExtraChapters(thirdText: string) {
  const bundle = saltmarshBundle();
  bundle.chapters.push(
    { id: 'ch-03', title: 'Salvage', ordinal: 3, text: thirdText },
    { id: 'ch-04', title: 'Empty', ordinal: 4, text: '' },
  );
  return bundle;
}

beforeAll(async () => {
  fake = await startFakeLlm();
  gw = await startTestGateway({ LORE_ANTHROPIC_BASE_URL: fake.url });
  const owner = await gw.createKey('pro');
  ownerKey = owner.key;
  ({ key } = await gw.createKey('indie', { accountId: owner.account }));
  projectId = (await importBundle(gw, ownerKey, bundleWithExtraChapters('Mara Voss dove for the wreck of the Heron at Gull Point.'))).projectId;
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

const timeline = (query = '', h: Record<string, string> = headers) => gw.request(`/projects/${projectId}/timeline${query}`, { key, headers: h });

describe('timeline', () => {
  it('when BYOK headers are missing, then 402 precondition_required', async () => {
    const res = await timeline('', {});
    expect(res.status).toBe(402);
    expect(res.body.code).toBe('precondition_required');
  });

  it('when read, then imported beats are kept and a chapter without beats is summarised once by the model', async () => {
    fake.script({ object: { beats: [{ summary: 'Mara dives for the wreck.', entities: ['Mara Voss', 'the Heron', 'nobody'] }] } });
    const res = await timeline();
    expect(res.status).toBe(200);
    const page = TimelineEnvelope.parse(res.body);
    expect(page.timeline).toEqual(page.data);
    expect(page.data.map((e) => [e.chapter, e.ordinal])).toEqual([['ch-01', 1], ['ch-02', 2], ['ch-03', 3], ['ch-04', 4]]);
    expect(page.data[0].beats[0].summary).toBe('Mara and Keth sail past the dark lighthouse.');
    expect(page.data[2].beats).toHaveLength(1);
    expect(page.data[2].beats[0].summary).toBe('Mara dives for the wreck.');
    expect(page.data[2].beats[0].entities).toHaveLength(2);
    expect(page.data[3].beats).toEqual([]);
    expect(fake.requests).toHaveLength(1);
    expect(JSON.stringify(fake.requests[0].body)).toContain('dove for the wreck');

    const again = await timeline();
    expect(again.body.data[2].beats[0].id).toBe(page.data[2].beats[0].id);
    expect(fake.requests).toHaveLength(1);
  });

  it('when the chapter text changes, then its beats are summarised again', async () => {
    await importBundle(gw, key, bundleWithExtraChapters('Mara Voss burned the Heron at Gull Point.'), projectId);
    fake.script({ object: { beats: [{ summary: 'Mara burns the Heron.', entities: ['Mara Voss'] }] } });
    const res = await timeline('?from=3&to=3');
    expect(res.body.data.map((e: any) => e.chapter)).toEqual(['ch-03']);
    expect(res.body.data[0].beats[0].summary).toBe('Mara burns the Heron.');
    expect(fake.requests).toHaveLength(1);
  });

  it('when a chapter without beats is read six times at once, then every answer is 200 and one summary is kept', async () => {
    await importBundle(gw, key, bundleWithExtraChapters('Mara Voss sank the Heron off Gull Point.'), projectId);
    const before = fake.fallback;
    // Every reply after the same delay, so the six summaries reach the database together.
    fake.fallback = { delayMs: 300, object: { beats: [{ summary: 'Mara sinks the Heron.', entities: ['Mara Voss'] }, { summary: 'Gull Point watches.', entities: [] }] } };
    try {
      const answers = await Promise.all(Array.from({ length: 6 }, () => timeline('?from=3&to=3')));
      expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200, 200]);
      for (const res of answers) expect(res.body.data[0].beats.map((b: any) => b.summary)).toEqual(['Mara sinks the Heron.', 'Gull Point watches.']);
    } finally {
      fake.fallback = before;
    }
    const beats = await gw.gateway.runtime.services.prisma.beat.findMany({ where: { projectId, chapter: { externalId: 'ch-03' } } });
    expect(beats.map((b) => b.position).sort()).toEqual([0, 1]);
  });

  it('when paged, then limit and starting_after walk the chapters once each', async () => {
    const first = await timeline('?limit=3');
    expect(first.body.has_more).toBe(true);
    expect(first.body.data).toHaveLength(3);
    const second = await timeline(`?limit=3&starting_after=${first.body.next_starting_after}`);
    expect(second.body.has_more).toBe(false);
    expect(second.body.next_starting_after).toBeUndefined();
    expect([...first.body.data, ...second.body.data].map((e: any) => e.chapter)).toEqual(['ch-01', 'ch-02', 'ch-03', 'ch-04']);
    expect((await timeline('?starting_after=chp_nope')).status).toBe(400);
    expect((await timeline('?limit=0')).status).toBe(400);
    expect((await timeline('?from=x')).status).toBe(400);
  });

  it('when the model finds no beats in a chapter, then that answer is kept too and the model is not asked again', async () => {
    const quiet = saltmarshBundle();
    quiet.project.name = 'Quiet chapters';
    quiet.timeline = [];
    quiet.chapters = [{ id: 'ch-01', title: 'Fog', ordinal: 1, text: 'Fog lay on the flats all day. Nothing moved.' }];
    const quietProject = (await importBundle(gw, ownerKey, quiet)).projectId;
    fake.script({ object: { beats: [] } });
    for (let i = 0; i < 3; i++) {
      const res = await gw.request(`/projects/${quietProject}/timeline`, { key, headers });
      expect(res.status).toBe(200);
      expect(res.body.data[0].beats).toEqual([]);
    }
    expect(fake.requests).toHaveLength(1);
  });

  it('when a page holds many chapters without beats, then they are summarised at the same time, a few at once', async () => {
    const many = saltmarshBundle();
    many.project.name = 'Many chapters';
    many.timeline = [];
    many.chapters = Array.from({ length: 10 }, (_, i) => ({ id: `ch-${i + 1}`, title: `Day ${i + 1}`, ordinal: i + 1, text: `Mara Voss mended nets on day ${i + 1}.` }));
    const manyProject = (await importBundle(gw, ownerKey, many)).projectId;
    const before = fake.fallback;
    fake.fallback = { delayMs: 400, object: { beats: [{ summary: 'Mara mends nets.', entities: ['Mara Voss'] }] } };
    fake.maxInFlight = 0;
    try {
      const res = await gw.request(`/projects/${manyProject}/timeline?limit=10`, { key, headers });
      expect(res.status).toBe(200);
      expect(res.body.data.map((e: any) => e.beats.length)).toEqual(Array(10).fill(1));
      expect(fake.requests).toHaveLength(10);
      expect(fake.maxInFlight).toBeGreaterThan(1);
      expect(fake.maxInFlight).toBeLessThanOrEqual(4);
    } finally {
      fake.fallback = before;
    }
  });

  it('when read, then it costs 5 calls; a provider failure costs nothing', async () => {
    const usage = async () => (await gw.request('/usage', { key })).body.used as number;
    const before = await usage();
    await timeline('?from=1&to=2');
    expect(await usage()).toBe(before + 5);
    await importBundle(gw, key, bundleWithExtraChapters('Keth was gone. Mara Voss sailed on alone.'), projectId);
    const afterImport = await usage();
    fake.script({ status: 500 });
    const failed = await timeline('?from=3&to=3');
    expect(failed.status).toBe(502);
    expect(await usage()).toBe(afterImport);
  });
});
