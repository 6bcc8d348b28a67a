import { z } from 'zod';
import { chapterLine, chapterRef } from '../../src/core/validation.ts';
import type { RouteDef } from '../route.ts';
import { entityPath, intFromQuery, KnownFact } from '../schemas.ts';

const knowledgeQuery = z.object({
  as_of: chapterRef.optional().meta({ description: 'a chapter id: knowledge as it stands there; absent, after the last chapter; an unknown chapter is a 400 naming as_of' }),
  line: intFromQuery(chapterLine).optional().meta({ type: 'integer', minimum: 1, maximum: 1_000_000, description: 'a line of the as_of chapter: what is learned after it is not known yet; without as_of it is not used' }),
});

export const KnowledgeSchema = z
  .object({
    entity: z.object({ id: z.string(), name: z.string() }),
    as_of: z.string().nullable(),
    line: z.number().int().nullable(),
    knows: z.array(KnownFact).meta({ description: 'tracked facts the entity knows at that point, by id' }),
    unaware: z.array(KnownFact).meta({ description: 'tracked facts the reader knows there that the entity does not know yet, by id' }),
  })
  .meta({ id: 'Knowledge' });

export const knowledge: RouteDef = {
  method: 'get',
  path: '/projects/{id}/entities/{entityId}/knowledge',
  operationId: 'entityKnowledge',
  summary: 'Who knows what, when: what a character knows',
  description:
    "Extension. A fact is common knowledge unless it is secret or has knowers (known_by: an entity and the chapter, and line, it learns the fact at): then only its knowers know it, from their point. Lists the tracked facts the entity knows as of as_of (and line), and those the reader knows there (approved, live, holding) that the entity does not know yet, with where it learns them when it does later; at most 200 each.",
  scope: 'recall',
  cost: 1,
  params: entityPath,
  query: knowledgeQuery,
  success: { status: 200, schema: KnowledgeSchema, description: 'the knowledge' },
  errors: [400, 402, 404],
  operation: 'Knowledge',
  keepNulls: true,
  errorPaths: { asOf: 'query.as_of', as_of: 'query.as_of', line: 'query.line' },
  variables: ({ params, query }) => ({ projectId: params.id, entityId: params.entityId, asOf: query.as_of, line: query.line }),
  respond: (data) => {
    const { asOf, ...rest } = data.knowledge as Record<string, unknown>;
    return { ...rest, as_of: asOf };
  },
};
