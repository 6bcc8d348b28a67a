import { z } from 'zod';
import { newProjectScope } from '../../src/core/access/tiers.ts';
import { projectNotFound } from '../../src/core/canon/projects.ts';
import { idempotencyKey, initialScope, projectDescription, projectName } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { Project } from '../types/Project.ts';

const createProjectArgs = z.object({ input: z.object({ name: projectName, description: projectDescription.nullish(), initialScope: initialScope.nullish() }), idempotencyKey: idempotencyKey.optional() });

const CreateProjectInput = builder.inputType('CreateProjectInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'at most 80 characters' }),
    description: t.string(),
    initialScope: t.string(),
  }),
});

builder.mutationField('createProject', (t) =>
  t.prismaField({
    type: Project,
    description: 'Creates a project. With an idempotency key, a repeat of the same request within 24 hours returns the first project (not_found once that project is deleted).',
    authScopes: { scope: newProjectScope },
    cost: 1,
    idempotent: true,
    args: {
      input: t.arg({ type: CreateProjectInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: async (query, _root, rawArgs, ctx, info) => {
      const args = parseArgs(createProjectArgs, rawArgs);
      const principal = await ctx.principal();
      const input = { name: args.input.name, description: args.input.description ?? undefined, initialScope: args.input.initialScope ?? undefined };
      const created = await ctx.services.idempotency.run(
        { accountId: principal.accountId, operation: 'createProject', key: args.idempotencyKey },
        input,
        ctx.reservations.get(info.path.key)!,
        () => ctx.services.projects.create(principal.accountId, input),
      );
      // A replay after the project was deleted has no project to answer with: 404, as any write to it would be.
      const project = await ctx.services.prisma.project.findUnique({ ...query, where: { id: created.id } });
      if (!project) throw projectNotFound(created.id);
      return project;
    },
  }),
);
