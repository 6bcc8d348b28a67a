import { z } from 'zod';
import { chapterOrdinal, chapterRef, chapterText, chapterTitle, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { PutChapterResult } from '../types/PutChapterResult.ts';

const putChapterArgs = z.object({
  projectId: resourceId,
  chapterId: chapterRef,
  input: z.object({ title: chapterTitle.nullish(), ordinal: chapterOrdinal, text: chapterText }),
});

const PutChapterInput = builder.inputType('PutChapterInput', {
  fields: (t) => ({
    title: t.string({ description: 'at most 300 characters; absent keeps the current title (empty for a new chapter)' }),
    ordinal: t.int({ required: true, description: 'its place in reading order, 0..1000000' }),
    text: t.string({ required: true, description: 'the whole chapter text (pass it as a variable)' }),
  }),
});

builder.mutationField('putChapter', (t) =>
  t.field({
    type: PutChapterResult,
    description:
      "Creates or replaces a chapter by its id in the manuscript. The mentions of this chapter are recorded again; other chapters' are untouched. A new ordinal that would put a fact's or state value's until before its from is a 409 in_use.",
    authScopes: { scope: 'remember' },
    cost: 1,
    args: {
      projectId: t.arg.id({ required: true }),
      chapterId: t.arg.id({ required: true, description: 'its id in the manuscript, e.g. ch-07' }),
      input: t.arg({ type: PutChapterInput, required: true }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(putChapterArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      const { title, ordinal, text } = args.input;
      return ctx.services.chapters.put({ projectId: args.projectId, chapterId: args.chapterId, title: title ?? undefined, ordinal, text });
    },
  }),
);
