import type { RouteDef } from '../route.ts';
import { auditQueryParams, AuditList } from '../schemas/audit.ts';

export const auditLog: RouteDef = {
  method: 'get',
  path: '/audit',
  operationId: 'listAuditLog',
  summary: "List the account's audit log",
  description:
    "Extension. Every write by the account's keys (imports, authoring, approvals and rejections, conflict checks and resolutions) and every key created, rotated or revoked, newest first: the key, the request id, the operation, the ids it touched and a summary of its arguments without secrets.",
  scope: 'audit:read',
  cost: 0,
  query: auditQueryParams,
  success: { status: 200, schema: AuditList, description: 'a page of audit entries' },
  errors: [400],
  operation: 'AuditLog',
  variables: ({ query }) => ({ limit: query.limit, startingAfter: query.starting_after }),
  respond: (data) => data.page,
};
