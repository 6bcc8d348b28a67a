import { z } from 'zod';
import { entityTypes } from '../../src/core/ingest/bundle.ts';
import { cursor, defaultPageLimit, pageLimit, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { EntityType } from '../types/Entity.ts';
import { EntityHeadingPage } from '../types/EntityHeading.ts';

const entitiesArgs = z.object({ projectId: resourceId, type: z.enum(entityTypes).optional(), limit: pageLimit.default(defaultPageLimit), startingAfter: cursor.optional() });

builder.queryField('entities', (t) =>
  t.field({
    type: EntityHeadingPage,
    description: "A project's entities (of one type when given) in name order, without their facts, a page at a time, with how many there are.",
    authScopes: { scope: 'recall' },
    cost: 1,
    args: {
      projectId: t.arg.id({ required: true }),
      type: t.arg({ type: EntityType }),
      limit: t.arg.int({ description: `1..100, default ${defaultPageLimit}` }),
      startingAfter: t.arg.string({ description: 'the last id of the previous page' }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(entitiesArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return ctx.services.overview.entityList(args.projectId, args.type, args.limit, args.startingAfter);
    },
  }),
);
