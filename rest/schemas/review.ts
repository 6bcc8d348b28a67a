// The review queue's routes (extension): proposals, the list of candidates, and decisions on them.
import { z } from 'zod';
import { entityTypes } from '../../src/core/ingest/bundle.ts';
import { candidateKinds, candidateStatuses, decisionReason, entityLabel, maxProposedFacts, proposedAliases, proposedFact } from '../../src/core/canon/reviewRules.ts';
import { resourceId, sourceContent } from '../../src/core/validation.ts';
import { pageQuery, projectPath } from '../schemas.ts';

const dateTime = z.string().meta({ format: 'date-time' });

export const candidatePath = projectPath.extend({ candidateId: resourceId.meta({ description: 'candidate id' }) });

export const proposeBody = z
  .object({
    entity_id: resourceId.optional().meta({ description: 'a known entity; or give name' }),
    name: entityLabel.optional().meta({ description: "an entity's exact name or alias (case-insensitive), or the name of a new entity" }),
    type: z.enum(entityTypes).optional().meta({ description: 'required when the name is new' }),
    aliases: proposedAliases.optional().meta({ description: 'a new entity only' }),
    facts: z
      .array(proposedFact.meta({ id: 'ProposedFactInput' }))
      .max(maxProposedFacts)
      .optional()
      .meta({ description: `0..${maxProposedFacts} facts, each { text, from?, until? } (chapter ids); at least one about a known entity` }),
    content: sourceContent.optional().meta({ description: 'the source text, kept as provenance' }),
    approve: z.boolean().optional().meta({ description: 'approve what is recorded at once (default false)' }),
  })
  .superRefine((body, ctx) => {
    if ((body.entity_id === undefined) === (body.name === undefined)) {
      ctx.addIssue({ code: 'custom', path: [body.entity_id === undefined ? 'name' : 'entity_id'], message: 'give exactly one of entity_id and name' });
    }
  })
  .meta({ id: 'ProposeRequest', oneOf: [{ required: ['entity_id'] }, { required: ['name'] }] });

export const candidatesQueryParams = z.object({
  status: z.enum(candidateStatuses).optional().meta({ description: 'pending (default), approved or rejected' }),
  ...pageQuery,
});

export const decideBody = z
  .object({ reason: decisionReason.optional().meta({ description: 'why, kept with the decision' }) })
  .meta({ id: 'DecisionRequest' });

export const Candidate = z
  .object({
    id: z.string(),
    kind: z.enum(candidateKinds).meta({ description: 'a fact about a known entity, or a new entity' }),
    status: z.enum(candidateStatuses),
    entity_id: z.string().optional().meta({ description: 'absent once the entity is gone (a rejected entity proposal)' }),
    entity_name: z.string().optional(),
    facts: z
      .array(
        z.object({
          id: z.string().optional().meta({ description: 'the fact, while it exists (a rejected one is removed)' }),
          text: z.string(),
          from: z.string().optional().meta({ description: 'chapter id it holds from (inclusive)' }),
          until: z.string().optional().meta({ description: 'chapter id it holds until (exclusive)' }),
          status: z.enum(['suggested', 'approved', 'rejected']),
        }),
      )
      .meta({ description: 'the facts it proposes' }),
    proposal: z
      .object({ name: z.string(), type: z.enum(entityTypes), aliases: z.array(z.string()), facts: z.array(z.object({ text: z.string(), from: z.string().optional(), until: z.string().optional() })) })
      .optional()
      .meta({ description: 'an entity proposal as it was made' }),
    content: z.string().optional().meta({ description: 'the source text, as provenance' }),
    source: z.string().meta({ description: 'how it was proposed: proposal, import or api' }),
    proposed_by: z.string().meta({ description: 'the id of the key that proposed it' }),
    created_at: dateTime,
    decision: z
      .object({
        id: z.string(),
        status: z.enum(['approved', 'rejected']),
        reason: z.string().optional(),
        decided_by: z.string().meta({ description: 'the id of the key that decided' }),
        decided_at: dateTime,
      })
      .optional()
      .meta({ description: 'the latest decision' }),
  })
  .meta({ id: 'Candidate' });

export const CandidateList = z
  .object({ data: z.array(Candidate), has_more: z.boolean(), next_starting_after: z.string().optional() })
  .meta({ id: 'CandidateList' });

export const ProposeResult = z
  .object({
    entity: z.object({ id: z.string(), name: z.string(), status: z.enum(['approved', 'suggested']), is_new: z.boolean() }),
    candidates: z.array(Candidate).meta({ description: 'the candidates recorded: pending, or approved with approve' }),
    already_canon: z.array(z.string()).meta({ description: 'live facts of the entity that already say a proposed text: nothing was recorded for them' }),
  })
  .meta({ id: 'ProposeResult' });

export const DecidedCandidate = Candidate.extend({
  removed_ids: z.array(z.string()).meta({ description: "what the decision removed: a rejection's suggested fact, or entity with its facts" }),
}).meta({ id: 'DecidedCandidate' });
