import { z } from 'zod';
import { relationshipKind, relationshipWeight } from '../../src/core/canon/authoringRules.ts';
import { idempotencyKey, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { Relationship } from '../types/Relationship.ts';

const createRelationshipArgs = z.object({
  projectId: resourceId,
  input: z.object({ from: resourceId, to: resourceId, kind: relationshipKind, weight: relationshipWeight.nullish() }),
  idempotencyKey: idempotencyKey.optional(),
});

const CreateRelationshipInput = builder.inputType('CreateRelationshipInput', {
  fields: (t) => ({
    from: t.id({ required: true, description: 'entity id' }),
    to: t.id({ required: true, description: 'entity id' }),
    kind: t.string({ required: true, description: 'one word, such as sibling_of' }),
    weight: t.float({ description: 'default 1' }),
  }),
});

builder.mutationField('createRelationship', (t) =>
  t.field({
    type: Relationship,
    description:
      'Relates two entities of the project. The same from, to and kind twice is 409 already_exists. With an idempotency key, a repeat within 24 hours returns the first answer.',
    authScopes: { scope: 'remember' },
    cost: 1,
    idempotent: true,
    args: {
      projectId: t.arg.id({ required: true }),
      input: t.arg({ type: CreateRelationshipInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: async (_root, rawArgs, ctx, info) => {
      const args = parseArgs(createRelationshipArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      const input = { ...args.input, weight: args.input.weight ?? 1 };
      return ctx.services.idempotency.run(
        { accountId: principal.accountId, operation: 'createRelationship', key: args.idempotencyKey },
        { projectId: args.projectId, input },
        ctx.reservations.get(info.path.key)!,
        () => ctx.services.authoring.createRelationship(principal.accountId, args.projectId, input),
      );
    },
  }),
);
