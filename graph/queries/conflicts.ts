import { z } from 'zod';
import { resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { Conflict } from '../types/Conflict.ts';

const conflictsArgs = z.object({ projectId: resourceId, status: z.enum(['pending', 'resolved', 'dismissed']).default('pending') });

builder.queryField('conflicts', (t) =>
  t.prismaField({
    type: [Conflict],
    description: 'Conflicts of a project, newest first (pending by default), at most 200.',
    authScopes: { scope: 'recall' },
    cost: 1,
    args: { projectId: t.arg.id({ required: true }), status: t.arg.string({ description: 'pending (default), resolved or dismissed' }) },
    resolve: async (query, _root, rawArgs, ctx) => {
      const args = parseArgs(conflictsArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return ctx.services.prisma.conflict.findMany({ ...query, where: { projectId: args.projectId, status: args.status }, orderBy: { id: 'desc' }, take: 200 });
    },
  }),
);
