import { z } from 'zod';
import { newProjectScope } from '../../src/core/access/tiers.ts';
import { resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { ImportResult } from '../types/ImportResult.ts';

const importBundleArgs = z.object({ bundle: z.unknown(), projectId: resourceId.optional(), reinstateRetired: z.boolean().nullish() });

builder.mutationField('importBundle', (t) =>
  t.field({
    type: ImportResult,
    description:
      "Imports a canon bundle (project, entities, relationships, chapters, timeline). Without projectId it lands in the account's project of the bundle's name, created if needed (creating one needs the projects:write scope, as createProject does). Importing the same bundle again changes nothing; a bundle with errors is rejected whole. A fact the project retired since (a retcon) stays retired and is listed in retiredFactsSkipped, unless reinstateRetired. Each chapter ordinal holds one chapter in a project: a bundle that would put two chapters on one is refused.",
    authScopes: { scope: 'remember' },
    cost: 1,
    args: {
      bundle: t.arg({ type: 'JSON', required: true }),
      projectId: t.arg.id(),
      reinstateRetired: t.arg.boolean({ description: 'write again the facts the project retired since (default false: they stay retired)' }),
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
        how: { reinstateRetired: args.reinstateRetired ?? false },
      });
    },
  }),
);
