import { linksTo, type RouteDef } from '../route.ts';
import { entityOperations } from './entities.ts';
import { entityPath, MentionsEnvelope, projectPath, RecallResponse, recallQueryParams, mentionsQueryParams } from '../schemas.ts';

export const recall: RouteDef = {
  method: 'get',
  path: '/projects/{id}/recall',
  operationId: 'recall',
  summary: 'Recall canon entities',
  description:
    'Entities by name, optionally filtered by q on name or alias, each with its current state, latest mentions, pending conflicts, and (extension) approved and suggested facts. Extension as_of (a chapter id): the state, facts and latest mentions as they stand at that chapter (mentions up to it in reading order); an unknown chapter is a 400 naming as_of; with as_of, each character also says what it knows there and what the reader knows that it does not know yet (knowledge: secret or restricted facts, see GET /projects/{id}/entities/{entityId}/knowledge).',
  scope: 'recall',
  cost: 1,
  params: projectPath,
  query: recallQueryParams,
  success: { status: 200, schema: RecallResponse, description: 'matching entities' },
  errors: [400, 402, 404],
  links: {
    ...linksTo(entityOperations, { id: '$request.path.id', entityId: '$response.body#/entities/0/id' }),
    // The operations that name entities in their body.
    createFactAbout: { operationId: 'createFact', parameters: { id: '$request.path.id' }, requestBody: { entity_id: '$response.body#/entities/0/id' } },
    relateFirstTwo: {
      operationId: 'createRelationship',
      parameters: { id: '$request.path.id' },
      requestBody: { from: '$response.body#/entities/0/id', to: '$response.body#/entities/1/id' },
    },
  },
  operation: 'Recall',
  cacheable: true,
  variables: ({ params, query }) => ({ projectId: params.id, q: query.q, limit: query.limit, asOf: query.as_of, knowledge: query.as_of !== undefined }),
  respond: (data) => data,
};

export const mentions: RouteDef = {
  method: 'get',
  path: '/projects/{id}/recall/{entityId}/mentions',
  operationId: 'listMentions',
  summary: 'List the mentions of an entity',
  description: 'In reading order (chapter ordinal, then line). Each item: id, chapter, line (1-based), snippet, timestamp.',
  scope: 'recall',
  cost: 1,
  params: entityPath,
  query: mentionsQueryParams,
  success: { status: 200, schema: MentionsEnvelope, description: 'a page of mentions' },
  errors: [400, 402, 404],
  operation: 'Mentions',
  variables: ({ params, query }) => ({ projectId: params.id, entityId: params.entityId, limit: query.limit, startingAfter: query.starting_after }),
  respond: (data) => data.page,
};
