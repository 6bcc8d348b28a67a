// lore_author_decide: approve or reject a proposal in the review queue, with an optional reason.
import { z } from 'zod';
import { decisionChoices, decisionReason } from '../../src/core/canon/reviewRules.ts';
import { resourceId } from '../../src/core/validation.ts';
import { defineTool, projectArg, projectOf, runOperation } from './shared.ts';
import { candidateOutput, renderCandidate } from './review.ts';

export const decide = defineTool({
  name: 'lore_author_decide',
  title: 'Approve or reject a proposal',
  description:
    "Decides a pending proposal from the review queue (lore_author_review): approve makes its facts, and a proposed new entity, approved canon; reject removes the suggested fact or entity and keeps the proposal on record with the decision. Use it only for the writer's own decision, with their reason when they give one. A proposal is decided once.",
  input: {
    project: projectArg,
    candidate: resourceId.describe('The proposal to decide: its candidate id (cnd_...).'),
    decision: z.enum(decisionChoices).describe('approve or reject'),
    reason: decisionReason.optional().describe("The writer's reason, kept with the decision."),
  },
  output: {
    projectId: z.string(),
    candidate: candidateOutput.extend({ removed_ids: z.array(z.string()).describe('what a rejection removed') }),
  },
  // Rejecting removes the suggested fact or entity; a second decision on the same proposal is refused.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run(args, context) {
    const projectId = projectOf(args.project, context);
    const { candidate } = await runOperation(context, 'DecideCandidate', { projectId, candidateId: args.candidate, decision: args.decision, reason: args.reason });
    return { projectId, candidate };
  },
  render({ candidate }) {
    const outcome = candidate.status === 'approved' ? 'Approved: now canon.' : `Rejected${candidate.removed_ids.length ? `; removed ${candidate.removed_ids.join(', ')}` : ''}.`;
    return `${outcome}\n${renderCandidate(candidate)}`;
  },
});
