import { z } from 'zod';
import { chooseLlm } from '../../src/core/llm/provider.ts';
import { defaultExtractLimit, extractChapters, extractLimit, maxExtractLimit } from '../../src/core/ingest/manuscripts/rules.ts';
import { chapterRef, idempotencyKey, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { ExtractResult } from '../types/ExtractResult.ts';

const extractCanonArgs = z.object({
  projectId: resourceId,
  chapters: extractChapters.optional(),
  startingAfter: chapterRef.optional(),
  limit: extractLimit.default(defaultExtractLimit),
  idempotencyKey: idempotencyKey.optional(),
});

builder.mutationField('extractCanon', (t) =>
  t.field({
    type: ExtractResult,
    description: `Asks the caller's own LLM (BYOK) which characters, places, objects, events, rules and promises each chapter establishes and what it states about them, and the promises it sets up or pays off (as ledger lines), each resting on a quote from the chapter. Quotes not in the chapter are dropped; entities Lore has are matched by name or alias; the rest is recorded as suggested canon, pending review (candidates), never approved. Chapters in reading order, at most limit (1..${maxExtractLimit}, default ${defaultExtractLimit}) asked per call, four at a time; a chapter version proposals were drawn from before is not asked again. Costs 5 calls per request.`,
    authScopes: { scope: 'remember' },
    cost: 5,
    idempotent: true,
    args: {
      projectId: t.arg.id({ required: true }),
      chapters: t.arg.stringList({ description: 'only these chapters (their ids), at most 100; default: every chapter, in reading order' }),
      startingAfter: t.arg.string({ description: 'go on after this chapter id (the nextStartingAfter of the previous call)' }),
      limit: t.arg.int({ description: `chapters to ask the model about in this call, 1..${maxExtractLimit} (default ${defaultExtractLimit})` }),
      idempotencyKey: t.arg.string(),
    },
    resolve: async (_root, rawArgs, ctx, info) => {
      const principal = await ctx.principal();
      const llm = chooseLlm(ctx.llm, ctx.services.config.llm, principal.scopes);
      const args = parseArgs(extractCanonArgs, rawArgs);
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      const request = { projectId: args.projectId, chapters: args.chapters, startingAfter: args.startingAfter, limit: args.limit };
      return ctx.services.idempotency.run(
        { accountId: principal.accountId, operation: 'extractCanon', key: args.idempotencyKey },
        request,
        ctx.reservations.get(info.path.key)!,
        () => ctx.services.extraction.extract({ ...request, keyId: principal.keyId, llm }),
      );
    },
  }),
);
