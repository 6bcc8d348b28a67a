// /errors and /errors/<slug>: the problem `type` URIs every error answer carries (rest/problem.ts) open a page saying
// what the error means and what to do; a client that asks for JSON gets the same as JSON.
import express from 'express';
import { siteUrl } from '../../rest/problem.ts';
import { problemCatalog, type ErrorCode } from '../../src/core/errors.ts';
import { errorGuide } from './errorGuide.ts';
import { escapeHtml, htmlPage, pagesHead } from './html.ts';

const codes = Object.keys(problemCatalog) as ErrorCode[];
const bySlug = new Map<string, ErrorCode>(codes.map((code) => [problemCatalog[code].slug, code]));

/** Escaped text with `code spans` shown as code. */
function prose(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

const nav = '<nav><a href="/errors">All errors</a> · <a href="/docs">API reference</a></nav>';

function errorPage(code: ErrorCode): string {
  const { status, title } = problemCatalog[code];
  const { meaning, action } = errorGuide[code];
  return htmlPage({
    title: `${title}: Lore error`,
    head: pagesHead,
    body: `<main>
${nav}
<h1>${escapeHtml(title)}</h1>
<p class="status">HTTP ${status} · code <code>${escapeHtml(code)}</code></p>
<h2>What it means</h2>
<p>${prose(meaning)}</p>
<h2>What to do</h2>
<p>${prose(action)}</p>
</main>`,
  });
}

const indexPage = htmlPage({
  title: 'Lore errors',
  head: pagesHead,
  body: `<main>
<nav><a href="/docs">API reference</a></nav>
<h1>Errors</h1>
<p>Every error Lore answers is <code>application/problem+json</code> whose <code>type</code> is one of these pages.</p>
<table>
<thead><tr><th scope="col">Error</th><th scope="col">Status</th><th scope="col">Code</th></tr></thead>
<tbody>
${codes
  .map((code) => {
    const { slug, status, title } = problemCatalog[code];
    return `<tr><td><a href="/errors/${slug}">${escapeHtml(title)}</a></td><td>${status}</td><td><code>${escapeHtml(code)}</code></td></tr>`;
  })
  .join('\n')}
</tbody>
</table>
</main>`,
});

const pages = new Map<ErrorCode, string>(codes.map((code) => [code, errorPage(code)]));

function describe(code: ErrorCode, site: string) {
  const { slug, status, title } = problemCatalog[code];
  return { type: `${site}/errors/${slug}`, code, title, status, ...errorGuide[code] };
}

/** HTML unless the client prefers JSON (browsers and `curl` with no Accept get HTML). */
function wantsJson(req: express.Request): boolean {
  const type = req.accepts(['text/html', 'application/json', 'application/problem+json']);
  return type === 'application/json' || type === 'application/problem+json';
}

export function errorPages(configuredSiteUrl: string | undefined): express.Router {
  const router = express.Router();
  router.get('/errors', (req, res) => {
    res.vary('Accept');
    if (wantsJson(req)) return res.json({ errors: codes.map((code) => describe(code, siteUrl(req, configuredSiteUrl))) });
    res.type('html').send(indexPage);
  });
  router.get('/errors/:slug', (req, res, next) => {
    const code = bySlug.get(req.params.slug);
    if (!code) return next();
    res.vary('Accept');
    if (wantsJson(req)) return res.json(describe(code, siteUrl(req, configuredSiteUrl)));
    res.type('html').send(pages.get(code));
  });
  return router;
}
