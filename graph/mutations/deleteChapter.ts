import { z } from 'zod';
import { chapterRef, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { DeleteChapterResult } from '../types/DeleteChapterResult.ts';

const deleteChapterArgs = z.object({ projectId: resourceId, chapterId: chapterRef });

builder.mutationField('deleteChapter', (t) =>
  t.field({
    type: DeleteChapterResult,
    description:
      'Deletes a chapter with its mentions and beats. Refused with 409 in_use, listing them, while live facts or state values hold from or until it; retired facts keep their text and lose the reference.',
    authScopes: { scope: 'remember' },
    cost: 1,
    args: { projectId: t.arg.id({ required: true }), chapterId: t.arg.id({ required: true, description: 'its id in the manuscript' }) },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(deleteChapterArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return ctx.services.chapters.delete(args.projectId, args.chapterId);
    },
  }),
);
