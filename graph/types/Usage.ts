import type { UsageSummary } from '../../src/core/metering/metering.ts';
import { builder } from '../builder.ts';

export const Usage = builder.objectRef<UsageSummary>('Usage').implement({
  fields: (t) => ({
    apiKeyId: t.exposeString('apiKeyId'),
    period: t.exposeString('period', { description: 'day or month' }),
    used: t.exposeInt('used'),
    quota: t.exposeInt('quota'),
    remaining: t.exposeInt('remaining'),
    rateLimitPerMinute: t.exposeInt('rateLimitPerMinute'),
    resetsAt: t.exposeString('resetsAt', { description: 'start of the next period (UTC)' }),
    rateLimitRemaining: t.int({ description: 'requests left in the current minute', resolve: (u) => u.rateLimit.remaining }),
    rateLimitResetSeconds: t.int({ description: 'seconds until the current minute of the rate limit ends', resolve: (u) => u.rateLimit.resetSeconds }),
  }),
});
