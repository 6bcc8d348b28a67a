import type { RouteDef } from '../route.ts';
import { projectPath } from '../schemas.ts';
import { CanonBundle } from '../schemas/export.ts';

/** The project name as an ASCII file name: accents dropped, lower case, anything else a dash. */
export function bundleFileName(projectName: string): string {
  const slug = projectName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 80)
    .replace(/^-+|-+$/g, '');
  return `${slug || 'project'}.lore.json`;
}

export const exportProject: RouteDef = {
  method: 'get',
  path: '/projects/{id}/export',
  operationId: 'exportProject',
  summary: 'Export a project as a canon bundle',
  description:
    'Extension. The project in the import format (lore import, GraphQL importBundle): entities by key with their timeless state, timed state changes and live facts (their from, until and status; a plain string is a timeless fact with the entity\'s status), relationships, chapters in reading order with their text, and the beats each chapter\'s timeline shows. Empty fields are left out. Importing it into an empty project and exporting that gives the same bundle.',
  scope: 'recall',
  cost: 1,
  params: projectPath,
  success: { status: 200, schema: CanonBundle, description: 'the bundle, as a file to save' },
  errors: [400, 402, 404],
  operation: 'ExportProject',
  keepNulls: true,
  headers: {
    'Content-Disposition': {
      description: 'attachment; filename="<the project name in lower case, words joined by dashes>.lore.json"',
      value: (data) => `attachment; filename="${bundleFileName((data.bundle as { project: { name: string } }).project.name)}"`,
    },
  },
  variables: ({ params }) => ({ projectId: params.id }),
  respond: (data) => data.bundle,
};
