// Relationships (extension): create, change and delete.
import { linksTo, type RouteDef } from '../route.ts';
import { projectPath } from '../schemas.ts';
import { createRelationshipBody, Deleted, Relationship, relationshipPath, updateRelationshipBody } from '../schemas/authoring.ts';

// The core names the GraphQL input's fields; these routes' clients sent the body's.
const errorPaths = { input: 'body' };

export const createRelationship: RouteDef = {
  method: 'post',
  path: '/projects/{id}/relationships',
  operationId: 'createRelationship',
  summary: 'Create a relationship',
  description:
    'Extension. Relates two entities of the project: from is kind of to (for example sibling_of), with a weight (default 1). An unknown entity is 404 naming the field; the same from, to and kind twice is 409 already_exists. Supports Idempotency-Key.',
  scope: 'remember',
  cost: 1,
  params: projectPath,
  body: createRelationshipBody,
  idempotent: true,
  success: { status: 201, schema: Relationship, description: 'the new relationship' },
  errors: [400, 402, 404, 409, 413, 415, 422],
  links: linksTo(['updateRelationship', 'deleteRelationship'], { id: '$request.path.id', relationshipId: '$response.body#/id' }),
  operation: 'CreateRelationship',
  errorPaths,
  variables: ({ params, body, idempotencyKey }) => ({ projectId: params.id, input: { from: body.from, to: body.to, kind: body.kind, weight: body.weight }, idempotencyKey }),
  respond: (data) => data.relationship,
};

export const updateRelationship: RouteDef = {
  method: 'patch',
  path: '/projects/{id}/relationships/{relationshipId}',
  operationId: 'updateRelationship',
  summary: 'Change a relationship',
  description: 'Extension. Changes the kind or the weight; a kind the same two entities already have is 409 already_exists.',
  scope: 'remember',
  cost: 1,
  params: relationshipPath,
  body: updateRelationshipBody,
  success: { status: 200, schema: Relationship, description: 'the relationship as changed' },
  errors: [400, 402, 404, 409, 413, 415],
  operation: 'UpdateRelationship',
  errorPaths,
  variables: ({ params, body }) => ({ projectId: params.id, relationshipId: params.relationshipId, input: { kind: body.kind, weight: body.weight } }),
  respond: (data) => data.relationship,
};

export const deleteRelationship: RouteDef = {
  method: 'delete',
  path: '/projects/{id}/relationships/{relationshipId}',
  operationId: 'deleteRelationship',
  summary: 'Delete a relationship',
  description: 'Extension. Deletes the relationship.',
  scope: 'remember',
  cost: 1,
  params: relationshipPath,
  success: { status: 200, schema: Deleted, description: 'the id of the deleted relationship' },
  errors: [400, 402, 404],
  operation: 'DeleteRelationship',
  variables: ({ params }) => ({ projectId: params.id, relationshipId: params.relationshipId }),
  respond: (data) => data.deleted,
};
