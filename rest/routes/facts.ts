// Facts (extension): create one, retcon one (the old fact goes to the entity's history), retire one, and read an
// entity's history and what depends on a fact or an entity.
import { linksTo, type RouteDef } from '../route.ts';
import { entityPath, projectPath } from '../schemas.ts';
import { createFactBody, Dependents, Fact, FactHistory, factPath, RetconResult, retireFactQuery, updateFactBody } from '../schemas/facts.ts';

type FactData = Record<string, unknown>;

const factJson = (f: FactData | null | undefined) =>
  f && {
    id: f.id, entity_id: f.entityId, text: f.text, status: f.status, source: f.source, candidate_id: f.candidateId, from: f.from, until: f.until,
    created_at: f.createdAt, created_by: f.createdBy, retired_at: f.retiredAt, retired_by: f.retiredBy, replaced_by_id: f.replacedById,
    secret: f.secret, known_by: (f.knownBy as { entityId: string; from?: string; line?: number }[] | undefined)?.map(({ entityId, ...k }) => ({ entity_id: entityId, ...k })),
  };

type KnowerBody = { entity_id: string; from?: string; line?: number };
const knownByInput = (knowers: unknown) => (knowers as KnowerBody[] | undefined)?.map(({ entity_id, ...k }) => ({ entityId: entity_id, ...k }));

const dependentsJson = ({ mentionCount, ...d }: Record<string, unknown>) => ({ ...d, mention_count: mentionCount });

const retconJson = (r: Record<string, any>) => ({
  fact: factJson(r.fact),
  replaced: factJson(r.replaced),
  decision_id: r.decisionId,
  dependents: dependentsJson(r.dependents),
});

// The core names the GraphQL arguments; these routes' clients sent these fields.
const inputPaths = { input: 'body' };

export const createFact: RouteDef = {
  method: 'post',
  path: '/projects/{id}/facts',
  operationId: 'createFact',
  summary: 'Add a fact',
  description:
    "Extension. Adds a fact about entity_id, with story time (from, until: chapter ids) and status (approved by default: the author's own canon; suggested waits for review). known_by (entities and the chapter, and line, each learns it at) and secret say who knows it (who knows what, when). Records its provenance: a candidate with the source content and, for an approved fact, the decision by this key. A live fact with the same text on the entity is 409 already_exists. Supports Idempotency-Key.",
  scope: 'remember',
  cost: 1,
  params: projectPath,
  body: createFactBody,
  idempotent: true,
  success: { status: 201, schema: Fact, description: 'the new fact' },
  errors: [400, 402, 404, 409, 413, 415, 422],
  links: linksTo(['updateFact', 'retireFact', 'factDependents'], { id: '$request.path.id', factId: '$response.body#/id' }),
  operation: 'CreateFact',
  errorPaths: { entityId: 'body.entity_id', ...inputPaths },
  variables: ({ params, body, idempotencyKey }) => ({
    projectId: params.id,
    entityId: body.entity_id,
    input: { text: body.text, from: body.from, until: body.until, status: body.status, content: body.content, knownBy: knownByInput(body.known_by), secret: body.secret },
    idempotencyKey,
  }),
  respond: (data) => factJson(data.fact as FactData),
};

export const updateFact: RouteDef = {
  method: 'patch',
  path: '/projects/{id}/facts/{factId}',
  operationId: 'updateFact',
  summary: 'Retcon a fact',
  description:
    "Extension. Replaces a live fact: the old one is retired into the entity's history (retired_at, retired_by, replaced_by_id) and a new fact is written with the changes, keeping what the body leaves out (from or until null: that end open), with provenance of its own. The answer lists what depends on it: stored conflicts citing either fact or the entity, beats involving the entity, and mentions from the earlier from chapter on. A retired fact is 409 version_conflict.",
  scope: 'remember',
  cost: 1,
  params: factPath,
  body: updateFactBody,
  success: { status: 200, schema: RetconResult, description: 'the new fact, the retired one and what depends on them' },
  errors: [400, 402, 404, 409, 413, 415],
  operation: 'UpdateFact',
  errorPaths: { factId: 'path.factId', ...inputPaths },
  variables: ({ params, body }) => ({
    projectId: params.id,
    factId: params.factId,
    input: { text: body.text, from: body.from, until: body.until, status: body.status, knownBy: knownByInput(body.known_by), secret: body.secret },
  }),
  respond: (data) => retconJson(data.retcon as Record<string, unknown>),
};

export const retireFact: RouteDef = {
  method: 'delete',
  path: '/projects/{id}/facts/{factId}',
  operationId: 'retireFact',
  summary: 'Retire a fact',
  description:
    "Extension. The fact leaves the canon and stays in its entity's history; the retirement is recorded as a rejection of its proposal, with the reason. The answer lists what depends on it. A retired fact is 409 version_conflict.",
  scope: 'remember',
  cost: 1,
  params: factPath,
  query: retireFactQuery,
  success: { status: 200, schema: RetconResult, description: 'the retired fact and what depends on it' },
  errors: [400, 402, 404, 409],
  operation: 'RetireFact',
  errorPaths: { factId: 'path.factId' },
  variables: ({ params, query }) => ({ projectId: params.id, factId: params.factId, reason: query.reason }),
  respond: (data) => retconJson(data.retcon as Record<string, unknown>),
};

export const factDependents: RouteDef = {
  method: 'get',
  path: '/projects/{id}/facts/{factId}/dependents',
  operationId: 'factDependents',
  summary: 'What depends on a fact',
  description:
    "Extension. For a fact, live or retired: stored conflicts (any status) citing it or its entity, beats involving its entity, and mentions of the entity from the fact's from chapter on (every chapter when it holds from the start), at most 200 in reading order with mention_count the total.",
  scope: 'recall',
  cost: 1,
  params: factPath,
  success: { status: 200, schema: Dependents, description: 'what to revisit' },
  errors: [400, 402, 404],
  operation: 'Dependents',
  variables: ({ params }) => ({ projectId: params.id, factId: params.factId }),
  respond: (data) => dependentsJson(data.dependents as Record<string, unknown>),
};

export const entityDependents: RouteDef = {
  method: 'get',
  path: '/projects/{id}/entities/{entityId}/dependents',
  operationId: 'entityDependents',
  summary: 'What depends on an entity',
  description: 'Extension. Stored conflicts (any status) citing the entity, beats involving it and its mentions, at most 200 in reading order with mention_count the total.',
  scope: 'recall',
  cost: 1,
  params: entityPath,
  success: { status: 200, schema: Dependents, description: 'what to revisit' },
  errors: [400, 402, 404],
  operation: 'Dependents',
  variables: ({ params }) => ({ projectId: params.id, entityId: params.entityId }),
  respond: (data) => dependentsJson(data.dependents as Record<string, unknown>),
};

export const entityHistory: RouteDef = {
  method: 'get',
  path: '/projects/{id}/entities/{entityId}/history',
  operationId: 'entityHistory',
  summary: "An entity's retired facts",
  description:
    'Extension. The facts retcons replaced or retired, newest retirement first: what each said, when it was written (created_at, created_by) and retired (retired_at, retired_by), and what replaced it (replaced_by_id).',
  scope: 'recall',
  cost: 1,
  params: entityPath,
  success: { status: 200, schema: FactHistory, description: 'the history' },
  errors: [400, 402, 404],
  operation: 'EntityHistory',
  variables: ({ params }) => ({ projectId: params.id, entityId: params.entityId }),
  respond: (data) => ({ data: ((data.entity as { history: FactData[] }).history).map(factJson) }),
};
