// GraphiQL and the API reference in a real headless Chromium (Debian's, through executablePath: browser downloads
// fail on these machines), with every request that leaves the gateway's origin blocked and recorded.
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { browserArgs } from '../support/browser.ts';
import { describe, it } from '../support/browserTests.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let browser: Browser;
beforeAll(async () => {
  const executablePath = inject('browser');
  if (!executablePath) return;
  gw = await startTestGateway();
  browser = await chromium.launch({ executablePath, args: browserArgs });
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

type Visit = { page: Page; context: BrowserContext; outside: string[]; consoleErrors: string[] };

async function open(path: string): Promise<Visit> {
  const context = await browser.newContext();
  const outside: string[] = [];
  const consoleErrors: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${gw.url}/`)) return route.continue();
    outside.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  await page.goto(`${gw.url}${path}`);
  return { page, context, outside, consoleErrors };
}

describe('in a browser, offline', () => {
  it('when /graphql is opened and the example query is run with a key in the Headers tab, then GraphiQL answers it', async () => {
    const { key } = await gw.createKey('pro');
    const { page, context, outside, consoleErrors } = await open('/graphql');
    try {
      const queryEditor = page.locator('.graphiql-query-editor .monaco-editor');
      await expect.poll(() => queryEditor.innerText(), { timeout: 20_000 }).toContain('ProjectsAndUsage');
      await page.locator('.monaco-editor[data-uri$="headers.json"]').click();
      // insertText: typed keys would meet Monaco's auto-closing quotes and braces.
      await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${key}` }));
      await page.locator('.graphiql-execute-button').click();
      await expect.poll(() => page.locator('.graphiql-response').innerText(), { timeout: 20_000 }).toMatch(/"quota":\s10000/);
      expect(outside).toEqual([]);
      expect(consoleErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('when /docs is opened, then Redoc renders the served OpenAPI document, operations by name, and searches it', async () => {
    const { page, context, outside, consoleErrors } = await open('/docs');
    try {
      await page.getByRole('heading', { name: 'List the projects of the current key' }).waitFor({ timeout: 20_000 });
      await page.getByRole('heading', { name: /^Lore API/ }).waitFor();
      // Redoc searches in a worker made from a blob: URL, which the page's policy allows.
      await page.getByPlaceholder('Search...').fill('retcon');
      await page.locator('[role="search"]').getByText('Retcon a fact').first().waitFor({ timeout: 10_000 });
      expect(outside).toEqual([]);
      // Nothing refused: Redoc's footer logo, from Redocly's CDN in the bundle, is served as a blank image.
      expect(consoleErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("when an error page is opened, then it shows under the strict policy with nothing refused", async () => {
    const { page, context, outside, consoleErrors } = await open('/errors/not-found');
    try {
      await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
      await page.getByRole('link', { name: 'All errors' }).click();
      await page.getByRole('link', { name: 'Rate limit exceeded' }).waitFor();
      expect(outside).toEqual([]);
      expect(consoleErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
