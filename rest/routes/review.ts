// The review queue (extension): propose canon, list the candidates, approve or reject one.
import { linksTo, type RouteDef } from '../route.ts';
import { projectPath } from '../schemas.ts';
import { candidatePath, CandidateList, candidatesQueryParams, DecidedCandidate, decideBody, proposeBody, ProposeResult } from '../schemas/review.ts';

type ProposedFactBody = { text: string; from?: string; until?: string; known_by?: { entity_id: string; from?: string; line?: number }[]; secret?: boolean };

type ProposedPromiseBody = { set_up_in?: string; paid_off_in?: string; involves?: string[]; status?: string };

export const propose: RouteDef = {
  method: 'post',
  path: '/projects/{id}/candidates',
  operationId: 'proposeCanon',
  summary: 'Propose canon for review',
  description:
    'Extension. Facts about a known entity (entity_id, or its exact name or alias in name) become suggested facts, each with a pending candidate; a name no entity has creates a suggested entity (type required) with its aliases and facts, under one pending candidate of kind entity. A text the entity already has as a live fact records nothing and is listed in already_canon. A fact may say who knows it (known_by, secret): kept on the suggested fact, canon once approved. A promise may carry its ledger line (promise: set_up_in, paid_off_in, involves, status; status dropped gives a promise up): for a new promise it waits on the entity candidate, for a known promise on a candidate of kind promise, and is written to the ledger on approval. With approve: true, what is recorded is approved at once by the same key. Supports Idempotency-Key.',
  scope: 'remember',
  cost: 1,
  params: projectPath,
  body: proposeBody,
  idempotent: true,
  success: { status: 201, schema: ProposeResult, description: 'what was recorded' },
  errors: [400, 402, 404, 409, 413, 415, 422],
  links: linksTo(['approveCandidate', 'rejectCandidate'], { id: '$request.path.id', candidateId: '$response.body#/candidates/0/id' }),
  operation: 'Propose',
  variables: ({ params, body, idempotencyKey }) => ({
    projectId: params.id,
    input: {
      entityId: body.entity_id, name: body.name, type: body.type, aliases: body.aliases, content: body.content, approve: body.approve,
      facts: (body.facts as ProposedFactBody[] | undefined)?.map(({ known_by, ...f }) => ({ ...f, knownBy: known_by?.map(({ entity_id, ...k }) => ({ entityId: entity_id, ...k })) })),
      promise: body.promise && (({ set_up_in, paid_off_in, involves, status }: ProposedPromiseBody) => ({ setUpIn: set_up_in, paidOffIn: paid_off_in, involves, status }))(body.promise),
    },
    idempotencyKey,
  }),
  respond: (data) => data.result,
};

export const listCandidates: RouteDef = {
  method: 'get',
  path: '/projects/{id}/candidates',
  operationId: 'listCandidates',
  summary: 'List the review queue',
  description: 'Extension. Candidates with the given status (pending by default), oldest first, each with the facts it proposes, its source, who proposed it and when, and its latest decision.',
  scope: 'recall',
  cost: 1,
  params: projectPath,
  query: candidatesQueryParams,
  success: { status: 200, schema: CandidateList, description: 'a page of candidates' },
  errors: [400, 402, 404],
  links: linksTo(['approveCandidate', 'rejectCandidate'], { id: '$request.path.id', candidateId: '$response.body#/data/0/id' }),
  operation: 'Candidates',
  variables: ({ params, query }) => ({ projectId: params.id, status: query.status, limit: query.limit, startingAfter: query.starting_after }),
  respond: (data) => data.page,
};

const decide = (decision: 'approve' | 'reject', summary: string, description: string): RouteDef => ({
  method: 'post',
  path: `/projects/{id}/candidates/{candidateId}/${decision}`,
  operationId: `${decision}Candidate`,
  summary,
  description: `Extension. ${description} The decision is recorded with the key, the time and the optional reason; a candidate already decided is 409 already_decided. The body is optional.`,
  scope: 'remember',
  cost: 1,
  params: candidatePath,
  body: decideBody,
  bodyOptional: true,
  success: { status: 200, schema: DecidedCandidate, description: 'the candidate with its decision' },
  errors: [400, 402, 404, 409, 413, 415],
  operation: 'DecideCandidate',
  variables: ({ params, body }) => ({ projectId: params.id, candidateId: params.candidateId, decision, reason: body.reason }),
  respond: (data) => data.candidate,
});

export const approveCandidate = decide(
  'approve',
  'Approve a candidate',
  'Its facts become approved canon, with who knows them; for an entity proposal, the entity too; a proposed ledger line is written to the promise ledger.',
);
export const rejectCandidate = decide(
  'reject',
  'Reject a candidate',
  'Its suggested fact is removed; for an entity proposal, the suggested entity with its facts (and pending proposals about it, with the same decision). The candidate stays, with the text it proposed.',
);
