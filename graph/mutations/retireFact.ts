import { z } from 'zod';
import { resourceId, retireReason } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { RetconResult } from '../types/RetconResult.ts';

const retireFactArgs = z.object({ projectId: resourceId, factId: resourceId, reason: retireReason.optional() });

builder.mutationField('retireFact', (t) =>
  t.field({
    type: RetconResult,
    description:
      'Retires a live fact: it leaves the canon and stays in its entity\'s history; the retirement is recorded as a rejection of its proposal, with the reason. A retired fact cannot be retired again: 409 version_conflict.',
    authScopes: { scope: 'remember' },
    cost: 1,
    args: {
      projectId: t.arg.id({ required: true }),
      factId: t.arg.id({ required: true }),
      reason: t.arg.string({ description: 'why, at most 2000 characters' }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(retireFactArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return ctx.services.facts.retire(args.projectId, args.factId, args.reason, principal.keyId);
    },
  }),
);
