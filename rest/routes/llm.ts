import { conflictKinds } from '../../src/core/conflicts/kinds.ts';
import type { RouteDef } from '../route.ts';
import { checkBody, ConflictCheckResult, projectPath, TimelineEnvelope, timelineQueryParams } from '../schemas.ts';

const byokNote =
  "Runs inference with the caller's own LLM provider: headers X-LLM-Provider (anthropic, openai or openai-compatible), X-LLM-Key and optionally X-LLM-Model; without them 402 precondition_required (Studio Managed keys may omit them when the server has its own provider key). Provider failures cost nothing: 502 llm_provider_error (with the provider's status), 504 llm_timeout.";

export const checkConflicts: RouteDef = {
  method: 'post',
  path: '/projects/{id}/conflicts/check',
  operationId: 'checkConflicts',
  summary: 'Check a passage against the canon',
  description: `A deterministic pass (dead characters acting, contradicted attributes, one character in two places) runs first; then the model compares the passage with the slice of canon it touches. Only hits citing real canon ids are kept. Hits are stored as pending conflicts. Kinds: ${conflictKinds.join(', ')}. ${byokNote}`,
  scope: 'check',
  cost: 5,
  byok: true,
  params: projectPath,
  body: checkBody,
  success: { status: 200, schema: ConflictCheckResult, description: 'the conflicts found; an empty list means none' },
  errors: [400, 402, 404, 413, 415, 502, 504],
  operation: 'CheckConflicts',
  variables: ({ params, body }) => ({ projectId: params.id, text: body.text, chapter: body.chapter, line: body.line }),
  respond: (data) => data,
};

export const timeline: RouteDef = {
  method: 'get',
  path: '/projects/{id}/timeline',
  operationId: 'readTimeline',
  summary: 'Read timeline beats',
  description: `Chapters in reading order (ordinal), each with its beats. Imported beats are kept as they are; a chapter without beats is summarised by the model once per version of its text (cached by content hash). from and to filter by chapter ordinal, inclusive. ${byokNote}`,
  scope: 'timeline',
  cost: 5,
  byok: true,
  params: projectPath,
  query: timelineQueryParams,
  success: { status: 200, schema: TimelineEnvelope, description: 'a page of timeline entries' },
  errors: [400, 402, 404, 502, 504],
  operation: 'Timeline',
  variables: ({ params, query }) => ({ projectId: params.id, limit: query.limit, startingAfter: query.starting_after, from: query.from, to: query.to }),
  respond: (data) => {
    const page = data.page as { data: unknown[] };
    return { ...page, timeline: page.data };
  },
};
