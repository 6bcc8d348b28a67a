import { z } from 'zod';
import { chooseLlm } from '../../src/core/llm/provider.ts';
import { chapterOrdinal, cursor, defaultPageLimit, pageLimit, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { TimelinePage } from '../types/Timeline.ts';

const timelineArgs = z.object({ projectId: resourceId, limit: pageLimit.default(defaultPageLimit), startingAfter: cursor.optional(), from: chapterOrdinal.optional(), to: chapterOrdinal.optional(), stored: z.boolean().nullish() });

builder.queryField('timeline', (t) =>
  t.field({
    type: TimelinePage,
    description:
      "Beats per chapter in reading order. Imported beats are kept as they are; a chapter without beats is summarised by the caller's LLM (BYOK) once per version of its text.",
    authScopes: { scope: 'timeline' },
    cost: 5,
    args: {
      projectId: t.arg.id({ required: true }),
      limit: t.arg.int({ description: `chapters per page, 1..100, default ${defaultPageLimit}` }),
      startingAfter: t.arg.string({ description: 'the last entry id of the previous page' }),
      from: t.arg.int({ description: 'first chapter ordinal (inclusive)' }),
      to: t.arg.int({ description: 'last chapter ordinal (inclusive)' }),
      stored: t.arg.boolean({ description: 'only the beats Lore has (imported, or summarised before): no LLM is asked, so no BYOK headers are needed' }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const principal = await ctx.principal();
      const stored = rawArgs.stored === true;
      const llm = stored ? undefined : chooseLlm(ctx.llm, ctx.services.config.llm, principal.scopes);
      const args = parseArgs(timelineArgs, rawArgs);
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return ctx.services.timeline.page(args.projectId, args, llm);
    },
  }),
);
