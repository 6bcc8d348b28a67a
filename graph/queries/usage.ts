import { builder } from '../builder.ts';
import { Usage } from '../types/Usage.ts';

builder.queryField('usage', (t) =>
  t.field({
    type: Usage,
    description: "The current key's quota use in this period and its rate limit.",
    authScopes: { authenticated: true },
    cost: 0,
    resolve: async (_root, _args, ctx) => ctx.services.metering.usage(await ctx.principal()),
  }),
);
