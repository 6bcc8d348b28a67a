import { z } from 'zod';
import { chapterRef, factStatus, factText, knownByInput, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { ApprovalStatus } from '../types/Entity.ts';
import { KnowerInput } from '../types/KnowerInput.ts';
import { RetconResult } from '../types/RetconResult.ts';

// text and status: null or absent keeps them; from and until: absent keeps them, null makes that end open.
const updateFactArgs = z.object({
  projectId: resourceId,
  factId: resourceId,
  input: z.object({
    text: factText.nullish(),
    from: chapterRef.nullish(),
    until: chapterRef.nullish(),
    status: factStatus.nullish(),
    knownBy: knownByInput.nullish(),
    secret: z.boolean().nullish(),
  }),
});

const UpdateFactInput = builder.inputType('UpdateFactInput', {
  description: 'What the retcon changes; what is left out stays as it was.',
  fields: (t) => ({
    text: t.string({ description: 'the new statement' }),
    from: t.string({ description: 'a chapter id; null makes the fact hold from the start' }),
    until: t.string({ description: 'a chapter id; null makes the fact hold to the end' }),
    status: t.field({ type: ApprovalStatus }),
    knownBy: t.field({ type: [KnowerInput], description: 'who knows it, from when (replaces the list); absent: unchanged' }),
    secret: t.boolean({ description: 'nobody knows it until someone learns it; absent: unchanged' }),
  }),
});

builder.mutationField('updateFact', (t) =>
  t.field({
    type: RetconResult,
    description:
      'A retcon of a live fact: the fact is retired into its entity\'s history (when, by this key, replaced by the new fact) and a new fact is written with the changes, with provenance of its own. A retired fact cannot be changed: 409 version_conflict.',
    authScopes: { scope: 'remember' },
    cost: 1,
    args: {
      projectId: t.arg.id({ required: true }),
      factId: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateFactInput, required: true }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(updateFactArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      const { input } = args;
      const changes = {
        text: input.text ?? undefined, from: input.from, until: input.until, status: input.status ?? undefined,
        knownBy: input.knownBy ?? undefined, secret: input.secret ?? undefined,
      };
      return ctx.services.facts.update(args.projectId, args.factId, changes, principal.keyId);
    },
  }),
);
