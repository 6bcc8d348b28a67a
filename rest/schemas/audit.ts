// GET /audit (extension): the account's audit log, newest first.
import { z } from 'zod';
import { pageQuery } from '../schemas.ts';

export const auditQueryParams = z.object(pageQuery);

export const AuditEntry = z
  .object({
    id: z.string().meta({ description: 'newest entries have the greatest ids' }),
    key_id: z.string().optional().meta({ description: 'the key that wrote; absent for the operator (CLI key commands)' }),
    request_id: z.string().meta({ description: "the request's X-Request-Id; cli for the command line" }),
    operation: z.string().meta({ description: 'the GraphQL mutation (importBundle, approveFact, …) or keys.create, keys.rotate, keys.revoke' }),
    targets: z.array(z.string()).meta({ description: 'ids it touched: its id arguments, then ids in its answer (at most 50)' }),
    summary: z.record(z.string(), z.unknown()).meta({ description: 'its arguments without secrets; prose as its length, long text cut' }),
    created_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'AuditEntry' });

export const AuditList = z
  .object({ data: z.array(AuditEntry), has_more: z.boolean(), next_starting_after: z.string().optional() })
  .meta({ id: 'AuditList' });
