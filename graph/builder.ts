// The one Pothos builder. Plugin order is deliberate: scope-auth first so no resolver (or quota spend) runs for a
// caller without the scope; prisma to plan relation loading from the selection set (no N+1); dataloader to batch the
// fields Prisma does not plan (an entity's facts) into one query per request; metering next so the quota is reserved
// only around the resolver itself; audit innermost, so it records a mutation only once its resolver has succeeded.
import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import PrismaPlugin from '@pothos/plugin-prisma';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { GraphQLError } from 'graphql';
import { LoreError, storeUnavailable } from '../src/core/errors.ts';
import { isStoreUnreachable } from '../src/db/unavailable.ts';
import type PrismaTypes from '../src/generated/pothos-types.ts';
import { getDatamodel } from '../src/generated/pothos-types.ts';
import type { GraphContext } from './context.ts';
import { auditPlugin } from './plugins/audit.ts';
import { meteringPlugin } from './plugins/metering.ts';

export const builder = new SchemaBuilder<{
  Context: GraphContext;
  PrismaTypes: PrismaTypes;
  AuthScopes: { scope: string; authenticated: boolean };
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [ScopeAuthPlugin, PrismaPlugin, DataloaderPlugin, meteringPlugin, auditPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    authScopes: async (ctx) => {
      try {
        const principal = await ctx.principal();
        // A method: an arrow here would be named with a defineProperty call on each request (tsx, esbuild's keepNames).
        return {
          authenticated: true,
          scope(scope: string) {
            return principal.scopes.has(scope);
          },
        };
      } catch (error) {
        // Recorded on the resolvers' context: Yoga hands them a copy of the object createContext built. Only a key's
        // own failure is one: a store that cannot be reached says so, and anything else is unexpected (masked, logged),
        // never reported as a missing scope.
        if (error instanceof LoreError) ctx.authFailure = error;
        else if (isStoreUnreachable(error)) ctx.authFailure = storeUnavailable();
        else throw error;
        return { authenticated: false, scope: false };
      }
    },
    unauthorizedError: (_parent, ctx, info) =>
      ctx.authFailure ??
      new LoreError('insufficient_scope', `This API key lacks the scope ${requiredScope(info.parentType.getFields()[info.fieldName]?.extensions)} needed for ${info.fieldName}.`),
  },
  prisma: {
    client: (ctx) => ctx.services.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: true,
  },
});

function requiredScope(extensions: unknown): string {
  const scopes = (extensions as { pothosOptions?: { authScopes?: { scope?: string } } } | undefined)?.pothosOptions?.authScopes;
  return scopes?.scope ?? 'required';
}

builder.queryType({});
builder.mutationType({});

builder.scalarType('DateTime', {
  serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
  parseValue: (value) => {
    const date = new Date(String(value));
    if (Number.isNaN(date.getTime())) throw new GraphQLError('DateTime must be an ISO 8601 date-time');
    return date;
  },
});

builder.scalarType('JSON', {
  description: 'Any JSON value',
  serialize: (value) => value,
  parseValue: (value) => value,
});
