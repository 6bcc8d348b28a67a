import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
});

const expectedType: Record<string, RegExp> = {
  js: /^text\/javascript; charset=utf-8$/,
  css: /^text\/css; charset=utf-8$/,
  ico: /^image\/x-icon$/,
  svg: /^image\/svg\+xml$/,
  json: /^application\/json/,
};

/** Every src and href in the page, and every path a fetched script names ('/…' literals): the page's whole reach. */
async function reachOf(page: string): Promise<string[]> {
  const res = await fetch(`${gw.url}${page}`, { headers: { Accept: 'text/html' } });
  expect(res.status).toBe(200);
  const html = await res.text();
  const urls = [...html.matchAll(/\s(?:src|href)=["']([^"']*)["']/g)].map((m) => m[1]);
  expect(urls.length).toBeGreaterThan(1);
  const reach = new Set<string>();
  for (const url of urls) {
    // Same origin only: a path from the root, never a scheme or a protocol-relative //host.
    expect(url, `${page} names ${url}`).toMatch(/^\/(?!\/)/);
    reach.add(url);
  }
  for (const script of [...reach].filter((url) => /boot\.js$/.test(url))) {
    const text = await (await fetch(`${gw.url}${script}`)).text();
    for (const m of text.matchAll(/'(\/[^'\s]+)'/g)) reach.add(m[1]);
  }
  return [...reach];
}

async function expectServed(url: string) {
  const res = await fetch(`${gw.url}${url}`);
  expect(res.status, url).toBe(200);
  const extension = url.split('.').pop()!;
  expect(res.headers.get('content-type'), url).toMatch(expectedType[extension]);
  expect((await res.arrayBuffer()).byteLength, url).toBeGreaterThan(0);
  return res;
}

describe('pages load only what the gateway serves', () => {
  it('when /graphql is opened in a browser, then GraphiQL, its stylesheet, icon and Monaco workers all come from the gateway', async () => {
    const reach = await reachOf('/graphql');
    expect(reach).toEqual(expect.arrayContaining(['/graphql/assets/graphiql.js', '/graphql/assets/graphiql.css', '/graphql/assets/json.worker.js']));
    for (const url of reach) await expectServed(url);
  });

  it('when /docs is opened, then Redoc and the OpenAPI document it renders come from the gateway', async () => {
    const reach = await reachOf('/docs');
    expect(reach).toEqual(expect.arrayContaining(['/docs/assets/redoc.standalone.js', '/api/v1/openapi.json']));
    for (const url of reach) await expectServed(url);
  });

  it('when an error page, the error index or the authentication page is opened, then its stylesheet and icon come from the gateway', async () => {
    for (const page of ['/errors/not-found', '/errors', '/docs/auth']) {
      const reach = await reachOf(page);
      expect(reach).toEqual(expect.arrayContaining(['/docs/assets/pages.css', '/docs/assets/favicon.svg']));
      for (const url of reach.filter((u) => !u.startsWith('/errors') && u !== '/docs')) await expectServed(url);
    }
  });

  it('when an asset is fetched again with its ETag, then it answers 304 without the body', async () => {
    const first = await expectServed('/docs/assets/redoc.standalone.js');
    const etag = first.headers.get('etag')!;
    expect(etag).toBeTruthy();
    // fetch() adds "Cache-Control: no-cache" to a conditional request (a forced reload) unless one is given, as a browser does not.
    const again = await fetch(`${gw.url}/docs/assets/redoc.standalone.js`, { headers: { 'If-None-Match': etag, 'Cache-Control': 'max-age=0' } });
    expect(again.status).toBe(304);
  });

  it('when an asset name is unknown, then it is the usual 404 problem', async () => {
    for (const url of ['/graphql/assets/nope.js', '/docs/assets/nope.js', '/docs/assets/..%2Fpackage.json']) {
      const res = await fetch(`${gw.url}${url}`);
      expect(res.status, url).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });
});

describe("GraphiQL's example query", () => {
  it('when run with a key as the page says (Authorization header), then it answers the projects and usage', async () => {
    const html = await (await fetch(`${gw.url}/graphql`, { headers: { Accept: 'text/html' } })).text();
    const options = JSON.parse(/<script type="application\/json" id="graphiql-options">(.*?)<\/script>/s.exec(html)![1]);
    expect(options.defaultQuery).toContain('{"Authorization": "Bearer sk_lore_…"}');
    expect(options.shouldPersistHeaders).toBe(false);

    const { key } = await gw.createKey('pro');
    const result = await gw.graphql(options.defaultQuery, {}, key);
    expect(result.errors).toBeUndefined();
    expect(result.data.projects).toEqual([]);
    expect(result.data.usage).toMatchObject({ quota: 10000 });
  });
});

describe('with LORE_GRAPHIQL=false', () => {
  it('when /graphql is opened in a browser, then no GraphiQL page or file is served', async () => {
    const off = await startTestGateway({ LORE_GRAPHIQL: 'false' });
    try {
      const page = await fetch(`${off.url}/graphql`, { headers: { Accept: 'text/html' } });
      expect(await page.text()).not.toContain('graphiql');
      expect((await fetch(`${off.url}/graphql/assets/graphiql.js`)).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
