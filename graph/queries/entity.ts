import { resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { Entity } from '../types/Entity.ts';

builder.queryField('entity', (t) =>
  t.prismaField({
    type: Entity,
    description: 'One entity of a project, with its facts.',
    authScopes: { scope: 'recall' },
    cost: 1,
    args: { projectId: t.arg.id({ required: true }), entityId: t.arg.id({ required: true }) },
    resolve: async (query, _root, rawArgs, ctx) => {
      const args = parseArgs({ projectId: resourceId, entityId: resourceId }, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      await ctx.services.projects.requireEntity(args.projectId, args.entityId);
      return ctx.services.prisma.entity.findUniqueOrThrow({ ...query, where: { id: args.entityId } });
    },
  }),
);
