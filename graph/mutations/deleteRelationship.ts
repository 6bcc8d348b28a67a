import { z } from 'zod';
import { resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { Deleted } from '../types/Deleted.ts';

const deleteRelationshipArgs = z.object({ projectId: resourceId, relationshipId: resourceId });

builder.mutationField('deleteRelationship', (t) =>
  t.field({
    type: Deleted,
    description: 'Deletes a relationship.',
    authScopes: { scope: 'remember' },
    cost: 1,
    args: { projectId: t.arg.id({ required: true }), relationshipId: t.arg.id({ required: true }) },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(deleteRelationshipArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return ctx.services.authoring.deleteRelationship(principal.accountId, args.projectId, args.relationshipId);
    },
  }),
);
