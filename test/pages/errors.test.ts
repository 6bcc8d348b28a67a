import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemCatalog } from '../../src/core/errors.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectProblem } from '../support/problem.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
});

const entries = Object.entries(problemCatalog);

describe('/errors/<slug>', () => {
  it("when an error answer's type URI is opened in a browser, then it is a page saying what the error means and what to do", async () => {
    const refused = await fetch(`${gw.api}/projects`);
    const problem = await refused.json();
    const page = await fetch(problem.type, { headers: { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html; charset=utf-8/);
    const html = await page.text();
    expect(html).toContain('<h1>API key missing</h1>');
    expect(html).toContain('What it means');
    expect(html).toContain('What to do');
    expect(html).toContain('<code>Authorization: Bearer sk_lore_…</code>');
  });

  it('when every slug of the catalog is opened, then each answers its own page, and the same as JSON when asked for JSON', async () => {
    for (const [code, { slug, status, title }] of entries) {
      const page = await fetch(`${gw.url}/errors/${slug}`);
      expect(page.status, slug).toBe(200);
      const html = await page.text();
      expect(html).toContain(`<title>${title.replace(/'/g, '&#39;')}: Lore error</title>`);
      expect(html).toContain(`HTTP ${status} · code <code>${code}</code>`);

      for (const accept of ['application/json', 'application/problem+json']) {
        const json = await fetch(`${gw.url}/errors/${slug}`, { headers: { Accept: accept } });
        expect(json.status).toBe(200);
        expect(json.headers.get('content-type')).toMatch(/^application\/json/);
        expect(json.headers.get('vary')).toMatch(/Accept/);
        const body = await json.json();
        expect(body).toMatchObject({ type: `${gw.url}/errors/${slug}`, code, title, status });
        expect(body.meaning.length).toBeGreaterThan(20);
        expect(body.action.length).toBeGreaterThan(20);
      }
    }
  });

  it('when a slug is unknown (or only looks like an object member), then it is the usual 404 problem', async () => {
    for (const slug of ['no-such-error', 'constructor', '__proto__', 'not_found']) {
      const res = await gw.request(`${gw.url}/errors/${slug}`);
      expectProblem(res, 404, 'not_found', { instance: `/errors/${slug}` });
    }
  });

  it('when /errors is opened, then it links every error page, and lists them all as JSON when asked for JSON', async () => {
    const page = await fetch(`${gw.url}/errors`);
    expect(page.status).toBe(200);
    const links = [...(await page.text()).matchAll(/href="\/errors\/([a-z-]+)"/g)].map((m) => m[1]);
    expect(links.sort()).toEqual(entries.map(([, e]) => e.slug).sort());

    const json = await fetch(`${gw.url}/errors`, { headers: { Accept: 'application/json' } });
    const body = await json.json();
    expect(body.errors.map((e: { code: string }) => e.code).sort()).toEqual(entries.map(([code]) => code).sort());
  });

  it('when LORE_SITE_URL is set, then the JSON names the type URIs the problems carry', async () => {
    const other = await startTestGateway({ LORE_SITE_URL: 'https://lore.example.com' });
    try {
      const json = await fetch(`${other.url}/errors/rate-limited`, { headers: { Accept: 'application/json' } });
      expect((await json.json()).type).toBe('https://lore.example.com/errors/rate-limited');
    } finally {
      await other.close();
    }
  });
});

describe('/docs/auth', () => {
  it("when a request with the legacy x-api-key header follows its deprecation Link, then the page explains the migration", async () => {
    const { key } = await gw.createKey('indie');
    const res = await gw.request('/usage', { headers: { 'x-api-key': key } });
    const link = /^<([^>]+)>; rel="deprecation"$/.exec(res.headers.get('link')!)![1];
    const page = await fetch(link.split('#')[0]);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`id="${link.split('#')[1]}"`);
    expect(html).toContain('<code>Authorization: Bearer sk_lore_…</code>');
  });
});
