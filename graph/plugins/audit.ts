// Every Mutation root field is a write, so each one that succeeds is recorded in its account's audit log (which key,
// which request, the field, the ids it touched, a secret-free summary of its arguments): in the write's own
// transaction where its writer records it there (src/core/audit/inTransaction.ts), else right after its resolver, in
// the same request; a mutation that does not write opts out with `audit: false`. A failed mutation records nothing.
// After the resolver the write has committed, so an entry that cannot be stored is logged, not turned into an error.
import SchemaBuilder, {
  BasePlugin,
  type FieldNullability,
  type InputFieldMap,
  type PothosOutputFieldConfig,
  type SchemaTypes,
  type TypeParam,
} from '@pothos/core';
import type { GraphQLFieldResolver } from 'graphql';
import type { AuditRecord } from '../../src/core/audit/auditLog.ts';
import { auditSummary, auditTargets } from '../../src/core/audit/describe.ts';
import type { PendingAudit } from '../../src/core/audit/inTransaction.ts';
import type { GraphContext } from '../context.ts';

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      audit: PothosAuditPlugin<Types>;
    }
    export interface FieldOptions<
      Types extends SchemaTypes,
      ParentShape,
      Type extends TypeParam<Types>,
      Nullable extends FieldNullability<Type>,
      Args extends InputFieldMap,
      ResolveShape,
      ResolveReturnShape,
    > {
      /** false: a Mutation root field that writes nothing, so it is left out of the audit log */
      audit?: false;
    }
  }
}

export class PothosAuditPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    const { audit, idempotent } = fieldConfig.pothosOptions as { audit?: false; idempotent?: boolean };
    if (fieldConfig.kind !== 'Mutation' || audit === false) return resolver;
    const operation = fieldConfig.name;
    return async (parent, args, context, info) => {
      const ctx = context as GraphContext;
      // An idempotent field spends its reservation only when it does the work (graph/context.ts): a replay of the
      // first response writes nothing, so it is not recorded again.
      let worked = !idempotent;
      const reserve = ctx.reservations.get(info.path.key);
      if (idempotent && reserve) {
        ctx.reservations.set(info.path.key, async () => {
          worked = true;
          await reserve();
        });
      }
      const principal = await ctx.principal();
      const pending: PendingAudit = {
        recorded: false,
        entry: (answer) => entryFor(ctx, principal, operation, args as Record<string, unknown>, answer),
      };
      // For the resolver to hand to its writer (mutations run one at a time, so one field of the context holds it).
      ctx.audit = pending;
      let result: unknown;
      try {
        result = await resolver(parent, args, context, info);
      } finally {
        ctx.audit = undefined;
      }
      if (worked && !pending.recorded) await record(ctx, principal, operation, args as Record<string, unknown>, result);
      return result;
    };
  }
}

type Principal = Awaited<ReturnType<GraphContext['principal']>>;

const entryFor = (ctx: GraphContext, principal: Principal, operation: string, args: Record<string, unknown>, answer: unknown): AuditRecord => ({
  accountId: principal.accountId,
  keyId: principal.keyId,
  requestId: ctx.requestId,
  operation,
  targets: auditTargets(args, answer),
  summary: auditSummary(args),
});

async function record(ctx: GraphContext, principal: Principal, operation: string, args: Record<string, unknown>, result: unknown): Promise<void> {
  try {
    await ctx.services.audit.record(entryFor(ctx, principal, operation, args, result));
  } catch (error) {
    ctx.services.logger.error({ err: error, requestId: ctx.requestId, operation }, 'audit entry not recorded');
  }
}

SchemaBuilder.registerPlugin('audit', PothosAuditPlugin);

export const auditPlugin = 'audit' as const;
