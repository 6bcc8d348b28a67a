import { z } from 'zod';
import { briefBudget, briefEntityIds, briefFormats, chapterRef, defaultBriefBudget, passageText, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { Brief, BriefFormat } from '../types/Brief.ts';

const briefArgs = z
  .object({
    projectId: resourceId,
    chapter: chapterRef.optional(),
    text: passageText.optional(),
    entityIds: briefEntityIds.optional(),
    budget: briefBudget.default(defaultBriefBudget),
    format: z.enum(briefFormats).default('json'),
  });

builder.queryField('brief', (t) =>
  t.field({
    type: Brief,
    description:
      'What the canon says that matters for a scene, as of a chapter: the entities the scene names (and relatives it names by a kin word) with their state and approved facts, the relationships between them, the entities one step away, the rules, the promises involving them, and the last beats, most important first and never over the token budget.',
    authScopes: { scope: 'recall' },
    cost: 1,
    args: {
      projectId: t.arg.id({ required: true }),
      chapter: t.arg.string({ description: 'chapter id of the scene: the canon as it stands there; absent, after the last chapter' }),
      text: t.arg.string({ description: 'the scene: draft or outline, at most 50,000 characters' }),
      entityIds: t.arg.idList({ description: 'entities the scene involves, besides those its text names (at most 100)' }),
      budget: t.arg.int({ description: `tokens at most, 100..200000, default ${defaultBriefBudget}` }),
      format: t.arg({ type: BriefFormat, description: 'json (default) or markdown' }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(briefArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return ctx.services.brief.brief(args);
    },
  }),
);
