// An entity's state as its author writes it (createEntity, updateEntity): the timeless values and the timed ones.
// Entity.currentState is what they make at a chapter; these are what a client edits.
import DataLoader from 'dataloader';
import { createContextCache } from '@pothos/core';
import type { AuthoredEntity, AuthoredState, StateChange as StateChangeRecord } from '../../src/core/canon/authoring.ts';
import type { EntityRecord } from '../../src/core/canon/entities.ts';
import { builder } from '../builder.ts';
import type { GraphContext } from '../context.ts';
import { Entity } from './Entity.ts';

export const StateChange = builder.objectRef<StateChangeRecord>('StateChange').implement({
  description: 'State values that hold from a chapter (inclusive) until a chapter (exclusive); an absent end is open.',
  fields: (t) => ({
    from: t.exposeString('from', { nullable: true, description: 'chapter id' }),
    until: t.exposeString('until', { nullable: true, description: 'chapter id' }),
    state: t.field({ type: 'JSON', description: 'the values, by key', resolve: (change) => change.state }),
  }),
});

export const StateChangeInput = builder.inputType('StateChangeInput', {
  description: 'State values that hold from a chapter (inclusive) until a chapter (exclusive); give from, until or both.',
  fields: (t) => ({
    from: t.string({ description: 'chapter id' }),
    until: t.string({ description: 'chapter id' }),
    state: t.field({ type: 'JSON', required: true, description: 'a JSON object: the values, by key' }),
  }),
});

const loader = createContextCache(
  (ctx: GraphContext) => new DataLoader<string, AuthoredState>((ids) => ctx.services.authoring.authoredStates(ids)),
);

/** A write's answer carries its own (read in its transaction); other entities are loaded, batched per request. */
const authoredOf = (entity: EntityRecord, ctx: GraphContext) => (entity as Partial<AuthoredEntity>).authored ?? loader(ctx).load(entity.id);

builder.objectFields(Entity, (t) => ({
  state: t.field({
    type: 'JSON',
    description: 'the timeless state as written: values that hold throughout the story (stateChanges override them where they hold)',
    resolve: async (entity, _args, ctx) => (await authoredOf(entity, ctx)).state,
  }),
  stateChanges: t.field({
    type: [StateChange],
    description: 'the timed state values as written, one item per span, in story order',
    resolve: async (entity, _args, ctx) => (await authoredOf(entity, ctx)).stateChanges,
  }),
}));
