import { z } from 'zod';
import { entityTypes } from '../../src/core/ingest/bundle.ts';
import { resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { EntityType } from '../types/Entity.ts';
import { MentionMap } from '../types/MentionMap.ts';

const mentionMapArgs = z.object({
  projectId: resourceId,
  type: z.enum(entityTypes).optional(),
  limit: z.number().int('must be an integer').min(1, 'must be at least 1').max(200, 'must be at most 200').default(50),
});

builder.queryField('mentionMap', (t) =>
  t.field({
    type: MentionMap,
    description: 'Entities × chapters: how often each of the most mentioned entities (of one type when given) is mentioned in each chapter.',
    authScopes: { scope: 'recall' },
    cost: 1,
    args: {
      projectId: t.arg.id({ required: true }),
      type: t.arg({ type: EntityType }),
      limit: t.arg.int({ description: 'entities, 1..200, default 50' }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(mentionMapArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return ctx.services.overview.mentionMap(args.projectId, args.type, args.limit);
    },
  }),
);
