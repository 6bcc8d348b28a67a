import { z } from 'zod';
import { chapterRef, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { Chapter } from '../types/Chapter.ts';

const chapterArgs = z.object({ projectId: resourceId, chapterId: chapterRef });

builder.queryField('chapter', (t) =>
  t.field({
    type: Chapter,
    description: 'One chapter with its text.',
    authScopes: { scope: 'recall' },
    cost: 1,
    args: { projectId: t.arg.id({ required: true }), chapterId: t.arg.id({ required: true, description: 'its id in the manuscript' }) },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(chapterArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return { ...(await ctx.services.chapters.get(args.projectId, args.chapterId)), projectId: args.projectId };
    },
  }),
);
