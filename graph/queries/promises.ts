import { z } from 'zod';
import { defaultAtRiskAfter } from '../../src/core/promises/ledger.ts';
import { atRiskAfter, chapterRef, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { PromiseLine } from '../types/PromiseLine.ts';

const promisesArgs = z.object({ projectId: resourceId, asOf: chapterRef.optional(), atRiskAfter: atRiskAfter.default(defaultAtRiskAfter) });

builder.queryField('promises', (t) =>
  t.field({
    type: [PromiseLine],
    description:
      "The promise ledger: each promise's setup and payoff chapters, the entities it involves, and its status as of a chapter (set up later: not listed; paid off later: still open), with its age in chapters; open promises older than atRiskAfter chapters are at risk.",
    authScopes: { scope: 'recall' },
    cost: 1,
    args: {
      projectId: t.arg.id({ required: true }),
      asOf: t.arg.string({ description: 'a chapter id; absent, after the last chapter' }),
      atRiskAfter: t.arg.int({ description: `chapters an open promise may wait before it is at risk, default ${defaultAtRiskAfter}` }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(promisesArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return ctx.services.promises.list(args.projectId, args.asOf, args.atRiskAfter);
    },
  }),
);
