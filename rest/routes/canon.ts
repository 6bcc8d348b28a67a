import type { RouteDef } from '../route.ts';
import { approveBody, ApproveResult, entityPath } from '../schemas.ts';

export const approve: RouteDef = {
  method: 'post',
  path: '/projects/{id}/canon/{entityId}/approve',
  operationId: 'approveFact',
  summary: 'Approve a canon fact',
  description:
    'Approves the entity into the canon and, when fact is given, adds that fact as approved canon. The proposal (candidate) and the decision are recorded with the key, the time, the fact and its source content. The body is optional. Supports Idempotency-Key.',
  scope: 'remember',
  cost: 1,
  params: entityPath,
  body: approveBody,
  bodyOptional: true,
  idempotent: true,
  success: { status: 200, schema: ApproveResult, description: 'the decision' },
  errors: [400, 402, 404, 409, 413, 415, 422],
  operation: 'ApproveFact',
  variables: ({ params, body, idempotencyKey }) => ({ projectId: params.id, entityId: params.entityId, fact: body.fact, content: body.content, idempotencyKey }),
  respond: (data) => data.approval,
};
