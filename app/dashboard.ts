// Serves the canon dashboard (dashboard/, built into dashboard/dist by `npm run build:dashboard`, which `npm ci` runs
// through the prepare script) at /, on the same origin as /graphql. Client routes answer index.html; the API's own
// paths are never shadowed.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express from 'express';

const distDir = fileURLToPath(new URL('../dashboard/dist/', import.meta.url));
// The API's paths, and assets/ (a missing asset is a 404, not the app).
const reserved = /^\/(api|graphql|health|docs|errors|assets)(\/|$)/;

const notBuilt =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Lore</title></head>' +
  '<body><p>The dashboard is not built: run <code>npm run build:dashboard</code>, then reload.</p></body></html>';

export function dashboardRouter(dir = distDir): express.Router {
  const router = express.Router();
  const index = `${dir}index.html`;
  // Hashed file names under assets/ never change, so they may be cached for good; index.html names the current ones.
  router.use('/assets', express.static(`${dir}assets`, { immutable: true, maxAge: '1y', index: false }));
  router.use(express.static(dir, { index: false }));
  router.get(/.*/, (req, res, next) => {
    // Only a browser's page load (it asks for text/html by name): an API client's */* still gets the 404 problem.
    if (reserved.test(req.path) || !(req.get('Accept') ?? '').includes('text/html')) return next();
    res.setHeader('Cache-Control', 'no-cache');
    if (!existsSync(index)) return void res.status(503).type('html').send(notBuilt);
    res.sendFile(index);
  });
  return router;
}
