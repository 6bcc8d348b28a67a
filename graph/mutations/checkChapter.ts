import { z } from 'zod';
import { chapterCheckCost } from '../../src/core/conflicts/chapterCheck.ts';
import { wordsPerCall } from '../../src/core/conflicts/kinds.ts';
import { chapterRef, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { ChapterCheck } from '../types/ChapterCheck.ts';

const checkChapterArgs = z.object({ projectId: resourceId, chapter: chapterRef });

builder.mutationField('checkChapter', (t) =>
  t.field({
    type: ChapterCheck,
    description: `Checks a stored chapter in place with the deterministic core (no LLM): each stretch is read as of its own line, so a state change anchored inside the chapter holds only after it; hits carry their line and offsets and are stored as pending conflicts. Costs one call per ${wordsPerCall.toLocaleString('en')} words started; the same text and canon version answer from the kept result for one call.`,
    authScopes: { scope: 'check' },
    cost: 1,
    args: {
      projectId: t.arg.id({ required: true }),
      chapter: t.arg.string({ required: true, description: 'the chapter id (for example ch-12)' }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const principal = await ctx.principal();
      const args = parseArgs(checkChapterArgs, rawArgs);
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      // The first call is paid with the field's cost; the rest of the chapter's length before it is read.
      return ctx.services.conflicts.checkChapter(args.projectId, args.chapter, async (words) => {
        const more = chapterCheckCost(words) - 1;
        if (more > 0) await ctx.services.metering.reserve(principal, more);
      });
    },
  }),
);
