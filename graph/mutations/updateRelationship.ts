import { z } from 'zod';
import { relationshipKind, relationshipWeight } from '../../src/core/canon/authoringRules.ts';
import { resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { Relationship } from '../types/Relationship.ts';

const updateRelationshipArgs = z.object({
  projectId: resourceId,
  relationshipId: resourceId,
  input: z.object({ kind: relationshipKind.nullish(), weight: relationshipWeight.nullish() }),
});

const UpdateRelationshipInput = builder.inputType('UpdateRelationshipInput', {
  description: 'Fields left out (or null) stay as they are.',
  fields: (t) => ({ kind: t.string(), weight: t.float() }),
});

builder.mutationField('updateRelationship', (t) =>
  t.field({
    type: Relationship,
    description: 'Changes the kind or weight of a relationship; a kind the same two entities already have is 409 already_exists.',
    authScopes: { scope: 'remember' },
    cost: 1,
    args: {
      projectId: t.arg.id({ required: true }),
      relationshipId: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateRelationshipInput, required: true }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(updateRelationshipArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return ctx.services.authoring.updateRelationship(principal.accountId, args.projectId, args.relationshipId, {
        kind: args.input.kind ?? undefined,
        weight: args.input.weight ?? undefined,
      });
    },
  }),
);
