// Every Mutation root field is a write, so each one that succeeds is recorded in its account's audit log (which key,
// which request, the field, the ids it touched, a secret-free summary of its arguments) right after its resolver,
// in the same request; a mutation that does not write opts out with `audit: false`. A failed mutation records
// nothing. The write has committed by then, so an entry that cannot be stored is logged, not turned into an error.
import SchemaBuilder, {
  BasePlugin,
  type FieldNullability,
  type InputFieldMap,
  type PothosOutputFieldConfig,
  type SchemaTypes,
  type TypeParam,
} from '@pothos/core';
import type { GraphQLFieldResolver } from 'graphql';
import { auditSummary, auditTargets } from '../../src/core/audit/describe.ts';
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
      const result = await resolver(parent, args, context, info);
      if (worked) await record(ctx, operation, args as Record<string, unknown>, result);
      return result;
    };
  }
}

async function record(ctx: GraphContext, operation: string, args: Record<string, unknown>, result: unknown): Promise<void> {
  try {
    const principal = await ctx.principal();
    await ctx.services.audit.record({
      accountId: principal.accountId,
      keyId: principal.keyId,
      requestId: ctx.requestId,
      operation,
      targets: auditTargets(args, result),
      summary: auditSummary(args),
    });
  } catch (error) {
    ctx.services.logger.error({ err: error, requestId: ctx.requestId, operation }, 'audit entry not recorded');
  }
}

SchemaBuilder.registerPlugin('audit', PothosAuditPlugin);

export const auditPlugin = 'audit' as const;
