import type { AuditItem } from '../../src/core/audit/auditLog.ts';
import type { Page } from '../../src/core/canon/canon.ts';
import { builder } from '../builder.ts';

export const AuditEntry = builder.objectRef<AuditItem>('AuditEntry').implement({
  description: 'One recorded write: who made it, in which request, what it touched.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'newest entries have the greatest ids' }),
    keyId: t.exposeString('keyId', { nullable: true, description: 'the key that wrote; null for the operator (CLI key commands)' }),
    requestId: t.exposeString('requestId', { description: "the request's X-Request-Id; cli for the command line" }),
    operation: t.exposeString('operation', { description: 'the mutation (importBundle, approveFact, …) or keys.create, keys.rotate, keys.revoke' }),
    targets: t.exposeStringList('targets', { description: 'ids it touched: its id arguments, then ids in its answer (at most 50)' }),
    summary: t.field({ type: 'JSON', description: 'its arguments, without secrets; prose as its length, long text cut', resolve: (e) => e.summary }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const AuditPage = builder.objectRef<Page<AuditItem>>('AuditPage').implement({
  fields: (t) => ({
    data: t.field({ type: [AuditEntry], description: 'newest first', resolve: (page) => page.data }),
    hasMore: t.exposeBoolean('hasMore'),
    nextStartingAfter: t.exposeString('nextStartingAfter', { nullable: true }),
  }),
});
