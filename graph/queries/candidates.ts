import { z } from 'zod';
import { candidateStatuses } from '../../src/core/canon/reviewRules.ts';
import { cursor, defaultPageLimit, pageLimit, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { CandidatePage, CandidateStatus } from '../types/Candidate.ts';

const candidatesArgs = z.object({
  projectId: resourceId,
  status: z.enum(candidateStatuses).default('pending'),
  limit: pageLimit.default(defaultPageLimit),
  startingAfter: cursor.optional(),
});

builder.queryField('candidates', (t) =>
  t.field({
    type: CandidatePage,
    description: 'The review queue: candidates with this status (pending by default), oldest first, a page at a time.',
    authScopes: { scope: 'recall' },
    cost: 1,
    args: {
      projectId: t.arg.id({ required: true }),
      status: t.arg({ type: CandidateStatus, description: 'default pending' }),
      limit: t.arg.int({ description: `1..100, default ${defaultPageLimit}` }),
      startingAfter: t.arg.string({ description: 'the last id of the previous page' }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(candidatesArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return ctx.services.review.list(args.projectId, args.status, args.limit, args.startingAfter);
    },
  }),
);
