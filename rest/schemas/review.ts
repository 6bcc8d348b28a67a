// The review queue's routes (extension): proposals, the list of candidates, and decisions on them.
import { z } from 'zod';
import { entityTypes, promiseStatuses } from '../../src/core/ingest/bundle.ts';
import { candidateKinds, candidateStatuses, decisionReason, entityLabel, maxProposedFacts, proposedAliases } from '../../src/core/canon/reviewRules.ts';
import { chapterRef, factText, resourceId, sourceContent } from '../../src/core/validation.ts';
import { pageQuery, projectPath } from '../schemas.ts';
import { FactKnower, knownBy, secret } from './facts.ts';

const dateTime = z.string().meta({ format: 'date-time' });

export const candidatePath = projectPath.extend({ candidateId: resourceId.meta({ description: 'candidate id' }) });

const proposedFactBody = z
  .object({
    text: factText.meta({ description: 'one self-contained statement' }),
    from: chapterRef.optional().meta({ description: 'chapter id it holds from (inclusive)' }),
    until: chapterRef.optional().meta({ description: 'chapter id it holds until (exclusive)' }),
    known_by: knownBy.optional().meta({ description: 'who knows it, from when: kept on the suggested fact, canon once approved' }),
    secret: secret.optional(),
  })
  .meta({ id: 'ProposedFactInput' });

const proposedPromiseBody = z
  .object({
    set_up_in: chapterRef.optional().meta({ description: 'the chapter id that sets it up' }),
    paid_off_in: chapterRef.optional().meta({ description: 'the chapter id that pays it off (the promise is then paid, unless status says otherwise)' }),
    involves: z.array(resourceId).min(1).max(100).optional().meta({ description: 'entity ids it involves (added to those it involves already)' }),
    status: z.enum(promiseStatuses).optional().meta({ description: "the promise's status once approved: open, paid, or dropped (the story gives it up)" }),
  })
  .refine((p) => p.set_up_in !== undefined || p.paid_off_in !== undefined || p.involves !== undefined || p.status !== undefined, {
    message: 'give set_up_in, paid_off_in, involves or status',
  })
  .meta({ id: 'ProposedPromiseInput', anyOf: [{ required: ['set_up_in'] }, { required: ['paid_off_in'] }, { required: ['involves'] }, { required: ['status'] }] });

const ProposedPromise = z
  .object({
    set_up_in: z.string().optional(),
    paid_off_in: z.string().optional(),
    involves: z.array(z.string()).meta({ description: 'entity ids' }),
    status: z.enum(promiseStatuses).optional().meta({ description: 'the status it gives the promise' }),
  })
  .meta({ id: 'ProposedPromise' });

export const proposeBody = z
  .object({
    entity_id: resourceId.optional().meta({ description: 'a known entity; or give name' }),
    name: entityLabel.optional().meta({ description: "an entity's exact name or alias (case-insensitive), or the name of a new entity" }),
    type: z.enum(entityTypes).optional().meta({ description: 'required when the name is new' }),
    aliases: proposedAliases.optional().meta({ description: 'a new entity only' }),
    facts: z
      .array(proposedFactBody)
      .max(maxProposedFacts)
      .optional()
      .meta({ description: `0..${maxProposedFacts} facts, each { text, from?, until? (chapter ids), known_by?, secret? }; at least one about a known entity, unless promise is given` }),
    promise: proposedPromiseBody.optional().meta({
      description: 'a promise only: its ledger line (a new promise), or a change to it (a known promise: one candidate of kind promise); written to the ledger on approval',
    }),
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
    kind: z.enum(candidateKinds).meta({ description: "a fact about a known entity, a new entity, or a change to a known promise's ledger line" }),
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
          secret: z.boolean().meta({ description: 'nobody knows it until someone learns it' }),
          known_by: z.array(FactKnower).meta({ description: 'who knows it, from when; empty and not secret: common knowledge' }),
        }),
      )
      .meta({ description: 'the facts it proposes' }),
    proposal: z
      .object({ name: z.string(), type: z.enum(entityTypes), aliases: z.array(z.string()), facts: z.array(z.object({ text: z.string(), from: z.string().optional(), until: z.string().optional() })) })
      .optional()
      .meta({ description: 'an entity proposal as it was made' }),
    promise: ProposedPromise.optional().meta({ description: "the ledger line it proposes (a new promise's, or with kind promise a change to a known promise's), written on approval" }),
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
