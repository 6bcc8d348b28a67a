// The brief through REST and GraphQL: what it holds as of a chapter, its two renderings, its token count, the budget
// (never exceeded over generated scenes and budgets), bad input and another account's project.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entityIdsByName, importBundle, sharedGateways, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { prng } from '../support/prng.ts';
import { crowdNames, harbourBundle } from './fixtures.ts';

let gw: TestGateway;
let key: string;
let projectId: string;
let ids: Record<string, string>;
const scene = 'Mara came down to Gull Point at dusk and thought of her brother. Jon watched her from the dunes.';

beforeAll(async () => {
  gw = await startTestGateway();
  key = (await gw.createKey('pro')).key;
  projectId = (await importBundle(gw, key, harbourBundle())).projectId;
  ids = await entityIdsByName(gw, key, projectId);
});
afterAll(() => gw?.close());

const brief = (body: Record<string, unknown>, as = key, project = projectId) => gw.request(`/projects/${project}/brief`, { method: 'POST', key: as, json: body });
const names = (items: { name: string }[]) => items.map((e) => e.name);
const factTexts = (e: { facts: { text: string }[] }) => e.facts.map((f) => f.text);

describe('POST /projects/{id}/brief', () => {
  it('when a scene at ch-03 names Mara, Gull Point and "her brother", then they come with their state and live approved facts as of ch-03, then the neighbours, rule, promise and earlier beats', async () => {
    const res = await brief({ chapter: 'ch-03', text: scene, budget: 4000 });
    expect(res.status, res.text).toBe(200);
    const { content } = res.body;
    expect(content.entities.map((e: any) => [e.name, e.named_by])).toEqual([['Mara Voss', 'text'], ['Gull Point', 'text'], ['Keth Voss', 'kin']]);
    const [mara, gull, keth] = content.entities;
    expect(mara).toMatchObject({ id: ids['Mara Voss'], type: 'character', aliases: ['Mara', 'the Captain'], state: { status: 'alive', eyes: 'green', location: 'at sea' } });
    // Not the fact that ended at ch-02, not the suggested one.
    expect(factTexts(mara).sort()).toEqual(["Mara captains the Heron.", "Mara's eyes are green."]);
    expect(mara.facts.every((f: any) => /^fct_/.test(f.id))).toBe(true);
    expect(factTexts(gull)).toEqual(['Gull Point lighthouse has been dark for ten years.']);
    expect(keth.state).toEqual({ status: 'dead' });
    expect(names(content.entities)).not.toContain('Jon Rook'); // suggested, not canon
    expect(content.relationships).toEqual([{ id: expect.stringMatching(/^rel_/), from: ids['Keth Voss'], kind: 'brother_of', to: ids['Mara Voss'] }]);
    expect(names(content.neighbours)).toContain('the Heron');
    expect(content.neighbours.find((n: any) => n.name === 'the Heron').relationships).toMatchObject([{ from: ids['Mara Voss'], kind: 'captains', to: ids['the Heron'] }]);
    expect(names(content.neighbours)).not.toContain("Mara's oath");
    expect(content.rules).toEqual([{ id: ids['No magic at sea'], name: 'No magic at sea', facts: [{ id: expect.any(String), text: 'Salt water breaks every spell.' }] }]);
    expect(names(content.promises)).toEqual(["Mara's oath"]);
    expect(content.knowledge).toEqual([]); // no secret or restricted fact in this canon
    expect(content.beats.map((b: any) => [b.chapter, b.summary])).toEqual([
      ['ch-01', 'Mara and Keth sail past the dark lighthouse.'],
      ['ch-02', 'Keth drowns at Gull Point in a storm.'],
    ]);
    expect(res.body).toMatchObject({ chapter: 'ch-03', format: 'json', encoding: 'o200k_base', budget: 4000 });
    expect(res.body.omitted).toEqual({ entities: 0, facts: 0, relationships: 0, neighbours: 0, rules: 0, promises: 0, knowledge: 0, beats: 0 });
    expect(res.body.tokens).toBe(countTokens(JSON.stringify(content)));
    expect(res.body.tokens).toBeLessThanOrEqual(4000);
    expect(res.body.markdown).toBeUndefined();
  });

  it('when an entity is created, given an alias or deleted between two briefs, then the next brief names what the canon now has', async () => {
    // A key of its own: the file's key keeps its rate limit for the tests after.
    const k = (await gw.createKey('pro')).key;
    const { projectId: own } = await importBundle(gw, k, { ...harbourBundle(), project: { name: `Harbour names ${Math.random().toString(36).slice(2)}` } });
    const namedIn = async (text: string) => names((await brief({ text }, k, own)).body.content.entities);
    expect(await namedIn('Wren rowed past Gull Point.')).toEqual(['Gull Point']);
    const created = await gw.request(`/projects/${own}/entities`, { method: 'POST', key: k, json: { type: 'character', name: 'Wren Hale' } });
    expect(created.status, created.text).toBe(201);
    expect(await namedIn('Wren Hale rowed past Gull Point.')).toEqual(['Wren Hale', 'Gull Point']);
    const renamed = await gw.request(`/projects/${own}/entities/${created.body.id}`, { method: 'PATCH', key: k, json: { aliases: ['the Rower'] } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(await namedIn('The Rower rowed past Gull Point.')).toEqual(['Wren Hale', 'Gull Point']);
    expect((await gw.request(`/projects/${own}/entities/${created.body.id}`, { method: 'DELETE', key: k })).status).toBe(200);
    expect(await namedIn('Wren Hale rowed past Gull Point.')).toEqual(['Gull Point']);
  });

  it('when a fact is retconned and another retired, then the brief has the new text and neither retired fact', async () => {
    // A key of its own: the file's key keeps its rate limit for the tests after.
    const k = (await gw.createKey('pro')).key;
    const { projectId: own } = await importBundle(gw, k, { ...harbourBundle(), project: { name: `Harbour retcons ${Math.random().toString(36).slice(2)}` } });
    const maraFacts = async () => (await brief({ text: 'Mara waited.' }, k, own)).body.content.entities[0].facts as { id: string; text: string }[];
    const before = await maraFacts();
    const eyes = before.find((f) => f.text === "Mara's eyes are green.")!;
    const captains = before.find((f) => f.text === 'Mara captains the Heron.')!;
    const retcon = await gw.request(`/projects/${own}/facts/${eyes.id}`, { method: 'PATCH', key: k, json: { text: "Mara's eyes are grey." } });
    expect(retcon.status, retcon.text).toBe(200);
    expect((await gw.request(`/projects/${own}/facts/${captains.id}`, { method: 'DELETE', key: k })).status).toBe(200);
    const after = await maraFacts();
    expect(after.map((f) => f.text)).toContain("Mara's eyes are grey.");
    expect(after.map((f) => f.id)).not.toContain(eyes.id);
    expect(after.map((f) => f.id)).not.toContain(captains.id);
  });

  it('when the scene is at ch-01, then Keth is alive, Mara does not captain the Heron yet, and no beat comes before it', async () => {
    const { body } = await brief({ chapter: 'ch-01', text: scene });
    const mara = body.content.entities[0];
    expect(factTexts(mara).sort()).toEqual(['Mara is a deckhand on the ferry.', "Mara's eyes are green."]);
    expect(body.content.entities.find((e: any) => e.name === 'Keth Voss').state).toEqual({ status: 'alive' });
    expect(body.content.beats).toEqual([]);
  });

  it('when entity ids are given without text, then those entities come first, named by id', async () => {
    const { status, body } = await brief({ entity_ids: [ids['Ada Quill']] });
    expect(status).toBe(200);
    expect(body.content.entities.map((e: any) => [e.name, e.named_by])).toEqual([['Ada Quill', 'id']]);
    expect(body.chapter).toBeNull();
    expect(body.content.beats.map((b: any) => b.chapter)).toEqual(['ch-01', 'ch-02', 'ch-03']);
  });

  it('when format is markdown, then the same content comes as Markdown with every id, and tokens counts that text', async () => {
    const [json, md] = await Promise.all([brief({ chapter: 'ch-03', text: scene, budget: 4000 }), brief({ chapter: 'ch-03', text: scene, budget: 4000, format: 'markdown' })]);
    expect(md.status, md.text).toBe(200);
    const { markdown } = md.body;
    expect(md.body.content).toBeUndefined();
    expect(markdown).toMatch(/^# Canon brief as of ch-03\n/);
    expect(markdown).toContain(`### Mara Voss (character) \`${ids['Mara Voss']}\``);
    expect(markdown).toMatch(/^State: .*status: alive.*location: at sea/m);
    expect(markdown).toContain('## One step away');
    expect(markdown).toContain(`- Keth Voss brother_of Mara Voss \``);
    const content = json.body.content;
    for (const id of [...content.entities, ...content.entities.flatMap((e: any) => e.facts), ...content.rules, ...content.promises, ...content.beats].map((x: any) => x.id)) {
      expect(markdown).toContain(id);
    }
    expect(md.body.tokens).toBe(countTokens(markdown));
  });

  it('when the budget is small, then the most important items come whole, tokens stay within it, and the rest is counted in omitted', async () => {
    const full = (await brief({ chapter: 'ch-03', text: scene, budget: 200_000 })).body;
    expect(Object.values(full.omitted).every((n) => n === 0)).toBe(true);
    const { status, body } = await brief({ chapter: 'ch-03', text: scene, budget: 150 });
    expect(status).toBe(200);
    expect(body.tokens).toBeLessThanOrEqual(150);
    expect(body.tokens).toBe(countTokens(JSON.stringify(body.content)));
    expect(names(body.content.entities)).toContain('Mara Voss');
    const allFacts = new Map(full.content.entities.flatMap((e: any) => e.facts).map((f: any) => [f.id, f.text]));
    for (const f of body.content.entities.flatMap((e: any) => e.facts)) expect(f.text).toBe(allFacts.get(f.id));
    const kept = (kind: string) => (kind === 'facts' ? body.content.entities.flatMap((e: any) => e.facts) : body.content[kind]).length;
    for (const [kind, n] of Object.entries(body.omitted)) expect(kept(kind) + (n as number), kind).toBe((kind === 'facts' ? full.content.entities.flatMap((e: any) => e.facts) : full.content[kind]).length);
    expect(body.omitted.neighbours).toBeGreaterThan(0);
  });

  it('when the scene is empty, then the brief holds the rules, promises and beats of that point and no entities', async () => {
    const { status, body } = await brief({ chapter: 'ch-03' });
    expect(status).toBe(200);
    expect(body.content.entities).toEqual([]);
    expect(body.content.rules.length).toBeGreaterThan(0);
    expect(body.content.beats.length).toBeGreaterThan(0);
  });

  it('when the input is wrong, then a 400 names the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ text: scene, chapter: 'ch-99' }, 'body.chapter'],
      [{ text: scene, budget: 50 }, 'body.budget'],
      [{ text: scene, format: 'yaml' }, 'body.format'],
      [{ text: '   ' }, 'body.text'],
    ];
    for (const [body, path] of cases) {
      const res = await brief(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.map((e: any) => e.path), JSON.stringify(body)).toContain(path);
    }
  });

  it("when an entity id is not the project's, then 404 not_found", async () => {
    const res = await brief({ entity_ids: ['ent_01nosuchentity00000000000'] });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  it("when another account asks for a brief of this project, then it answers exactly as for a missing project", async () => {
    const other = (await gw.createKey('pro')).key;
    const theirs = await brief({ text: scene }, other);
    const missing = await brief({ text: scene }, other, 'prj_01nosuchproject0000000000');
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe('not_found');
    expect(theirs.body.detail.replace(projectId, '<id>')).toBe(missing.body.detail.replace('prj_01nosuchproject0000000000', '<id>'));
  });

  it('when a brief is asked for, then it costs one call', async () => {
    const { key: fresh } = await gw.createKey('pro', { accountId: (await gw.gateway.runtime.services.prisma.project.findUniqueOrThrow({ where: { id: projectId } })).accountId });
    expect((await brief({ text: scene }, fresh)).status).toBe(200);
    expect((await gw.request('/usage', { key: fresh })).body.used).toBe(1);
  });
});

describe('the brief beside another gateway on the same database', () => {
  const others = sharedGateways(1, () => gw.databaseUrl);

  it('when another gateway renames an entity, adds a suggested one and approves it, then the next brief on this one names what the canon now has', async () => {
    const k = (await gw.createKey('pro')).key;
    const { projectId: own } = await importBundle(gw, k, { ...harbourBundle(), project: { name: `Harbour elsewhere ${Math.random().toString(36).slice(2)}` } });
    const ownIds = await entityIdsByName(gw, k, own);
    const namedIn = async (text: string) => names((await brief({ text }, k, own)).body.content.entities);
    const [other] = others;
    // This gateway keeps the project's names from here on.
    expect(await namedIn('The Innkeeper rowed past Gull Point.')).toEqual(['Gull Point']);
    const renamed = await other.request(`/projects/${own}/entities/${ownIds['Ada Quill']}`, { method: 'PATCH', key: k, json: { aliases: ['the Innkeeper'] } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(await namedIn('The Innkeeper rowed past Gull Point.')).toEqual(['Ada Quill', 'Gull Point']);
    const created = await other.request(`/projects/${own}/entities`, { method: 'POST', key: k, json: { type: 'character', name: 'Wren Hale', status: 'suggested' } });
    expect(created.status, created.text).toBe(201);
    expect(await namedIn('Wren Hale rowed past Gull Point.')).toEqual(['Gull Point']);
    const approved = await other.request(`/projects/${own}/canon/${created.body.id}/approve`, { method: 'POST', key: k });
    expect(approved.status, approved.text).toBe(200);
    expect(await namedIn('Wren Hale rowed past Gull Point.')).toEqual(['Wren Hale', 'Gull Point']);
  });
});

describe('GraphQL brief', () => {
  it('when brief is queried with entity ids and markdown, then it answers the Markdown and its token count', async () => {
    const result = await gw.graphql(
      'query ($p: ID!, $ids: [ID!]) { brief(projectId: $p, entityIds: $ids, chapter: "ch-03", budget: 500, format: markdown) { chapter format encoding budget tokens markdown content omitted { facts neighbours } } }',
      { p: projectId, ids: [ids['Keth Voss']] },
      key,
    );
    expect(result.errors).toBeUndefined();
    const b = result.data.brief;
    expect(b).toMatchObject({ chapter: 'ch-03', format: 'markdown', encoding: 'o200k_base', budget: 500, content: null });
    expect(b.markdown).toContain(`### Keth Voss (character) \`${ids['Keth Voss']}\``);
    expect(b.markdown).toContain('State: status: dead');
    expect(b.tokens).toBe(countTokens(b.markdown));
    expect(b.tokens).toBeLessThanOrEqual(500);
  });

  it("when another account queries the brief, then not_found as for a missing project", async () => {
    const other = (await gw.createKey('pro')).key;
    const result = await gw.graphql('query ($p: ID!) { brief(projectId: $p, text: "Mara") { tokens } }', { p: projectId }, other);
    expect(result.errors?.[0].extensions.code).toBe('not_found');
  });
});

describe('the budget over generated scenes', () => {
  it('when scenes naming random entities are briefed at random budgets in both formats, then tokens never exceed the budget and always count the rendering', async () => {
    const random = prng(27);
    const pool = ['Mara', 'Keth', 'the Heron', 'Gull Point', 'Ada', 'brother', 'sister', ...crowdNames()];
    const filler = ['the tide', 'turned', 'and', 'salt', 'wind', 'over the dunes', 'said nothing', 'lamp', 'rope'];
    for (let run = 0; run < 40; run++) {
      const words = Array.from({ length: 20 + Math.floor(random() * 200) }, () => (random() < 0.3 ? pool : filler)[Math.floor(random() * (random() < 0.3 ? pool.length : filler.length))] ?? 'sea');
      const budget = 100 + Math.floor(random() * 2500);
      const format = random() < 0.5 ? 'json' : 'markdown';
      const chapter = ['ch-01', 'ch-02', 'ch-03', 'ch-04', undefined][Math.floor(random() * 5)];
      const res = await brief({ text: words.join(' '), budget, format, chapter });
      expect(res.status, res.text).toBe(200);
      const rendering = format === 'json' ? JSON.stringify(res.body.content) : res.body.markdown;
      expect(res.body.tokens, `run ${run}`).toBe(countTokens(rendering));
      expect(res.body.tokens, `run ${run}: budget ${budget}`).toBeLessThanOrEqual(budget);
    }
  });
});
