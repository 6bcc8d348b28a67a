import { z } from 'zod';
import { entityNotFound, projectNotFound } from '../../src/core/canon/projects.ts';
import { chapterRef, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { Entity } from '../types/Entity.ts';

const entityArgs = z.object({ projectId: resourceId, entityId: resourceId, asOf: chapterRef.optional() });

builder.queryField('entity', (t) =>
  t.field({
    type: Entity,
    description: 'One entity of a project, with its facts.',
    authScopes: { scope: 'recall' },
    cost: 1,
    admitsWithKey: true,
    args: {
      projectId: t.arg.id({ required: true }),
      entityId: t.arg.id({ required: true }),
      asOf: t.arg.string({ description: 'a chapter id: currentState, approvedFacts and suggestedFacts as of that chapter; without it, the latest' }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(entityArgs, rawArgs);
      const principal = await ctx.principal();
      const found = await ctx.services.entities.byIds(principal.accountId, args.projectId, [args.entityId], undefined, args.asOf);
      if (!found) throw projectNotFound(args.projectId);
      if (found.length === 0) throw entityNotFound(args.projectId, args.entityId);
      return found[0];
    },
  }),
);
