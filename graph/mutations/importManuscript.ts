import { z } from 'zod';
import { fileBytes, manuscriptFiles, manuscriptFormat, manuscriptOptions } from '../../src/core/ingest/manuscripts/rules.ts';
import { newProjectScope } from '../../src/core/access/tiers.ts';
import { idempotencyKey, projectName, resourceId } from '../../src/core/validation.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { ManuscriptFileInput, ManuscriptFormat, ManuscriptImportResult, ManuscriptOptionsInput } from '../types/ManuscriptImportResult.ts';

const importManuscriptArgs = z.object({
  projectId: resourceId.optional(),
  name: projectName.optional(),
  format: manuscriptFormat,
  files: manuscriptFiles,
  options: manuscriptOptions.default({}),
  sync: z.boolean().default(false),
  idempotencyKey: idempotencyKey.optional(),
});

/** GraphQL passes an input field given as null as null; the rules treat it as absent. */
const withoutNulls = (value: unknown) => (value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null)) : value);

builder.mutationField('importManuscript', (t) =>
  t.field({
    type: ManuscriptImportResult,
    description:
      "Imports a manuscript as the writer keeps it (Markdown, a folder of Markdown files, Word .docx, a Scrivener 3 project, an Obsidian vault), sent as its files. Chapters keep a stable id per source, so importing it again changes nothing and an edited chapter updates only itself (and only its mentions). With sync, the project's chapters the manuscript no longer has are removed (refused, writing nothing, while facts hold from or until one). A manuscript with problems is refused whole, each problem naming its file and line. One that would cost more than an import may (a .docx holding over 5,000 entries or inflating past 128 MB, or more memory or time to read than the server allows) is refused with payload_too_large, in one line naming the file and the limit.",
    authScopes: { scope: 'remember' },
    cost: 1,
    idempotent: true,
    args: {
      projectId: t.arg.id({ description: "the project; absent: the account's project named name, created if needed (creating one needs the projects:write scope)" }),
      name: t.arg.string({ description: "the project's name when projectId is absent (default: the manuscript's own title, else Manuscript)" }),
      format: t.arg({ type: ManuscriptFormat, required: true }),
      files: t.arg({ type: [ManuscriptFileInput], required: true, description: 'the manuscript files (pass them as a variable)' }),
      options: t.arg({ type: ManuscriptOptionsInput }),
      sync: t.arg.boolean({ description: "also remove the project's chapters the manuscript does not have (default false)" }),
      idempotencyKey: t.arg.string(),
    },
    resolve: async (_root, rawArgs, ctx, info) => {
      const files = Array.isArray(rawArgs.files) ? rawArgs.files.map(withoutNulls) : rawArgs.files;
      const args = parseArgs(importManuscriptArgs, { ...rawArgs, files, options: withoutNulls(rawArgs.options) ?? undefined });
      const principal = await ctx.principal();
      if (args.projectId) await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      const request = { projectId: args.projectId, name: args.name, format: args.format, files: args.files, options: args.options, sync: args.sync };
      return ctx.services.idempotency.run(
        { accountId: principal.accountId, operation: 'importManuscript', key: args.idempotencyKey },
        request,
        ctx.reservations.get(info.path.key)!,
        () =>
          ctx.services.manuscripts.import({
            ...request,
            accountId: principal.accountId,
            keyId: principal.keyId,
            mayCreateProject: principal.scopes.has(newProjectScope),
            files: args.files.map((f) => ({ path: f.path, content: fileBytes(f) })),
          }),
      );
    },
  }),
);
