import { z } from 'zod';
import { approvalStatus, confidence, entityAliases, entityKey, entityLabel, entityState, entityType, stateChangeInput, stateChanges } from '../../src/core/canon/authoringRules.ts';
import { idempotencyKey, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { ApprovalStatus, Entity, EntityType } from '../types/Entity.ts';
import { StateChangeInput } from '../types/EntityState.ts';

const createEntityArgs = z.object({
  projectId: resourceId,
  input: z.object({
    key: entityKey.nullish(),
    type: entityType,
    name: entityLabel,
    aliases: entityAliases.nullish(),
    state: entityState.nullish(),
    stateChanges: stateChanges(stateChangeInput).nullish(),
    confidence: confidence.nullish(),
    status: approvalStatus.nullish(),
  }),
  idempotencyKey: idempotencyKey.optional(),
});

const CreateEntityInput = builder.inputType('CreateEntityInput', {
  fields: (t) => ({
    key: t.string({ description: 'unique in the project (letters, digits, _ . : -); default: a slug of the name, numbered when taken' }),
    type: t.field({ type: EntityType, required: true }),
    name: t.string({ required: true, description: 'unique in the project among names and aliases, without case' }),
    aliases: t.stringList({ description: 'other names, each unique in the project like the name' }),
    state: t.field({ type: 'JSON', description: 'a JSON object: the timeless state, values that hold throughout the story' }),
    stateChanges: t.field({ type: [StateChangeInput], description: 'timed state values: each holds from a chapter, until a chapter, or both' }),
    confidence: t.float({ description: '0..1, how sure the source was' }),
    status: t.field({ type: ApprovalStatus, description: 'default approved: the author\'s own canon' }),
  }),
});

builder.mutationField('createEntity', (t) =>
  t.field({
    type: Entity,
    description:
      'Creates an entity, records its mentions in the chapters and its search text. Names, aliases and the key must be free in the project (409 name_taken). With an idempotency key, a repeat within 24 hours returns the first answer.',
    authScopes: { scope: 'remember' },
    cost: 1,
    idempotent: true,
    admitsWithKey: true,
    admitsInWrite: true,
    args: {
      projectId: t.arg.id({ required: true }),
      input: t.arg({ type: CreateEntityInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: async (_root, rawArgs, ctx, info) => {
      const args = parseArgs(createEntityArgs, rawArgs);
      const principal = await ctx.principal();
      // A replay answers before any write's own check that the project is the account's; a first request is checked by
      // its write, under the project's lock.
      if (args.idempotencyKey) await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      const { input: given } = args;
      const input = {
        key: given.key ?? undefined,
        type: given.type,
        name: given.name,
        aliases: given.aliases ?? [],
        state: given.state ?? {},
        stateChanges: given.stateChanges ?? [],
        confidence: given.confidence ?? undefined,
        status: given.status ?? 'approved',
      };
      return ctx.services.idempotency.run(
        { accountId: principal.accountId, operation: 'createEntity', key: args.idempotencyKey },
        { projectId: args.projectId, input },
        ctx.reservations.get(info.path.key)!,
        () => ctx.services.authoring.createEntity(principal.accountId, principal.keyId, args.projectId, input, ctx.pipelined, ctx.audit),
      );
    },
  }),
);
