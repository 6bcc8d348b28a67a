// The canon dashboard in a real headless Chromium against a real gateway on PostgreSQL: the pages a writer uses, each
// scanned by axe-core, and how soon the project and entity pages of a 5,000-entity project become interactive.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { seed } from '../bench/seed.ts';
import { browserArgs } from '../support/browser.ts';
import { describe, it } from '../support/browserTests.ts';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { entityIdsByName, importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const providerKey = 'sk-provider-dashboard-check-123';

let gw: TestGateway;
let fake: FakeLlm;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let key: string;
let projectId: string;
let ids: Record<string, string>;
const pageErrors: string[] = [];

/** Saltmarsh with Keth alive until he drowns in ch-02 (timed state and facts). */
function bundle() {
  const b = saltmarshBundle();
  const keth = b.entities.find((e: { key: string }) => e.key === 'keth');
  keth.state = {};
  keth.stateChanges = [{ until: 'ch-02', state: { status: 'alive' } }, { from: 'ch-02', state: { status: 'dead' } }];
  keth.facts = [{ text: 'Keth sails with his sister.', until: 'ch-02' }, { text: 'Keth drowned at Gull Point.', from: 'ch-02' }];
  // Between two of Keth's neighbours: Mara's relationship, not his.
  b.relationships.push({ from: 'mara', to: 'gull-point', kind: 'fears' });
  return b;
}

async function graphql(query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await gw.request(`${gw.url}/graphql`, { method: 'POST', key, headers, json: { query, variables } });
  if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
  return res.body.data;
}

/** axe-core's serious and critical violations on the page as it stands (run through the DevTools protocol, so CSP does not stop it). */
async function seriousViolations(): Promise<string[]> {
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    return (await axe.run()).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  });
  return result.map((v) => `${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * The pages as the gateway's strictest policy would serve them, whatever headers it sends today: only the gateway's own
 * origin, no inline script or style element. A violation is a console error, which the last tests look for.
 */
async function underStrictCsp(target: BrowserContext) {
  await target.route(`${gw.url}/**`, async (route) => {
    if (route.request().resourceType() !== 'document') return route.continue();
    const response = await route.fetch();
    await route.fulfill({ response, headers: { ...response.headers(), 'content-security-policy': "default-src 'self'" } });
  });
}

/** Polls until the page shows what is expected: a check or a load can take seconds on a busy machine. */
const eventually = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 100 });

const heading = (name: string) => page.getByRole('heading', { level: 1, name });

beforeAll(async () => {
  fake = await startFakeLlm();
  gw = await startTestGateway({ LORE_OPENAI_BASE_URL: fake.url, LORE_ANTHROPIC_BASE_URL: fake.url });
  ({ key } = await gw.createKey('studio'));
  ({ projectId } = await importBundle(gw, key, bundle()));
  ids = await entityIdsByName(gw, key, projectId);
  // Two proposals to decide, and a stored conflict to resolve.
  for (const text of ['Mara fears deep water.', 'Mara was born on Gull Point.']) {
    await graphql('mutation ($p: ID!, $e: ID!, $t: String!) { propose(projectId: $p, input: { entityId: $e, facts: [{ text: $t }], content: "From the harbour ledger." }) { entity { id } } }', { p: projectId, e: ids['Mara Voss'], t: text });
  }
  const mara = await graphql('query ($p: ID!, $e: ID!) { entity(projectId: $p, entityId: $e) { facts { id text } } }', { p: projectId, e: ids['Mara Voss'] });
  const captains = mara.entity.facts.find((f: { text: string }) => f.text === 'Mara captains the Heron.').id;
  fake.fallback = { object: { conflicts: [{ severity: 'P2', kind: 'continuity_error', episode: 'ch-01', title: 'The Heron sails without her captain', rationale: 'The canon has Mara captain the Heron; the passage says "the Heron left port without Mara".', refs: [ids['Mara Voss'], captains, ids['the Heron']] }] } };
  await graphql('mutation ($p: ID!) { checkConflicts(projectId: $p, text: "At dawn the Heron left port without Mara.") { id } }', { p: projectId }, { 'X-LLM-Provider': 'openai', 'X-LLM-Key': providerKey, 'X-LLM-Model': 'test-model' });

  // Playwright gives each launch a fresh profile of its own (and removes it on close).
  browser = await chromium.launch({ executablePath: inject('browser'), args: browserArgs });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await underStrictCsp(context);
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => message.type() === 'error' && pageErrors.push(message.text()));
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await fake?.close();
});

describe('the dashboard', () => {
  it('when a wrong key is given, then it says so in one line; with a right key, then the projects are listed with their counts', async () => {
    await page.goto(gw.url);
    await page.getByLabel('API key').fill(`sk_lore_${'B'.repeat(40)}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await eventually(() => page.getByRole('alert').textContent()).toMatch(/not valid/);
    expect(await seriousViolations()).toEqual([]);

    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Projects').waitFor();
    const row = page.getByRole('row', { name: /The Saltmarsh Chronicles/ });
    await eventually(() => row.getByRole('cell').allTextContents()).toEqual([expect.stringContaining('The Saltmarsh Chronicles'), '6', '3', '1', expect.any(String)]);
    expect(await page.evaluate(() => [sessionStorage.length, localStorage.length])).toEqual([1, 0]);
    expect(await seriousViolations()).toEqual([]);
  });

  it('when the project is opened, then its codex lists entities by type and search finds one', async () => {
    await page.getByRole('link', { name: 'The Saltmarsh Chronicles', exact: true }).click();
    await heading('Codex').waitFor();
    await page.getByRole('link', { name: 'Mara Voss' }).waitFor();
    for (const name of ['Projects', 'Codex', 'Review', 'Conflicts', 'Chapters', 'Graph', 'Usage']) await page.getByRole('navigation').getByRole('link', { name, exact: true }).waitFor();
    expect(await seriousViolations()).toEqual([]);
    await page.getByRole('link', { name: 'Project: The Saltmarsh Chronicles' }).waitFor();
    await page.screenshot({ path: new URL('../../docs/dashboard.png', import.meta.url).pathname });

    await page.getByLabel('Type', { exact: true }).selectOption('location');
    await eventually(() => page.locator('.entity-list li').allTextContents()).toEqual([expect.stringContaining('Gull Point')]);
    await page.getByLabel('Type', { exact: true }).selectOption('');
    await page.getByLabel('Search').fill('Heron');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await eventually(() => page.locator('.entity-list li').first().textContent()).toMatch(/the Heron/);
  });

  it('when an entity is read as of two chapters, then its state and facts differ; a stale edit is refused and a fresh one saved', async () => {
    await page.goto(`${gw.url}/projects/${projectId}/entities/${ids['Keth Voss']}`);
    await heading('Keth Voss').waitFor();
    await page.getByLabel('As of chapter').selectOption('ch-01');
    await eventually(() => page.locator('dl.state').textContent()).toBe('statusalive');
    await eventually(() => page.getByRole('region', { name: /Approved facts/ }).textContent()).toMatch(/Keth sails with his sister/);
    await page.getByLabel('As of chapter').selectOption('ch-02');
    await eventually(() => page.locator('dl.state').textContent()).toBe('statusdead');
    await eventually(() => page.getByRole('region', { name: /Approved facts/ }).textContent()).toMatch(/Keth drowned at Gull Point/);
    // Provenance, mentions in reading order and relationships.
    expect(await page.getByRole('region', { name: /Approved facts/ }).textContent()).toMatch(/approved by key_/);
    expect(await page.getByRole('region', { name: /Mentions/ }).getByRole('listitem').allTextContents()).toEqual([expect.stringMatching(/^Low Tide, line 3/), expect.stringMatching(/^The Drowning, line 2/)]);
    expect(await page.getByRole('region', { name: 'Relationships' }).getByRole('listitem').allTextContents()).toEqual(['Keth Voss died at Gull Point', 'Mara Voss sibling of Keth Voss']);
    await page.getByRole('region', { name: 'Relationships' }).getByRole('link', { name: 'Mara Voss' }).waitFor();
    expect(await seriousViolations()).toEqual([]);

    // Someone else renames him meanwhile: the edit made on the old version is refused, and the new version shown.
    await graphql('mutation ($p: ID!, $e: ID!) { updateEntity(projectId: $p, entityId: $e, input: { aliases: ["Keth", "the Younger"] }) { version } }', { p: projectId, e: ids['Keth Voss'] });
    await page.getByLabel('Name', { exact: true }).fill('Keth Voss the Drowned');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await eventually(() => page.getByRole('alert').textContent()).toMatch(/Someone changed this entity.*\(2\)/);
    await eventually(() => page.getByText('Also called: Keth, the Younger').count()).toBe(1);
    await page.getByLabel('Name', { exact: true }).fill('Keth Voss the Drowned');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await heading('Keth Voss the Drowned').waitFor();
  });

  it('when candidates are approved and rejected, then each leaves the queue at once and the canon follows', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Review' }).click();
    await heading('Review').waitFor();
    const items = page.locator('ol.queue > li');
    await eventually(() => items.count()).toBe(3);
    expect(await seriousViolations()).toEqual([]);
    const first = items.filter({ hasText: 'Mara fears deep water.' });
    expect(await first.textContent()).toMatch(/From the harbour ledger\..*Proposed by key_/);
    await first.getByRole('button', { name: 'Approve' }).click();
    await eventually(() => items.count()).toBe(2);
    const second = items.filter({ hasText: 'Mara was born on Gull Point.' });
    await second.getByLabel('Reason (optional)').fill('Not in the manuscript.');
    await second.getByRole('button', { name: 'Reject' }).click();
    await eventually(() => items.count()).toBe(1);
    const mara = await graphql('query ($p: ID!, $e: ID!) { entity(projectId: $p, entityId: $e) { approvedFacts { text } suggestedFacts { text } } }', { p: projectId, e: ids['Mara Voss'] });
    expect(mara.entity.approvedFacts.map((f: { text: string }) => f.text)).toContain('Mara fears deep water.');
    expect(mara.entity.suggestedFacts).toEqual([]);
    // The last one through the selection.
    await items.first().getByRole('checkbox').check();
    await page.getByRole('button', { name: /Approve selected/ }).click();
    await eventually(() => page.getByText('Nothing waits for review.').count()).toBe(1);
  });

  it('when a conflict is resolved and a passage checked with the writer’s own provider key, then the hit is shown with its words marked and the key kept nowhere', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Conflicts' }).click();
    await heading('Conflicts').waitFor();
    const conflict = page.locator('ol.conflicts > li');
    await eventually(() => conflict.count()).toBe(1);
    expect(await conflict.textContent()).toMatch(/P2.*continuity error.*the Heron left port without Mara/);
    // The canon it cites, by name, each a link to its entity (a fact to the entity it is about).
    expect(await conflict.locator('.refs').textContent()).toBe('Cites: Mara Voss, fact “Mara captains the Heron.”, the Heron');
    expect(await conflict.locator('.refs a').evaluateAll((links) => links.map((a) => a.getAttribute('href')))).toEqual([ids['Mara Voss'], ids['Mara Voss'], ids['the Heron']].map((id) => `/projects/${projectId}/entities/${id}`));
    expect(await seriousViolations()).toEqual([]);
    await conflict.getByRole('button', { name: 'Resolve' }).click();
    await eventually(() => conflict.count()).toBe(0);

    fake.requests.length = 0;
    fake.fallback = { object: { conflicts: [{ severity: 'P1', kind: 'dead_character_active', episode: 'ch-02', title: 'Keth speaks after drowning', rationale: 'Keth drowned in ch-02, yet the passage has "Keth laughed".', refs: [ids['Keth Voss']] }] } };
    await page.getByLabel('Passage', { exact: true }).fill('The storm broke. Keth laughed at the waves.');
    await page.getByLabel('Chapter', { exact: true }).selectOption('ch-02');
    await page.getByLabel('LLM provider').selectOption('openai');
    await page.getByLabel('Model (optional)').fill('test-model');
    await page.getByLabel(/Provider key/).fill(providerKey);
    await page.getByRole('button', { name: 'Check', exact: true }).click();
    const result = page.locator('.check-result');
    await eventually(() => result.locator('mark').allTextContents()).toEqual(['Keth laughed at the waves.']);
    expect(await result.textContent()).toMatch(/P1.*dead character active in ch-02/);
    expect(fake.requests.some((r) => r.headers.authorization === `Bearer ${providerKey}`)).toBe(true);
    expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }))).not.toContain(providerKey);
    expect(await seriousViolations()).toEqual([]);
  });

  it('when the chapters are opened, then the mention map counts each entity per chapter and a chapter marks the names it holds', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Chapters' }).click();
    await heading('Chapters').waitFor();
    const maraRow = page.getByRole('row', { name: /Mara Voss/ });
    await eventually(() => maraRow.getByRole('cell').allTextContents()).toEqual(['2', '1', '3']);
    await page.locator('ul.beats li', { hasText: 'Keth drowns at Gull Point in a storm.' }).waitFor();
    expect(await seriousViolations()).toEqual([]);
    await page.getByRole('link', { name: '2. The Drowning' }).click();
    await heading('2. The Drowning').waitFor();
    expect(await page.locator('.chapter-text a').allTextContents()).toEqual(['Keth', 'Gull Point', 'Mara']);
    expect(await seriousViolations()).toEqual([]);
    await page.locator('.chapter-text').getByRole('link', { name: 'Gull Point' }).click();
    await heading('Gull Point').waitFor();
  });

  it('when the graph is opened around an entity, then clicking a node opens that entity', async () => {
    await page.goto(`${gw.url}/projects/${projectId}/graph?root=${ids['Mara Voss']}`);
    await heading('Graph').waitFor();
    await eventually(() => page.getByRole('status').textContent()).toMatch(/4 entities, 4 relationships/);
    expect(await seriousViolations()).toEqual([]);
    // The Heron is the only object: find its colour on the canvas and click there.
    await page.waitForTimeout(300);
    const point = await page.evaluate(() => {
      const canvases = [...document.querySelectorAll<HTMLCanvasElement>('.graph canvas')];
      const ratio = devicePixelRatio;
      for (const canvas of canvases) {
        const ctx = canvas.getContext('2d');
        if (!ctx) continue;
        const { data, width, height } = ctx.getImageData(0, 0, canvas.width, canvas.height);
        for (let y = 0; y < height; y += 2) {
          for (let x = 0; x < width; x += 2) {
            const i = (y * width + x) * 4;
            if (data[i] === 0x8a && data[i + 1] === 0x5a && data[i + 2] === 0x00) {
              const box = canvas.getBoundingClientRect();
              return { x: box.left + x / ratio, y: box.top + y / ratio };
            }
          }
        }
      }
      return null;
    });
    expect(point).not.toBeNull();
    await page.mouse.click(point!.x + 3, point!.y + 3);
    await heading('the Heron').waitFor();
  });

  it('when usage is opened, then the quota, rate limit and audit log show', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Usage' }).click();
    await heading('Usage').waitFor();
    await eventually(() => page.locator('dl.state').textContent()).toMatch(/of 100000.*600 a minute/);
    await eventually(() => page.getByRole('row').filter({ hasText: 'decideCandidate' }).count()).toBeGreaterThan(0);
    expect(await seriousViolations()).toEqual([]);
    // Nothing failed in the page and nothing broke the content security policy (a wrong key's 401 is the one expected error).
    expect(pageErrors.filter((e) => !/Failed to load resource: the server responded with a status of 401/.test(e))).toEqual([]);
  });

  it('when the project has 5,000 entities, then its codex and an entity page become interactive soon (the figures printed, against a 1 s target)', async () => {
    const reader = await gw.createKey('studio');
    const seeded = await seed(gw.gateway.runtime.services.prisma, reader.account);
    const fresh = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const tab = await fresh.newPage();
    await tab.goto(gw.url);
    await tab.getByLabel('API key').fill(reader.key);
    await tab.getByRole('button', { name: 'Sign in' }).click();
    await tab.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();

    // The median of three loads each: the machine is shared, and one load can wait on another process.
    const median = (values: number[]) => values.sort((x, y) => x - y)[1];
    const codexTimes: number[] = [];
    const entityTimes: number[] = [];
    for (let round = 0; round < 3; round++) {
      let started = Date.now();
      await tab.goto(`${gw.url}/projects/${seeded.projectId}`);
      await tab.locator('.entity-list li a').first().waitFor();
      codexTimes.push(Date.now() - started);
      expect(await tab.getByRole('status').textContent()).toMatch(/^5000 entities/);
      const first = await tab.locator('.entity-list li a').first().getAttribute('href');
      started = Date.now();
      await tab.goto(`${gw.url}${first}`);
      await tab.getByRole('region', { name: /Mentions in reading order/ }).waitFor();
      entityTimes.push(Date.now() - started);
    }
    const [codexMs, entityMs] = [median(codexTimes), median(entityTimes)];
    process.stdout.write(`dashboard on 5,000 entities (median of 3 loads): codex interactive in ${codexMs} ms, entity page in ${entityMs} ms\n`);
    await fresh.close();
    // The target is under 1 s (printed above: about 300 ms and 500 ms here). The bound asserted leaves room for
    // a machine shared with other work, so that this fails on a regression (a page reading every entity), not on a
    // busy neighbour.
    expect(codexMs).toBeLessThan(2500);
    expect(entityMs).toBeLessThan(2500);
  }, 180_000);
});
