import { z } from 'zod';
import { resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { Deleted } from '../types/Deleted.ts';

const deleteEntityArgs = z.object({ projectId: resourceId, entityId: resourceId });

builder.mutationField('deleteEntity', (t) =>
  t.field({
    type: Deleted,
    description:
      'Deletes an entity with its facts, state values, mentions, relationships and conflict links; beats no longer name it. Proposals about it stay on record without it.',
    authScopes: { scope: 'remember' },
    cost: 1,
    args: { projectId: t.arg.id({ required: true }), entityId: t.arg.id({ required: true }) },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(deleteEntityArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return ctx.services.authoring.deleteEntity(principal.accountId, args.projectId, args.entityId);
    },
  }),
);
