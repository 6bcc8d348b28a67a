import { z } from 'zod';
import { approvalStatus, confidence, entityAliases, entityLabel, entityState, entityType, expectedVersion, stateChangeInput, stateChanges } from '../../src/core/canon/authoringRules.ts';
import { resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { ApprovalStatus, Entity, EntityType } from '../types/Entity.ts';
import { StateChangeInput } from '../types/EntityState.ts';

const updateEntityArgs = z.object({
  projectId: resourceId,
  entityId: resourceId,
  input: z.object({
    type: entityType.nullish(),
    name: entityLabel.nullish(),
    aliases: entityAliases.nullish(),
    state: entityState.nullish(),
    stateChanges: stateChanges(stateChangeInput).nullish(),
    confidence: confidence.nullish(),
    status: approvalStatus.nullish(),
    expectedVersion: expectedVersion.nullish(),
  }),
});

const UpdateEntityInput = builder.inputType('UpdateEntityInput', {
  description: 'Fields left out (or null) stay as they are, except confidence, which null clears.',
  fields: (t) => ({
    type: t.field({ type: EntityType }),
    name: t.string(),
    aliases: t.stringList({ description: 'replaces the list' }),
    state: t.field({ type: 'JSON', description: 'a JSON merge patch of the timeless state, at the top level: a key set to null is removed' }),
    stateChanges: t.field({ type: [StateChangeInput], description: 'replaces every timed state value' }),
    confidence: t.float({ description: '0..1; null clears it' }),
    status: t.field({ type: ApprovalStatus }),
    expectedVersion: t.int({ description: 'the version the change was made against: refused (409 version_conflict) when the entity has moved on' }),
  }),
});

builder.mutationField('updateEntity', (t) =>
  t.field({
    type: Entity,
    description:
      'Changes an entity and raises its version by one. With expectedVersion, an entity at another version is refused with 409 version_conflict; without, the later of two writes wins whole. A rename re-records the entity\'s mentions.',
    authScopes: { scope: 'remember' },
    cost: 1,
    admitsWithKey: true,
    admitsInWrite: true,
    args: {
      projectId: t.arg.id({ required: true }),
      entityId: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateEntityInput, required: true }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(updateEntityArgs, rawArgs);
      const principal = await ctx.principal();
      // The write checks the project is the account's, under the project's writer lock.
      const { input: given } = args;
      return ctx.services.authoring.updateEntity(principal.accountId, args.projectId, args.entityId, {
        type: given.type ?? undefined,
        name: given.name ?? undefined,
        aliases: given.aliases ?? undefined,
        state: given.state ?? undefined,
        stateChanges: given.stateChanges ?? undefined,
        confidence: given.confidence,
        status: given.status ?? undefined,
        expectedVersion: given.expectedVersion ?? undefined,
      }, ctx.pipelined, ctx.audit);
    },
  }),
);
