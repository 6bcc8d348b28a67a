// Field rules of review (proposals and decisions), shared by the GraphQL core, the REST schemas and the MCP tools.
// Kept apart from review.ts so that the surfaces, which never touch the database, can use them.
import { z } from 'zod';
import { entityTypes, promiseStatuses } from '../ingest/bundle.ts';
import { chapterRef, factText, knownByInput, nonBlankText, resourceId, sourceContent } from '../validation.ts';

export const candidateStatuses = ['pending', 'approved', 'rejected'] as const;
export const candidateKinds = ['fact', 'entity', 'promise'] as const;
export const decisionChoices = ['approve', 'reject'] as const;
export type CandidateStatus = (typeof candidateStatuses)[number];
export type DecisionChoice = (typeof decisionChoices)[number];

export const maxProposedFacts = 50;

/** An entity's name or alias, as the bundle takes it. */
export const entityLabel = nonBlankText(200);
export const proposedAliases = z.array(entityLabel).max(100, 'must be at most 100 aliases');
/** A proposed fact: its story time, and who knows it from when (as a fact written directly takes them). */
export const proposedFact = z.object({
  text: factText,
  from: chapterRef.optional(),
  until: chapterRef.optional(),
  knownBy: knownByInput.optional(),
  secret: z.boolean().optional(),
});
/**
 * A promise's ledger line, proposed: its setup and payoff chapters, the entities it involves and its status. For a new
 * entity of type promise, its line; for a known promise, a change to its line (a payoff, a setup, more entities
 * involved, a promise the story drops).
 */
export const proposedPromise = z
  .object({
    setUpIn: chapterRef.optional(),
    paidOffIn: chapterRef.optional(),
    involves: z.array(resourceId).max(100, 'must be at most 100 entities').optional(),
    status: z.enum(promiseStatuses).optional(),
  })
  .refine((p) => p.setUpIn !== undefined || p.paidOffIn !== undefined || (p.involves?.length ?? 0) > 0 || p.status !== undefined, {
    message: 'give setUpIn, paidOffIn, involves or status',
  });
export type ProposedPromise = z.infer<typeof proposedPromise>;
export const proposedFacts = z.array(proposedFact).max(maxProposedFacts, `must be at most ${maxProposedFacts} facts`);
export const decisionReason = nonBlankText(2000);

/** What propose takes; `entityId` or `name`, exactly one. */
export const proposeInput = z
  .object({
    entityId: resourceId.optional(),
    name: entityLabel.optional(),
    type: z.enum(entityTypes).optional(),
    aliases: proposedAliases.optional(),
    facts: proposedFacts.default([]),
    promise: proposedPromise.optional(),
    content: sourceContent.optional(),
    approve: z.boolean().default(false),
  })
  .superRefine((input, ctx) => {
    if ((input.entityId === undefined) === (input.name === undefined)) {
      ctx.addIssue({ code: 'custom', path: [input.entityId === undefined ? 'name' : 'entityId'], message: 'give exactly one of entityId and name' });
    }
  });
export type ProposeInput = z.infer<typeof proposeInput>;
export type ProposedFactInput = z.infer<typeof proposedFact>;
