// /docs: the API reference, Redoc's standalone bundle rendering the served OpenAPI document (/api/v1/openapi.json).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import express from 'express';
import { contentSecurityPolicy } from './securityHeaders.ts';
import { htmlPage, icon, pagesHead, sendAsset, type Asset } from './html.ts';

/** Redoc's styled-components write <style> elements; its search index runs in a worker it makes from a blob: URL. */
export const docsPolicy = contentSecurityPolicy({ 'style-src': ["'unsafe-inline'"], 'worker-src': ['blob:'], 'img-src': ['data:'] });

const docsPage = htmlPage({
  title: 'Lore API reference',
  head: `${icon}\n<link rel="stylesheet" href="/docs/assets/redoc-page.css">`,
  body: `<noscript>The reference needs JavaScript; the document itself is <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</noscript>
<div id="redoc"></div>
<script src="/docs/assets/redoc.standalone.js"></script>
<script src="/docs/assets/redoc-boot.js"></script>`,
});

/** Where the deprecation `Link` of a request with the legacy x-api-key header points (rest/router.ts). */
const authPage = htmlPage({
  title: 'Authentication: Lore API',
  head: pagesHead,
  body: `<main>
<nav><a href="/docs">API reference</a> · <a href="/errors">Errors</a></nav>
<h1>Authentication</h1>
<p>Send your key on every request as <code>Authorization: Bearer sk_lore_…</code>. Keys are <code>sk_lore_</code> and 40
random characters, made by an operator with <code>npx lore keys create --tier &lt;tier&gt;</code> and shown once; Lore keeps
only a hash. A key belongs to an account and the projects belong to the account, so rotating a key
(<code>lore keys rotate</code>) keeps them; the old secret stops at once.</p>
<h2 id="migration">Migrating from x-api-key</h2>
<p>The legacy <code>x-api-key: sk_lore_…</code> header still works, and its answers say it is deprecated
(<code>Deprecation: true</code>, <code>Sunset</code>, a <code>Link</code> to this page and <code>X-Deprecation-Notice</code>).
Send the same key as <code>Authorization: Bearer sk_lore_…</code> instead: nothing else changes.</p>
</main>`,
});

function fileAsset(path: string | URL, type: string, edit?: (text: string) => string): () => Asset {
  let asset: Asset | undefined;
  return () => {
    if (!asset) {
      const body = edit ? Buffer.from(edit(readFileSync(path, 'utf8'))) : readFileSync(path);
      asset = { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    }
    return asset;
  };
}

const script = 'text/javascript; charset=utf-8';
const offlineLogo = (text: string) => text.replace('https://cdn.redoc.ly/redoc/logo-mini.svg', "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E");
const pagesStylesheet = fileAsset(new URL('./assets/pages.css', import.meta.url), 'text/css; charset=utf-8');
const assets = new Map<string, () => Asset>([
  // 1 MB, read on first use.
  // Its footer's logo comes from Redocly's CDN, which the page's policy (and an offline machine) refuses: a blank image.
  ['redoc.standalone.js', fileAsset(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'), script, offlineLogo)],
  ['redoc-boot.js', fileAsset(new URL('./assets/redoc-boot.js', import.meta.url), script)],
  ['redoc-page.css', fileAsset(new URL('./assets/redoc-page.css', import.meta.url), 'text/css; charset=utf-8')],
  ['pages.css', pagesStylesheet],
  ['favicon.svg', fileAsset(new URL('./assets/favicon.svg', import.meta.url), 'image/svg+xml')],
]);

export function apiDocs(): express.Router {
  const router = express.Router();
  router.get('/docs', (_req, res) => {
    res.setHeader('Content-Security-Policy', docsPolicy);
    res.type('html').send(docsPage);
  });
  router.get('/docs/auth', (_req, res) => {
    res.type('html').send(authPage);
  });
  router.get('/docs/assets/:name', (req, res, next) => {
    const asset = assets.get(req.params.name);
    if (!asset) return next();
    sendAsset(req, res, asset());
  });
  return router;
}
