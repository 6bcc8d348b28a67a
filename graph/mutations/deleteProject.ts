import { z } from 'zod';
import { resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { Deleted } from '../types/Deleted.ts';

const deleteProjectArgs = z.object({ projectId: resourceId });

builder.mutationField('deleteProject', (t) =>
  t.field({
    type: Deleted,
    description:
      'Deletes a project and everything in it (entities, facts, state values, proposals and decisions, relationships, chapters, mentions, beats, conflicts) in one transaction. The audit log keeps its entries.',
    authScopes: { scope: 'projects:write' },
    cost: 1,
    args: { projectId: t.arg.id({ required: true }) },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(deleteProjectArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return ctx.services.authoring.deleteProject(principal.accountId, args.projectId);
    },
  }),
);
