import { z } from 'zod';
import { factText, idempotencyKey, resourceId, sourceContent } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { ApproveResult } from '../types/ApproveResult.ts';

const approveFactArgs = z.object({ projectId: resourceId, entityId: resourceId, fact: factText.optional(), content: sourceContent.optional(), idempotencyKey: idempotencyKey.optional() });

builder.mutationField('approveFact', (t) =>
  t.field({
    type: ApproveResult,
    description:
      'Approves an entity into the canon, with a fact about it when given. Records the candidate and the decision (which key, when, the fact and its source content).',
    authScopes: { scope: 'remember' },
    cost: 1,
    idempotent: true,
    args: {
      projectId: t.arg.id({ required: true }),
      entityId: t.arg.id({ required: true }),
      fact: t.arg.string({ description: 'the statement to add to the canon' }),
      content: t.arg.string({ description: 'the source text the fact comes from' }),
      idempotencyKey: t.arg.string(),
    },
    resolve: async (_root, rawArgs, ctx, info) => {
      const args = parseArgs(approveFactArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      await ctx.services.projects.requireEntity(args.projectId, args.entityId);
      const request = { projectId: args.projectId, entityId: args.entityId, fact: args.fact, content: args.content };
      return ctx.services.idempotency.run(
        { accountId: principal.accountId, operation: 'approveFact', key: args.idempotencyKey },
        request,
        ctx.reservations.get(info.path.key)!,
        () => ctx.services.canon.approve({ ...request, decidedBy: principal.keyId }),
      );
    },
  }),
);
