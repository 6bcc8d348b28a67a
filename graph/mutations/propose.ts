import { z } from 'zod';
import { proposeInput } from '../../src/core/canon/reviewRules.ts';
import { idempotencyKey, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { ProposeInput, ProposeResult } from '../types/ProposeResult.ts';

const proposeArgs = z.object({ projectId: resourceId, input: proposeInput, idempotencyKey: idempotencyKey.optional() });

/** GraphQL passes an input field given as null as null; the rules treat it as absent, as parseArgs does for arguments. */
const withoutNulls = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(withoutNulls)
    : value && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, withoutNulls(v)]))
      : value;

builder.mutationField('propose', (t) =>
  t.field({
    type: ProposeResult,
    description:
      'Proposes canon for review: suggested facts about a known entity (each with its own pending candidate), or a new suggested entity with its aliases and facts (one pending candidate of kind entity). With approve, what it records is approved at once, by the same key.',
    authScopes: { scope: 'remember' },
    cost: 1,
    idempotent: true,
    args: {
      projectId: t.arg.id({ required: true }),
      input: t.arg({ type: ProposeInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: async (_root, rawArgs, ctx, info) => {
      const args = parseArgs(proposeArgs, { ...rawArgs, input: withoutNulls(rawArgs.input) });
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return ctx.services.idempotency.run(
        { accountId: principal.accountId, operation: 'propose', key: args.idempotencyKey },
        { projectId: args.projectId, input: args.input },
        ctx.reservations.get(info.path.key)!,
        () => ctx.services.review.propose(args.projectId, principal.keyId, args.input),
      );
    },
  }),
);
