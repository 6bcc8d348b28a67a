// GraphiQL on /graphql, whole from this gateway: yoga's stock page loads GraphiQL from a CDN and shows only
// "Loading…" offline. The assets are those @graphql-yoga/render-graphiql bundles (as strings), served as files so
// that the page needs no inline script.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import express from 'express';
import type { GraphiQLOptions } from 'graphql-yoga';
import { sendProblem } from '../../rest/problem.ts';
import { contentSecurityPolicy } from './securityHeaders.ts';
import { htmlPage, jsonForScript, sendAsset, type Asset } from './html.ts';

const exampleQuery = `# Lore's GraphQL API (REST and MCP run on it too).
#
# Put your key in the Headers tab below:
#   {"Authorization": "Bearer sk_lore_…"}
# Make one with \`npx lore keys create\`,
# then press the run button.

query ProjectsAndUsage {
  projects {
    id
    name
    entityCount
    conflictCount
    lastUpdated
  }
  usage {
    period
    used
    quota
    remaining
  }
}
`;

export const graphiqlOptions: GraphiQLOptions = {
  title: 'Lore GraphiQL',
  defaultQuery: exampleQuery,
  defaultEditorToolsVisibility: 'headers',
  // Headers (the key) stay in the tab: GraphiQL would otherwise keep them in localStorage.
  shouldPersistHeaders: false,
};

/** Monaco and React set styles inline, the stylesheet embeds its fonts and icons as data: URLs. */
export const graphiqlPolicy = contentSecurityPolicy({ 'style-src': ["'unsafe-inline'"], 'img-src': ['data:'], 'font-src': ['data:'] });

export function renderGraphiQLPage(options: GraphiQLOptions): string {
  return htmlPage({
    title: options.title ?? 'GraphiQL',
    head: '<link rel="icon" href="/graphql/assets/favicon.ico">\n<link rel="stylesheet" href="/graphql/assets/graphiql.css">',
    bodyAttributes: 'id="body" class="no-focus-outline"',
    body: `<noscript>GraphiQL needs JavaScript; the API itself answers POST /graphql.</noscript>
<div id="root"></div>
<script type="application/json" id="graphiql-options">${jsonForScript(options)}</script>
<script src="/graphql/assets/boot.js"></script>
<script src="/graphql/assets/graphiql.js"></script>`,
  });
}

const bootScript = readFileSync(new URL('./assets/graphiql-boot.js', import.meta.url));

/** The bundled GraphiQL is 18 MB of strings: loaded on the first request for it, not at every start. */
let bundled: Promise<Map<string, Asset>> | undefined;
function bundledAssets(): Promise<Map<string, Asset>> {
  bundled ??= import('@graphql-yoga/render-graphiql/graphiql').then((b) => {
    const script = (text: string): Asset => asset(Buffer.from(text), 'text/javascript; charset=utf-8');
    return new Map([
      ['boot.js', asset(bootScript, 'text/javascript; charset=utf-8')],
      ['graphiql.js', script(b.js)],
      ['graphiql.css', asset(Buffer.from(b.css), 'text/css; charset=utf-8')],
      ['editor.worker.js', script(b.editorWorkerService)],
      ['json.worker.js', script(b.jsonWorker)],
      ['graphql.worker.js', script(b.graphqlWorker)],
      // The stock page inlines the icon as a data: URL, which the policy refuses.
      ['favicon.ico', asset(Buffer.from(b.favicon.slice(b.favicon.indexOf(',') + 1), 'base64'), 'image/x-icon')],
    ]);
  });
  return bundled;
}

function asset(body: Buffer, type: string): Asset {
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/** GET /graphql/assets/<name>: GraphiQL's files; mounted before yoga, which would take the path for itself. */
export function graphiqlAssets(configuredSiteUrl: string | undefined): express.Router {
  const router = express.Router();
  router.get('/graphql/assets/:name', async (req, res) => {
    const found = (await bundledAssets()).get(req.params.name);
    if (!found) return sendProblem(req, res, { code: 'not_found', detail: `No route ${req.method} ${req.path}.` }, configuredSiteUrl);
    sendAsset(req, res, found);
  });
  return router;
}

/** The GraphiQL page's own policy, set before yoga renders it (yoga's own test: a GET that accepts HTML). */
export function graphiqlPagePolicy(): express.RequestHandler {
  return (req, res, next) => {
    if (req.get('accept')?.includes('text/html')) res.setHeader('Content-Security-Policy', graphiqlPolicy);
    next();
  };
}
