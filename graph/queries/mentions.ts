import { z } from 'zod';
import { cursor, defaultPageLimit, pageLimit, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { MentionPage } from '../types/Page.ts';

const mentionsArgs = z.object({ projectId: resourceId, entityId: resourceId, limit: pageLimit.default(defaultPageLimit), startingAfter: cursor.optional() });

builder.queryField('mentions', (t) =>
  t.field({
    type: MentionPage,
    description: 'Mentions of an entity in reading order (chapter ordinal, line), a page at a time.',
    authScopes: { scope: 'recall' },
    cost: 1,
    args: {
      projectId: t.arg.id({ required: true }),
      entityId: t.arg.id({ required: true }),
      limit: t.arg.int({ description: `1..100, default ${defaultPageLimit}` }),
      startingAfter: t.arg.string({ description: 'the last id of the previous page' }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(mentionsArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      await ctx.services.projects.requireEntity(args.projectId, args.entityId);
      return ctx.services.canon.mentions(args.projectId, args.entityId, args.limit, args.startingAfter);
    },
  }),
);
