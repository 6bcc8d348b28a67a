import { z } from 'zod';
import { projectNotFound } from '../../src/core/canon/projects.ts';
import { chapterRef, defaultPageLimit, pageLimit, recallQuery, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { Entity } from '../types/Entity.ts';

const recallArgs = z.object({ projectId: resourceId, q: recallQuery.optional(), limit: pageLimit.default(defaultPageLimit), asOf: chapterRef.optional() });

builder.queryField('recall', (t) =>
  t.field({
    type: [Entity],
    description:
      'Entities of a project, optionally filtered by name or alias (case-insensitive substring), by name; with asOf, their state and facts as they stand at that chapter.',
    authScopes: { scope: 'recall' },
    cost: 1,
    readsCanon: true,
    admitsWithKey: true,
    args: {
      projectId: t.arg.id({ required: true }),
      q: t.arg.string({ description: 'filter on name or alias' }),
      limit: t.arg.int({ description: `1..100, default ${defaultPageLimit}` }),
      asOf: t.arg.string({ description: 'a chapter id: currentState and facts as of that chapter; without it, the latest' }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(recallArgs, rawArgs);
      const principal = await ctx.principal();
      const version = ctx.canonVersion(args.projectId);
      const found = await ctx.services.entities.recall(principal.accountId, args.projectId, args.q || undefined, args.limit, version, args.asOf);
      if (!found) throw projectNotFound(args.projectId);
      return ctx.answeredAt(found.version) ? [] : found.page.map((e) => ({ ...e, readAsOf: args.asOf ?? null }));
    },
  }),
);
