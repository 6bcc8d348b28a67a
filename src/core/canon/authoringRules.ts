// Field rules of authoring (entities and relationships written one at a time), shared by the GraphQL core and the REST
// schemas. The bundle's rules where the bundle has them, so an entity written here could have been imported.
import { z } from 'zod';
import { entityTypes, key, relationshipKind } from '../ingest/bundle.ts';
import { chapterRef, storableJson } from '../validation.ts';
import { entityLabel, proposedAliases } from './reviewRules.ts';

export { entityLabel, relationshipKind };
export const entityKey = key;
export const entityType = z.enum(entityTypes);
export const entityAliases = proposedAliases;
export const approvalStatuses = ['approved', 'suggested'] as const;
export const approvalStatus = z.enum(approvalStatuses);
export const confidence = z.number().min(0, 'must be at least 0').max(1, 'must be at most 1');
/** Free-form state values by key; a JSON object. */
export const entityState = storableJson(z.record(z.string(), z.unknown()));
// Versions are 32-bit integers, as GraphQL's Int and the column are.
export const expectedVersion = z.number().int('must be an integer').min(1, 'must be at least 1').max(2_147_483_647, 'must be at most 2147483647');
export const relationshipWeight = z.number().finite('must be a finite number');
export const maxStateChanges = 1000;

type StateChangeShape = { from?: string | null; until?: string | null; state: Record<string, unknown> };
export const stateChangeChecks = <S extends z.ZodType<StateChangeShape>>(schema: S) =>
  schema
    .refine((c) => c.from != null || c.until != null, { message: 'must have from or until (timeless values go in state)', path: ['from'] })
    .refine((c) => Object.keys(c.state).length > 0, { message: 'must set at least one value', path: ['state'] })
    .meta({ anyOf: [{ required: ['from'] }, { required: ['until'] }] });

/** State values that hold for part of the story: from a chapter id (inclusive), until one (exclusive), or both. */
export const stateChange = stateChangeChecks(z.object({ from: chapterRef.optional(), until: chapterRef.optional(), state: entityState }));
/** stateChange as GraphQL passes it: an absent end may come as null. */
export const stateChangeInput = stateChangeChecks(z.object({ from: chapterRef.nullish(), until: chapterRef.nullish(), state: entityState }));
export const stateChanges = <S extends z.ZodType>(item: S) => z.array(item).max(maxStateChanges, `must be at most ${maxStateChanges} changes`);
