import { z } from 'zod';
import type { Fact as FactRow } from '../../src/generated/prisma/client.ts';
import { chapterRef, factStatus, factText, knownByInput, idempotencyKey, resourceId, sourceContent } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { ApprovalStatus } from '../types/Entity.ts';
import { KnowerInput } from '../types/KnowerInput.ts';
import { answeredWithoutKnowers, Fact } from '../types/Fact.ts';

const createFactArgs = z.object({
  projectId: resourceId,
  entityId: resourceId,
  input: z.object({
    text: factText,
    from: chapterRef.nullish(),
    until: chapterRef.nullish(),
    status: factStatus.nullish(),
    content: sourceContent.nullish(),
    knownBy: knownByInput.nullish(),
    secret: z.boolean().nullish(),
  }),
  idempotencyKey: idempotencyKey.optional(),
});

const CreateFactInput = builder.inputType('CreateFactInput', {
  fields: (t) => ({
    text: t.string({ required: true, description: 'the statement, at most 2000 characters' }),
    from: t.string({ description: 'story time: the chapter id it holds from (inclusive); absent: from the start' }),
    until: t.string({ description: 'story time: the chapter id it holds until (exclusive); absent: to the end' }),
    status: t.field({ type: ApprovalStatus, description: "approved (default: the author's own canon) or suggested (waits for review)" }),
    content: t.string({ description: 'the source text the fact comes from' }),
    knownBy: t.field({ type: [KnowerInput], description: 'who knows it, from when: then only they know it (each from their point)' }),
    secret: t.boolean({ description: 'nobody knows it until someone learns it (knownBy)' }),
  }),
});

builder.mutationField('createFact', (t) =>
  t.field({
    type: Fact,
    description:
      'Adds a fact about an entity, with its provenance: a candidate (approved, or pending review for a suggested fact) and, for an approved fact, the decision by this key. A live fact with the same text on the entity is a 409 already_exists.',
    authScopes: { scope: 'remember' },
    cost: 1,
    admitsWithKey: true,
    admitsInWrite: true,
    idempotent: true,
    args: {
      projectId: t.arg.id({ required: true }),
      entityId: t.arg.id({ required: true }),
      input: t.arg({ type: CreateFactInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: async (_root, rawArgs, ctx, info) => {
      const args = parseArgs(createFactArgs, rawArgs);
      const principal = await ctx.principal();
      // The write checks the project is the account's, under the project's writer lock.
      const { input } = args;
      const request = {
        projectId: args.projectId,
        entityId: args.entityId,
        text: input.text,
        from: input.from ?? undefined,
        until: input.until ?? undefined,
        status: input.status ?? 'approved',
        content: input.content ?? undefined,
        knownBy: input.knownBy ?? undefined,
        secret: input.secret ?? undefined,
      };
      // The fact as written when the write knows it whole; a replay, or a write that does not, reads it.
      let written: FactRow | undefined;
      const created = await ctx.services.idempotency.run(
        { accountId: principal.accountId, operation: 'createFact', key: args.idempotencyKey },
        request,
        ctx.reservations.get(info.path.key)!,
        async () => {
          const { fact, ...done } = await ctx.services.facts.create({ ...request, keyId: principal.keyId, accountId: principal.accountId, admission: ctx.pipelined, audit: ctx.audit });
          written = fact;
          if (fact && !request.knownBy?.length) answeredWithoutKnowers(fact);
          return done;
        },
      );
      return written ?? ctx.services.prisma.fact.findUniqueOrThrow({ where: { id: created.id } });
    },
  }),
);
