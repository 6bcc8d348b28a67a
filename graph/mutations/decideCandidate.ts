import { z } from 'zod';
import { decisionChoices, decisionReason } from '../../src/core/canon/reviewRules.ts';
import { resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { Candidate, DecisionChoice } from '../types/Candidate.ts';

const decideArgs = z.object({ projectId: resourceId, candidateId: resourceId, decision: z.enum(decisionChoices), reason: decisionReason.optional() });

builder.mutationField('decideCandidate', (t) =>
  t.field({
    type: Candidate,
    description:
      'Approves or rejects a pending candidate, recording the deciding key, the time and the reason. Approving makes its facts (and, for an entity proposal, the entity) approved canon; rejecting removes the suggested fact, or the suggested entity with its facts, and keeps the candidate with its decision. A decided candidate is 409 already_decided.',
    authScopes: { scope: 'remember' },
    cost: 1,
    args: {
      projectId: t.arg.id({ required: true }),
      candidateId: t.arg.id({ required: true }),
      decision: t.arg({ type: DecisionChoice, required: true }),
      reason: t.arg.string({ description: 'why, kept with the decision' }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(decideArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return ctx.services.review.decide(args.projectId, args.candidateId, args.decision, principal.keyId, args.reason);
    },
  }),
);
