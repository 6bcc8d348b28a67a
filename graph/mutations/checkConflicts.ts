import { z } from 'zod';
import { chooseLlm } from '../../src/core/llm/provider.ts';
import { chapterLine, chapterRef, passageText, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { ConflictHit } from '../types/ConflictHit.ts';

// A line is a place in the chapter: without a chapter it places nothing and is not used.
const checkConflictsArgs = z.object({ projectId: resourceId, text: passageText, chapter: chapterRef.optional(), line: chapterLine.optional() });

builder.mutationField('checkConflicts', (t) =>
  t.field({
    type: [ConflictHit],
    description:
      "Checks a passage against the canon with the caller's own LLM (BYOK) after a deterministic pass; hits are stored as pending conflicts.",
    authScopes: { scope: 'check' },
    cost: 5,
    args: {
      projectId: t.arg.id({ required: true }),
      text: t.arg.string({ required: true, description: 'the passage, at most 50,000 characters' }),
      chapter: t.arg.string({ description: 'chapter id the passage belongs to: canon after it is not used' }),
      line: t.arg.int({ description: 'the line of the chapter the passage begins at: state changes anchored later in the chapter do not hold yet; without it, the passage is read as of the whole chapter' }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const principal = await ctx.principal();
      const llm = chooseLlm(ctx.llm, ctx.services.config.llm, principal.scopes);
      const args = parseArgs(checkConflictsArgs, rawArgs);
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      const result = await ctx.services.conflicts.check({ projectId: args.projectId, text: args.text, chapter: args.chapter, line: args.line, llm });
      ctx.services.logger.info({ requestId: ctx.requestId, promptTokens: result.promptTokens, hits: result.conflicts.length }, 'conflict check');
      return result.conflicts;
    },
  }),
);
