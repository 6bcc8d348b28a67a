import { z } from 'zod';
import { resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { Dependents } from '../types/Dependents.ts';

const dependentsArgs = z
  .object({ projectId: resourceId, factId: resourceId.optional(), entityId: resourceId.optional() })
  .refine((a) => (a.factId === undefined) !== (a.entityId === undefined), { message: 'give exactly one of factId and entityId', path: ['factId'] });

builder.queryField('dependents', (t) =>
  t.field({
    type: Dependents,
    description:
      "What depends on a fact (live or retired) or an entity: stored conflicts citing it, beats involving the entity, and mentions of the entity (from the fact's from chapter on). Give exactly one of factId and entityId.",
    authScopes: { scope: 'recall' },
    cost: 1,
    args: { projectId: t.arg.id({ required: true }), factId: t.arg.id(), entityId: t.arg.id() },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(dependentsArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return ctx.services.facts.dependents(args.projectId, args.factId ? { factId: args.factId } : { entityId: args.entityId! });
    },
  }),
);
