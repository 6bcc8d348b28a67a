import type { RouteDef } from '../route.ts';
import { projectPath } from '../schemas.ts';
import { Brief, briefBody } from '../schemas/brief.ts';

export const brief: RouteDef = {
  method: 'post',
  path: '/projects/{id}/brief',
  operationId: 'brief',
  summary: 'Brief an assistant on the canon a scene needs',
  description:
    'Given a scene (its text and/or entity ids) and a chapter, the canon that matters for it as it stands at that chapter, most important first: the entities the scene names (and relatives it names by a kin word) with their state and approved live facts, the relationships between them, the entities one step away, the rules, the promises involving them, and the last beats before the chapter. Every item is whole and carries its id; what did not fit the budget is counted in omitted. tokens is counted with the o200k_base encoding and is never over budget. Read-only; a POST because a scene is long.',
  scope: 'recall',
  cost: 1,
  params: projectPath,
  body: briefBody,
  success: { status: 200, schema: Brief, description: 'the brief' },
  errors: [400, 402, 404, 413, 415],
  operation: 'Brief',
  keepNulls: true,
  errorPaths: { entityIds: 'body.entity_ids', chapter: 'body.chapter', text: 'body.text', budget: 'body.budget', format: 'body.format' },
  variables: ({ params, body }) => ({
    projectId: params.id,
    chapter: body.chapter,
    text: body.text,
    entityIds: body.entity_ids,
    budget: body.budget,
    format: body.format,
  }),
  respond: (data) => {
    const { content, markdown, ...brief } = data.brief as Record<string, unknown>;
    return { ...brief, ...(content != null ? { content } : {}), ...(markdown != null ? { markdown } : {}) };
  },
};
