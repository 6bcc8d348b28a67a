import { z } from 'zod';
import { chapterLine, chapterRef, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { Knowledge } from '../types/Knowledge.ts';

// A line is a place in the asOf chapter: without asOf it places nothing and is not used.
const knowledgeArgs = z.object({ projectId: resourceId, entityId: resourceId, asOf: chapterRef.optional(), line: chapterLine.optional() });

builder.queryField('knowledge', (t) =>
  t.field({
    type: Knowledge,
    description:
      'Who knows what, when: the tracked facts (secret ones, and those known by named entities only) an entity knows as of a chapter (and a line of it), and those the reader knows there that it does not know yet.',
    authScopes: { scope: 'recall' },
    cost: 1,
    args: {
      projectId: t.arg.id({ required: true }),
      entityId: t.arg.id({ required: true }),
      asOf: t.arg.string({ description: 'a chapter id; absent, after the last chapter' }),
      line: t.arg.int({ description: 'a line of that chapter: knowledge learned after it is not known yet; without asOf it is not used' }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(knowledgeArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return ctx.services.knowledge.entity(args.projectId, args.entityId, args.asOf, args.line);
    },
  }),
);
