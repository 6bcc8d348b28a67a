import { linksTo, type RouteDef } from '../route.ts';
import { createProjectBody, CreatedProject, ProjectList, projectPath } from '../schemas.ts';
import { Deleted } from '../schemas/authoring.ts';

/** What takes a project id: `id` is where the answer holds it. */
const projectLinks = (id: string) =>
  linksTo(
    ['recall', 'searchCanon', 'readGraph', 'exportProject', 'listCandidates', 'proposeCanon', 'createEntity', 'createRelationship', 'createFact', 'listChapters', 'putChapter', 'deleteProject'],
    { id },
  );

export const listProjects: RouteDef = {
  method: 'get',
  path: '/projects',
  operationId: 'listProjects',
  summary: 'List the projects of the current key',
  scope: 'projects:read',
  cost: 0,
  success: { status: 200, schema: ProjectList, description: 'the projects, oldest first' },
  errors: [],
  links: projectLinks('$response.body#/data/0/id'),
  operation: 'ListProjects',
  variables: () => ({}),
  respond: (data) => data,
};

export const createProject: RouteDef = {
  method: 'post',
  path: '/projects',
  operationId: 'createProject',
  summary: 'Create a project',
  description:
    'With an Idempotency-Key header, the same key and body within 24 hours return the first response (404 not_found once that project is deleted); the same key with another body is refused (422).',
  scope: 'projects:write',
  cost: 1,
  body: createProjectBody,
  idempotent: true,
  success: { status: 201, schema: CreatedProject, description: 'the new project' },
  errors: [400, 402, 404, 409, 413, 415, 422],
  links: projectLinks('$response.body#/id'),
  operation: 'CreateProject',
  variables: ({ body, idempotencyKey }) => ({
    input: { name: body.name, description: body.description, initialScope: body.initial_scope },
    idempotencyKey,
  }),
  respond: (data) => data.project,
};

export const deleteProject: RouteDef = {
  method: 'delete',
  path: '/projects/{id}',
  operationId: 'deleteProject',
  summary: 'Delete a project',
  description:
    'Extension. Deletes the project and everything in it (entities, facts, state values, proposals and decisions, relationships, chapters, mentions, beats, conflicts) in one transaction. The account\'s audit log keeps its entries.',
  scope: 'projects:write',
  cost: 1,
  params: projectPath,
  success: { status: 200, schema: Deleted, description: 'the id of the deleted project' },
  errors: [400, 402, 404],
  operation: 'DeleteProject',
  variables: ({ params }) => ({ projectId: params.id }),
  respond: (data) => data.deleted,
};
