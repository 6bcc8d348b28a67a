import { z } from 'zod';
import { cursor, defaultPageLimit, pageLimit, resourceId, searchQuery } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { EntityPage } from '../types/Page.ts';

const searchArgs = z.object({ projectId: resourceId, q: searchQuery, limit: pageLimit.default(defaultPageLimit), startingAfter: cursor.optional() });

builder.queryField('search', (t) =>
  t.field({
    type: EntityPage,
    description:
      'Ranked search over names, aliases (also approximate) and approved facts; with an embedding provider, also by meaning (hybrid ranking, see EntityPage.ranking).',
    authScopes: { scope: 'search' },
    cost: 2,
    readsCanon: true,
    admitsWithKey: true,
    args: {
      projectId: t.arg.id({ required: true }),
      q: t.arg.string({ required: true }),
      limit: t.arg.int({ description: `1..100, default ${defaultPageLimit}` }),
      startingAfter: t.arg.string({ description: 'the last id of the previous page' }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(searchArgs, rawArgs);
      const principal = await ctx.principal();
      const version = ctx.canonVersion(args.projectId);
      const found = await ctx.services.search.search(principal.accountId, args.projectId, args.q, args.limit, args.startingAfter, version);
      if (ctx.answeredAt(found.version)) return { ...found.page, data: [] };
      // Each entity is the same object while its card stands: a surface that kept its rendering puts that in.
      return ctx.itemsFrom(found.page.data) ? { ...found.page, data: [] } : found.page;
    },
  }),
);
