import { z } from 'zod';
import { fileBytes, manuscriptFiles, manuscriptFormat, manuscriptOptions } from '../../src/core/ingest/manuscripts/rules.ts';
import { newProjectScope } from '../../src/core/access/tiers.ts';
import { key } from '../../src/core/ingest/bundle.ts';
import { idempotencyKey, projectName, resourceId, text } from '../../src/core/validation.ts';
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
  source: text().trim().min(1).max(200).optional(),
  after: key.optional(),
  dryRun: z.boolean().default(false),
  idempotencyKey: idempotencyKey.optional(),
});

/** GraphQL passes an input field given as null as null; the rules treat it as absent. */
const withoutNulls = (value: unknown) => (value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null)) : value);

builder.mutationField('importManuscript', (t) =>
  t.field({
    type: ManuscriptImportResult,
    description:
      "Imports a manuscript as the writer keeps it (Markdown, a folder of Markdown files, Word .docx, a Scrivener 3 project, an Obsidian vault), sent as its files. Chapters keep a stable id per source, so importing it again changes nothing and an edited chapter updates only itself (and only its mentions). Each chapter records its source (the manuscript's name), so with sync only the chapters this manuscript brought and no longer has are removed (refused, writing nothing, while facts hold from or until one), never those of a bundle, the API or another manuscript. The manuscript's chapters take one run of the reading order: after the project's other chapters when new, where they were on a later import, or after the chapter named by after. Text before the first chapter heading is front matter, not a chapter. dryRun answers the same without writing. A manuscript with problems is refused whole, each problem naming its file and line. One that would cost more than an import may (a .docx holding over 5,000 entries or inflating past 128 MB, or more memory or time to read than the server allows) is refused with payload_too_large, in one line naming the file and the limit.",
    authScopes: { scope: 'remember' },
    cost: 1,
    idempotent: true,
    args: {
      projectId: t.arg.id({ description: "the project; absent: the account's project named name, created if needed (creating one needs the projects:write scope)" }),
      name: t.arg.string({ description: "the project's name when projectId is absent (default: the manuscript's own title, else Manuscript)" }),
      format: t.arg({ type: ManuscriptFormat, required: true }),
      files: t.arg({ type: [ManuscriptFileInput], required: true, description: 'the manuscript files (pass them as a variable)' }),
      options: t.arg({ type: ManuscriptOptionsInput }),
      sync: t.arg.boolean({ description: 'also remove the chapters this manuscript brought before and no longer has (default false)' }),
      source: t.arg.string({ description: "the manuscript's name in the project, which its chapters record (default: the file's name for markdown and docx, else the format; lore sends the file's or folder's name)" }),
      after: t.arg.string({ description: "put the manuscript's chapters right after this chapter of another source (default: where they are, else after every other chapter)" }),
      dryRun: t.arg.boolean({ description: 'answer what the import would add, change and remove, writing nothing (default false)' }),
      idempotencyKey: t.arg.string(),
    },
    resolve: async (_root, rawArgs, ctx, info) => {
      const files = Array.isArray(rawArgs.files) ? rawArgs.files.map(withoutNulls) : rawArgs.files;
      const args = parseArgs(importManuscriptArgs, { ...rawArgs, files, options: withoutNulls(rawArgs.options) ?? undefined });
      const principal = await ctx.principal();
      if (args.projectId) await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      const request = { projectId: args.projectId, name: args.name, format: args.format, files: args.files, options: args.options, sync: args.sync, source: args.source, after: args.after, dryRun: args.dryRun };
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
