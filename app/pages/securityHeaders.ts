// Security headers on every answer of the gateway, API and pages alike. The strings are built once: on the API's hot
// path a request pays three setHeader calls and nothing else.
import type { Response } from 'express';

type Directives = Partial<Record<'style-src' | 'img-src' | 'font-src' | 'worker-src', string[]>>;

/**
 * A Content-Security-Policy that lets a page load only from the gateway's own origin, plus the few sources a page
 * names in `extra` (a vendored renderer's inline styles, say). No page may be framed, and no plugin runs.
 */
export function contentSecurityPolicy(extra: Directives = {}): string {
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    ...Object.fromEntries(Object.entries(extra).map(([name, sources]) => [name, ["'self'", ...sources]])),
    'base-uri': ["'none'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
    'object-src': ["'none'"],
  };
  return Object.entries(directives).map(([name, sources]) => `${name} ${sources.join(' ')}`).join('; ');
}

const defaultPolicy = contentSecurityPolicy();

export function setSecurityHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', defaultPolicy);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
}
