// Authoring (extension): entities and relationships written one at a time, and deletes.
import { z } from 'zod';
import {
  approvalStatus, confidence, entityAliases, entityKey, entityLabel, entityState, entityType, expectedVersion, relationshipKind, relationshipWeight,
  stateChangeChecks, stateChanges,
} from '../../src/core/canon/authoringRules.ts';
import { chapterRef, resourceId } from '../../src/core/validation.ts';
import { projectPath, RecallEntity } from '../schemas.ts';
import { jsonObject } from './json.ts';

export const relationshipPath = projectPath.extend({ relationshipId: resourceId.meta({ description: 'relationship id' }) });

// The core's stateChange, its state declared as the JSON it must be.
const stateChangeItem = stateChangeChecks(
  z.object({ from: chapterRef.optional(), until: chapterRef.optional(), state: entityState.meta({ ...jsonObject, minProperties: 1 }) }),
).meta({
  id: 'StateChange',
  description: 'state values that hold from a chapter id (inclusive) until a chapter id (exclusive); give from, until or both',
});

export const createEntityBody = z
  .object({
    key: entityKey.optional().meta({ description: 'unique in the project (letters, digits, _ . : -); default: a slug of the name, numbered when taken' }),
    type: entityType,
    name: entityLabel.meta({ description: 'unique in the project among names and aliases, without case' }),
    aliases: entityAliases.optional().meta({ description: 'other names, each unique in the project like the name' }),
    state: entityState.optional().meta({ ...jsonObject, description: 'the timeless state: values that hold throughout the story' }),
    state_changes: stateChanges(stateChangeItem).optional().meta({ description: 'timed state values, each over a span of chapters' }),
    confidence: confidence.optional().meta({ description: '0..1, how sure the source was' }),
    status: approvalStatus.optional().meta({ description: "approved (default: the author's own canon) or suggested" }),
  })
  .meta({ id: 'CreateEntityRequest' });

export const updateEntityBody = z
  .object({
    type: entityType.optional(),
    name: entityLabel.optional(),
    aliases: entityAliases.optional().meta({ description: 'replaces the list' }),
    state: entityState.optional().meta({ ...jsonObject, description: 'a JSON merge patch of the timeless state, at the top level: a key set to null is removed' }),
    state_changes: stateChanges(stateChangeItem).optional().meta({ description: 'replaces every timed state value' }),
    confidence: confidence.nullable().optional().meta({ description: '0..1; null clears it' }),
    status: approvalStatus.optional(),
    expected_version: expectedVersion.optional().meta({
      description: 'the version read before the change: an entity at another version is refused with 409 version_conflict; absent, the later write wins whole',
    }),
  })
  .meta({ id: 'UpdateEntityRequest' });

export const Entity = RecallEntity.pick({
  id: true, type: true, canonicalName: true, aliases: true, lastMentions: true, currentState: true, pendingConflictIds: true, confidence: true, approvalStatus: true,
})
  .extend({
    key: z.string().meta({ description: 'unique in the project' }),
    version: z.number().int().meta({ description: 'raised by every change; send it back as expected_version' }),
    state: z.record(z.string(), z.unknown()).meta({ description: 'the timeless state as written (currentState is what it makes with state_changes after the last chapter)' }),
    state_changes: z
      .array(z.object({ from: z.string().optional(), until: z.string().optional(), state: z.record(z.string(), z.unknown()) }))
      .meta({ description: 'the timed state values as written, one item per span, in story order' }),
  })
  .meta({ id: 'Entity' });

export const createRelationshipBody = z
  .object({
    from: resourceId.meta({ description: 'entity id' }),
    to: resourceId.meta({ description: 'entity id' }),
    kind: relationshipKind.meta({ description: 'one word, such as sibling_of' }),
    weight: relationshipWeight.optional().meta({ description: 'default 1' }),
  })
  .meta({ id: 'CreateRelationshipRequest' });

export const updateRelationshipBody = z
  .object({ kind: relationshipKind.optional(), weight: relationshipWeight.optional() })
  .meta({ id: 'UpdateRelationshipRequest' });

export const Relationship = z
  .object({ id: z.string(), from: z.string(), to: z.string(), kind: z.string(), weight: z.number() })
  .meta({ id: 'Relationship' });

export const Deleted = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'Deleted' });
