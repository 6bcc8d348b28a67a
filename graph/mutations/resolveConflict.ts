import { z } from 'zod';
import { LoreError } from '../../src/core/errors.ts';
import { resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { Conflict } from '../types/Conflict.ts';

const resolveConflictArgs = z.object({ projectId: resourceId, conflictId: resourceId, status: z.enum(['resolved', 'dismissed']) });

builder.mutationField('resolveConflict', (t) =>
  t.prismaField({
    type: Conflict,
    description: 'Marks a pending conflict resolved (the text was fixed) or dismissed (not a real conflict).',
    authScopes: { scope: 'remember' },
    cost: 0,
    args: {
      projectId: t.arg.id({ required: true }),
      conflictId: t.arg.id({ required: true }),
      status: t.arg.string({ required: true, description: 'resolved or dismissed' }),
    },
    resolve: async (query, _root, rawArgs, ctx) => {
      const args = parseArgs(resolveConflictArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      const { count } = await ctx.services.prisma.conflict.updateMany({ where: { id: args.conflictId, projectId: args.projectId }, data: { status: args.status } });
      if (count === 0) throw new LoreError('not_found', `Conflict ${args.conflictId} not found in project ${args.projectId}.`);
      return ctx.services.prisma.conflict.findUniqueOrThrow({ ...query, where: { id: args.conflictId } });
    },
  }),
);
