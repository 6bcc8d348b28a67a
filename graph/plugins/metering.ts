// A root field declares its quota cost (`cost: n`); this plugin rate-limits the operation once, reserves the cost
// before the resolver runs and refunds it when the resolver fails, so every surface (REST, MCP, /graphql) pays alike.
import SchemaBuilder, {
  BasePlugin,
  type FieldKind,
  type FieldNullability,
  type InputFieldMap,
  type PothosOutputFieldConfig,
  type SchemaTypes,
  type TypeParam,
} from '@pothos/core';
import type { GraphQLFieldResolver } from 'graphql';
import { LoreError } from '../../src/core/errors.ts';
import type { GraphContext } from '../context.ts';

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      metering: PothosMeteringPlugin<Types>;
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
      /** quota calls this root field consumes */
      cost?: number;
    }
  }
}

export class PothosMeteringPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    const cost = (fieldConfig.pothosOptions as { cost?: number }).cost;
    if (cost === undefined) {
      if (fieldConfig.kind === ('Query' satisfies FieldKind) || fieldConfig.kind === 'Mutation') {
        throw new Error(`root field ${fieldConfig.name} must declare its cost`);
      }
      return resolver;
    }
    return async (parent, args, context, info) => {
      const ctx = context as GraphContext;
      const principal = await ctx.principal();
      await ctx.countRequest();
      let refund: () => Promise<void>;
      try {
        refund = await ctx.services.metering.reserve(principal, cost);
      } catch (error) {
        // A replay costs nothing, so a request with an Idempotency-Key may still get its stored response.
        if (!(error instanceof LoreError && error.code === 'quota_exceeded' && (args as { idempotencyKey?: unknown }).idempotencyKey)) throw error;
        ctx.quotaRefused.set(info.path.key, error);
        return resolver(parent, args, context, info);
      }
      try {
        const result = await resolver(parent, args, context, info);
        if (ctx.costWaived.has(info.path.key)) await refund();
        return result;
      } catch (error) {
        await refund();
        throw error;
      }
    };
  }
}

SchemaBuilder.registerPlugin('metering', PothosMeteringPlugin);

export const meteringPlugin = 'metering' as const;
