import { z } from 'zod';
import { chapterRef, defaultPageLimit, pageLimit, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { ChapterPage } from '../types/ChapterPage.ts';

const chaptersArgs = z.object({ projectId: resourceId, limit: pageLimit.default(defaultPageLimit), startingAfter: chapterRef.optional() });

builder.queryField('chapters', (t) =>
  t.field({
    type: ChapterPage,
    description: "The project's chapters in reading order (ordinal), without their text, a page at a time: the ids that as_of, from and until name.",
    authScopes: { scope: 'recall' },
    cost: 1,
    args: {
      projectId: t.arg.id({ required: true }),
      limit: t.arg.int({ description: `1..100, default ${defaultPageLimit}` }),
      startingAfter: t.arg.string({ description: 'the last chapter id of the previous page' }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(chaptersArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return ctx.services.chapters.list(args.projectId, args.limit, args.startingAfter);
    },
  }),
);
