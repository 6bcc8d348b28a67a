// Entities (extension): create, read (with key and version, for a client to read before a PATCH), change and delete.
import { linksTo, type RouteDef } from '../route.ts';
import { entityPath, projectPath } from '../schemas.ts';
import { createEntityBody, Deleted, Entity, updateEntityBody } from '../schemas/authoring.ts';

const entityJson = ({ stateChanges, ...entity }: Record<string, unknown>) => ({ ...entity, state_changes: stateChanges });

// The core names the GraphQL input's fields; these routes' clients sent the body's.
const errorPaths = { 'input.stateChanges': 'body.state_changes', 'input.expectedVersion': 'body.expected_version', input: 'body' };

/** The operations that take an entity id, for links. */
export const entityOperations = ['readEntity', 'updateEntity', 'deleteEntity', 'entityHistory', 'entityDependents', 'listMentions', 'approveFact'];

const inputOf = (body: Record<string, unknown>) => ({
  type: body.type, name: body.name, aliases: body.aliases, state: body.state, stateChanges: body.state_changes, confidence: body.confidence, status: body.status,
});

export const createEntity: RouteDef = {
  method: 'post',
  path: '/projects/{id}/entities',
  operationId: 'createEntity',
  summary: 'Create an entity',
  description:
    "Extension. Creates an entity of one of the six types with its aliases, timeless state and timed state values (state_changes: from, until as chapter ids), confidence and status (approved by default: the author's own canon). Records its mentions in the chapters and its search text. A name or alias another entity has (without case), or a key already taken, is 409 name_taken; an unknown chapter or an until not after from is 400 naming the field. Supports Idempotency-Key.",
  scope: 'remember',
  cost: 1,
  params: projectPath,
  body: createEntityBody,
  idempotent: true,
  success: { status: 201, schema: Entity, description: 'the new entity, at version 1' },
  errors: [400, 402, 404, 409, 413, 415, 422],
  links: {
    ...linksTo(entityOperations, { id: '$request.path.id', entityId: '$response.body#/id' }),
    // The operations that name the entity in their body.
    createFactAbout: { operationId: 'createFact', parameters: { id: '$request.path.id' }, requestBody: { entity_id: '$response.body#/id' } },
    proposeAbout: { operationId: 'proposeCanon', parameters: { id: '$request.path.id' }, requestBody: { entity_id: '$response.body#/id' } },
  },
  operation: 'CreateEntity',
  errorPaths,
  variables: ({ params, body, idempotencyKey }) => ({ projectId: params.id, input: { key: body.key, ...inputOf(body) }, idempotencyKey }),
  respond: (data) => entityJson(data.entity as Record<string, unknown>),
};

export const readEntity: RouteDef = {
  method: 'get',
  path: '/projects/{id}/entities/{entityId}',
  operationId: 'readEntity',
  summary: 'Read an entity',
  description: 'Extension. The entity as recall shows it, with its key, its version (send it as expected_version when changing it) and its state as written: the timeless state and the timed state_changes.',
  scope: 'recall',
  cost: 1,
  params: entityPath,
  success: { status: 200, schema: Entity, description: 'the entity' },
  errors: [400, 402, 404],
  operation: 'ReadEntity',
  variables: ({ params }) => ({ projectId: params.id, entityId: params.entityId }),
  respond: (data) => entityJson(data.entity as Record<string, unknown>),
};

export const updateEntity: RouteDef = {
  method: 'patch',
  path: '/projects/{id}/entities/{entityId}',
  operationId: 'updateEntity',
  summary: 'Change an entity',
  description:
    'Extension. Changes the fields given (aliases and state_changes are replaced whole; state is merged, a key set to null is removed; confidence null clears it) and raises the version by one. With expected_version, an entity at another version is 409 version_conflict and nothing is written; without, the later of two writes wins whole. A new name or alias re-records the entity\'s mentions; one another entity has is 409 name_taken.',
  scope: 'remember',
  cost: 1,
  params: entityPath,
  body: updateEntityBody,
  success: { status: 200, schema: Entity, description: 'the entity as changed' },
  errors: [400, 402, 404, 409, 413, 415],
  operation: 'UpdateEntity',
  errorPaths,
  variables: ({ params, body }) => ({ projectId: params.id, entityId: params.entityId, input: { ...inputOf(body), expectedVersion: body.expected_version } }),
  respond: (data) => entityJson(data.entity as Record<string, unknown>),
};

export const deleteEntity: RouteDef = {
  method: 'delete',
  path: '/projects/{id}/entities/{entityId}',
  operationId: 'deleteEntity',
  summary: 'Delete an entity',
  description:
    'Extension. Deletes the entity with its facts, state values, mentions, relationships and conflict links; beats no longer name it. Proposals about it stay on record, without it.',
  scope: 'remember',
  cost: 1,
  params: entityPath,
  success: { status: 200, schema: Deleted, description: 'the id of the deleted entity' },
  errors: [400, 402, 404],
  operation: 'DeleteEntity',
  variables: ({ params }) => ({ projectId: params.id, entityId: params.entityId }),
  respond: (data) => data.deleted,
};
