import type { RouteDef } from '../route.ts';
import { UsageSummary } from '../schemas.ts';

export const usage: RouteDef = {
  method: 'get',
  path: '/usage',
  operationId: 'readUsage',
  summary: 'Quota usage of the current key',
  scope: 'any',
  cost: 0,
  success: { status: 200, schema: UsageSummary, description: 'usage in the current period' },
  errors: [],
  operation: 'Usage',
  variables: () => ({}),
  respond: (data) => data.usage,
};
