// A root field declares its quota cost (`cost: n`); this plugin rate-limits the operation once, reserves the cost
// (at the same time) before the resolver runs (an idempotent field: when its resolver holds the Idempotency-Key) and
// refunds it when the resolver fails, so every surface (REST, MCP, /graphql) pays alike. A field that `readsCanon` has
// its project's canon version read in the same round trip.
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
      /** takes an Idempotency-Key and spends its cost through ctx.reservations once it holds the key */
      idempotent?: boolean;
      /**
       * answers at the canon version of its `projectId` argument (ctx.canonVersion): the version is read while the
       * request is admitted, in the same round trip
       */
      readsCanon?: boolean;
      /**
       * false: the field does not count against the per-minute rate limit (GET /usage, so a client can always see its
       * limits); an operation is still counted once when any other root field of it counts
       */
      rateLimited?: boolean;
      /**
       * the hottest operations (the writes of facts and states, search): on a surface that has the operation's input
       * checked before it runs (REST), its key, rate limit and quota are settled in one statement with the key, one for
       * the requests that arrived together (graph/executor.ts), not three round trips
       */
      admitsWithKey?: boolean;
      /**
       * with admitsWithKey: the resolver hands ctx.pipelined to its writer, which sends the admission in the write's own
       * round trip, ahead of it (a key admitted before in this process; graph/executor.ts)
       */
      admitsInWrite?: boolean;
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
    const { idempotent, readsCanon, rateLimited = true } = fieldConfig.pothosOptions as { idempotent?: boolean; readsCanon?: boolean; rateLimited?: boolean };
    return async (parent, args, context, info) => {
      const ctx = context as GraphContext;
      const principal = await ctx.principal();
      let refund: (() => Promise<void>) | undefined;
      // Reserved with the key before the operation ran (graph/executor.ts): spent, or refused, when it would be reserved.
      const admission = ctx.takeAdmitted();
      if (admission && 'pipelined' in admission) {
        // Admitted by the writer, with its write: counted and reserved there, the reservation back if the write fails.
        const { pipelined } = admission;
        ctx.pipelined = pipelined;
        if (idempotent) ctx.reservations.set(info.path.key, async () => undefined);
        try {
          return await resolver(parent, args, context, info);
        } catch (error) {
          await pipelined.refund();
          throw error;
        } finally {
          if (pipelined.rate) ctx.reportRateLimit(pipelined.rate);
        }
      }
      if (admission) await ctx.countRequest(); // a request over the rate limit fails here, nothing reserved
      const admitted = admission && 'reservation' in admission ? admission.reservation : undefined;
      if (idempotent) {
        // Reserving after the key is held makes a replay free, even one racing its first request for the last unit.
        await ctx.countRequest();
        ctx.reservations.set(info.path.key, async () => {
          refund = admitted ? spend(admitted) : await ctx.services.metering.reserve(principal, cost);
        });
      } else if (admitted) {
        refund = spend(admitted);
      } else {
        const { projectId } = args as { projectId?: unknown };
        if (readsCanon && typeof projectId === 'string') ctx.canonVersion(projectId);
        refund = await ctx.services.metering.admit(principal, cost, rateLimited ? ctx.countRequest : async () => undefined);
      }
      try {
        return await resolver(parent, args, context, info);
      } catch (error) {
        await refund?.();
        throw error;
      } finally {
        // An admitted reservation the resolver never took (it failed first) goes back.
        if (admitted && !refund && !(admitted instanceof Error)) await admitted().catch(() => undefined);
      }
    };
  }
}

/** An admitted reservation taken: its refund, or its refusal thrown. */
function spend(admitted: (() => Promise<void>) | Error): () => Promise<void> {
  if (admitted instanceof Error) throw admitted;
  return admitted;
}

SchemaBuilder.registerPlugin('metering', PothosMeteringPlugin);

export const meteringPlugin = 'metering' as const;
