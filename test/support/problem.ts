import { expect } from 'vitest';
import { Problem } from '../../rest/schemas.ts';
import type { ApiResponse } from './gateway.ts';

/**
 * Asserts an RFC 7807 answer: status, content type, the contract's Problem fields with this code, the headers every
 * response carries, and (when given) the request path and the site its type URI points at.
 */
export function expectProblem(
  res: Pick<ApiResponse, 'status' | 'headers' | 'body'> & { text?: string },
  status: number,
  code: string,
  expected: { instance?: string; site?: string } = {},
) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const problem = Problem.parse(res.body);
  expect(problem).toMatchObject({ status, code });
  if (expected.instance) expect(problem.instance).toBe(expected.instance);
  expect(problem.type).toMatch(new RegExp(`^${expected.site ?? 'https?://[^/]+'}/errors/[a-z-]+$`));
  expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  expect(res.headers.get('lore-api-version')).toBe('1.0');
  return problem;
}
