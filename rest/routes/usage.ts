import type { RouteDef } from '../route.ts';
import { UsageSummary } from '../schemas.ts';

export const usage: RouteDef = {
  method: 'get',
  path: '/usage',
  operationId: 'readUsage',
  summary: 'Quota usage of the current key',
  description: 'The quota of the current period and the per-minute rate limit as they stand. Free, and not counted in the rate limit, so it answers even when the minute is spent (extension: rate_limit_remaining, rate_limit_reset_seconds).',
  rateLimited: false,
  scope: 'any',
  cost: 0,
  success: { status: 200, schema: UsageSummary, description: 'usage in the current period' },
  errors: [],
  operation: 'Usage',
  variables: () => ({}),
  respond: (data) => data.usage,
};
