import { recallWhere } from '../../src/core/canon.ts';
import { defaultPageLimit, pageLimit, recallQuery, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { Entity } from '../types/Entity.ts';

builder.queryField('recall', (t) =>
  t.prismaField({
    type: [Entity],
    description: 'Entities of a project, optionally filtered by name or alias (case-insensitive substring), by name.',
    authScopes: { scope: 'recall' },
    cost: 1,
    args: {
      projectId: t.arg.id({ required: true }),
      q: t.arg.string({ description: 'filter on name or alias' }),
      limit: t.arg.int({ description: `1..100, default ${defaultPageLimit}` }),
    },
    resolve: async (query, _root, rawArgs, ctx) => {
      const args = parseArgs(
        { projectId: resourceId, q: recallQuery.optional(), limit: pageLimit.default(defaultPageLimit) },
        rawArgs,
      );
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return ctx.services.prisma.entity.findMany({
        ...query,
        where: recallWhere(args.projectId, args.q || undefined),
        orderBy: [{ name: 'asc' }, { id: 'asc' }],
        take: args.limit,
      });
    },
  }),
);
