// What the gateway's own pages share: a page shell, escaping, and vendored files sent with validators.
import type { Request, Response } from 'express';

/** Lore's icon: without one a browser asks for /favicon.ico, a 404. */
export const icon = '<link rel="icon" href="/docs/assets/favicon.svg" type="image/svg+xml">';
/** The head of the gateway's own plain pages (/errors, /docs/auth). */
export const pagesHead = `${icon}\n<link rel="stylesheet" href="/docs/assets/pages.css">`;

export type Asset = { body: Buffer; type: string; etag: string };

const htmlEscapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => htmlEscapes[c]);
}

/** JSON to place inside a <script type="application/json"> element: no "</script>" or "<!--" can end it early. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

export function htmlPage(page: { title: string; head?: string; body: string; bodyAttributes?: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
${page.head ?? ''}
</head>
<body${page.bodyAttributes ? ` ${page.bodyAttributes}` : ''}>
${page.body}
</body>
</html>
`;
}

/** A vendored file: revalidated on each use (no-cache), so an upgrade shows at once, and answered 304 when unchanged. */
export function sendAsset(req: Request, res: Response, asset: Asset): void {
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('ETag', asset.etag);
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  res.type(asset.type).send(asset.body);
}
