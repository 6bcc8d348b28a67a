import { builder } from '../builder.ts';
import { Usage } from '../types/Usage.ts';

builder.queryField('usage', (t) =>
  t.field({
    type: Usage,
    description: "The current key's quota use in this period and its rate limit. Free, and never rate-limited itself, so a client can always see where it stands.",
    authScopes: { authenticated: true },
    cost: 0,
    rateLimited: false,
    resolve: async (_root, _args, ctx) => {
      const usage = await ctx.services.metering.usage(await ctx.principal());
      ctx.reportRateLimit(usage.rateLimit);
      return usage;
    },
  }),
);
