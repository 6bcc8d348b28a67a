import { z } from 'zod';
import { resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';

const exportProjectArgs = z.object({ projectId: resourceId });

builder.queryField('exportProject', (t) =>
  t.field({
    type: 'JSON',
    description:
      'The project as a canon bundle in the import format: the project, entities (base state, timed state changes, live facts with their story time and status), relationships, chapters and timeline beats. Importing it into an empty project and exporting that gives the same bundle.',
    authScopes: { scope: 'recall' },
    cost: 1,
    args: { projectId: t.arg.id({ required: true }) },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(exportProjectArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      return ctx.services.exporter.export(args.projectId);
    },
  }),
);
