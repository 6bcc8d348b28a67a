// RFC 7807 problem+json bodies for every error the API returns.
import type { Request, Response } from 'express';
import { problemCatalog, type ErrorCode } from '../src/core/errors.ts';

export type ProblemInput = { code: ErrorCode; detail?: string; extensions?: Record<string, unknown> };

export function siteUrl(req: Request, configured: string | undefined): string {
  return configured ?? `${req.protocol}://${req.get('host')}`;
}

export function sendProblem(req: Request, res: Response, problem: ProblemInput, configuredSiteUrl?: string): void {
  const entry = problemCatalog[problem.code];
  const { retryAfter, errors } = (problem.extensions ?? {}) as { retryAfter?: number; errors?: unknown };
  if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
  res
    .status(entry.status)
    .type('application/problem+json')
    .send(
      JSON.stringify({
        type: `${siteUrl(req, configuredSiteUrl)}/errors/${entry.slug}`,
        title: entry.title,
        status: entry.status,
        code: problem.code,
        detail: problem.detail,
        instance: req.originalUrl.split('?')[0],
        request_id: res.getHeader('X-Request-Id'),
        errors,
        retry_after: retryAfter,
      }),
    );
}
