import { z } from 'zod';
import { newProjectScope } from '../../src/core/access/tiers.ts';
import { resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { ImportResult } from '../types/ImportResult.ts';

const importBundleArgs = z.object({ bundle: z.unknown(), projectId: resourceId.optional() });

builder.mutationField('importBundle', (t) =>
  t.field({
    type: ImportResult,
    description:
      "Imports a canon bundle (project, entities, relationships, chapters, timeline). Without projectId it lands in the account's project of the bundle's name, created if needed (creating one needs the projects:write scope, as createProject does). Importing the same bundle again changes nothing; a bundle with errors is rejected whole.",
    authScopes: { scope: 'remember' },
    cost: 1,
    args: {
      bundle: t.arg({ type: 'JSON', required: true }),
      projectId: t.arg.id(),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(importBundleArgs, rawArgs);
      const principal = await ctx.principal();
      return ctx.services.importer.import({
        accountId: principal.accountId,
        principalKeyId: principal.keyId,
        bundle: args.bundle,
        projectId: args.projectId,
        mayCreateProject: principal.scopes.has(newProjectScope),
      });
    },
  }),
);
