import { builder } from '../builder.ts';
import { Project } from '../types/Project.ts';

builder.queryField('projects', (t) =>
  t.prismaField({
    type: [Project],
    description: "The current key's account's projects, oldest first.",
    authScopes: { scope: 'projects:read' },
    cost: 0,
    resolve: async (query, _root, _args, ctx) => {
      const principal = await ctx.principal();
      return ctx.services.prisma.project.findMany({ ...query, where: { accountId: principal.accountId }, orderBy: { id: 'asc' } });
    },
  }),
);
