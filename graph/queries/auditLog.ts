import { z } from 'zod';
import { cursor, defaultPageLimit, pageLimit } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { AuditPage } from '../types/AuditEntry.ts';

const auditLogArgs = z.object({ limit: pageLimit.default(defaultPageLimit), startingAfter: cursor.optional() });

builder.queryField('auditLog', (t) =>
  t.field({
    type: AuditPage,
    description: "The caller's account's audit log, newest first, a page at a time: every write and key change.",
    authScopes: { scope: 'audit:read' },
    cost: 0,
    args: {
      limit: t.arg.int({ description: `1..100, default ${defaultPageLimit}` }),
      startingAfter: t.arg.string({ description: 'the last id of the previous page' }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(auditLogArgs, rawArgs);
      const principal = await ctx.principal();
      return ctx.services.audit.list(principal.accountId, args.limit, args.startingAfter);
    },
  }),
);
