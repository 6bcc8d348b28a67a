// lore_author_review: the review queue, the pending proposals the writer approves or rejects.
import { z } from 'zod';
import { candidateKinds, candidateStatuses } from '../../src/core/canon/reviewRules.ts';
import { promiseStatuses } from '../../src/core/ingest/bundle.ts';
import { cursor, defaultPageLimit, pageLimit } from '../../src/core/validation.ts';
import { defineTool, projectArg, projectOf, runOperation } from './shared.ts';

export const candidateOutput = z.object({
  id: z.string(),
  kind: z.enum(candidateKinds).describe("a fact about a known entity, a new entity, or a change to a known promise's ledger line"),
  status: z.enum(candidateStatuses),
  entity_id: z.string().optional().describe('absent once the entity is gone (a rejected entity proposal)'),
  entity_name: z.string().optional(),
  facts: z
    .array(
      z.object({
        id: z.string().optional(),
        text: z.string(),
        from: z.string().optional().describe('chapter id it holds from'),
        until: z.string().optional().describe('chapter id it holds until'),
        status: z.enum(['suggested', 'approved', 'rejected']),
        secret: z.boolean().describe('nobody knows it until someone learns it'),
        known_by: z
          .array(z.object({ entity_id: z.string(), from: z.string().optional().describe('absent: from the start'), line: z.number().int().optional() }))
          .describe('who knows it, from when; empty and not secret: common knowledge'),
      }),
    )
    .describe('the facts it proposes'),
  promise: z
    .object({
      set_up_in: z.string().optional(),
      paid_off_in: z.string().optional(),
      involves: z.array(z.string()).describe('entity ids'),
      status: z.enum(promiseStatuses).optional().describe('the status it gives the promise'),
    })
    .optional()
    .describe('the ledger line it proposes, written on approval'),
  content: z.string().optional().describe('the source text'),
  source: z.string().describe('how it was proposed: proposal, import or api'),
  proposed_by: z.string().describe('the id of the key that proposed it'),
  created_at: z.string().describe('when (ISO 8601)'),
  decision: z
    .object({ id: z.string(), status: z.enum(['approved', 'rejected']), reason: z.string().optional(), decided_by: z.string(), decided_at: z.string() })
    .optional()
    .describe('the latest decision'),
});
export type CandidateOutput = z.infer<typeof candidateOutput>;

const excerpt = (text: string) => (text.length > 160 ? `${text.slice(0, 157)}...` : text);

/** A few lines per candidate: what it proposes, where from, who proposed it and when. */
export function renderCandidate(c: CandidateOutput): string {
  const entity = c.entity_name ? `${c.entity_name}${c.entity_id ? ` (${c.entity_id})` : ''}` : '(entity removed)';
  const what = { entity: `new entity ${entity}`, fact: `fact about ${entity}`, promise: `ledger change for ${entity}` }[c.kind];
  const lines = [`- ${c.id}: ${what}, ${c.status}`];
  const known = (f: CandidateOutput['facts'][number]) =>
    [f.secret ? 'secret' : '', f.known_by.length ? `known by ${f.known_by.map((k) => `${k.entity_id}${k.from ? ` from ${k.from}${k.line ? ` line ${k.line}` : ''}` : ''}`).join(', ')}` : '']
      .filter(Boolean)
      .join('; ');
  for (const f of c.facts) lines.push(`  fact: "${f.text}"${f.from ? ` from ${f.from}` : ''}${f.until ? ` until ${f.until}` : ''}${known(f) ? ` (${known(f)})` : ''}`);
  if (c.promise) {
    const p = c.promise;
    lines.push(`  promise: ${[p.set_up_in && `set up in ${p.set_up_in}`, p.paid_off_in && `paid off in ${p.paid_off_in}`, p.involves.length && `involves ${p.involves.join(', ')}`, p.status && `status ${p.status}`].filter(Boolean).join('; ')}`);
  }
  if (c.content) lines.push(`  source: "${excerpt(c.content)}"`);
  lines.push(`  proposed by ${c.proposed_by} at ${c.created_at} (${c.source})`);
  if (c.decision) lines.push(`  ${c.decision.status} by ${c.decision.decided_by} at ${c.decision.decided_at}${c.decision.reason ? `: ${c.decision.reason}` : ''}`);
  return lines.join('\n');
}

export const review = defineTool({
  name: 'lore_author_review',
  title: 'List proposals awaiting review',
  description:
    'Lists the review queue: proposals to the canon (facts, new entities) still pending, oldest first, each with its facts, source text, who proposed it and when. Show them to the writer when they ask what is waiting for review; the writer decides each with lore_author_decide.',
  input: {
    project: projectArg,
    limit: pageLimit.optional().describe(`Proposals per page, 1 to 100 (default ${defaultPageLimit}).`),
    starting_after: cursor.optional().describe('For the next page: the next_starting_after value of the previous result.'),
  },
  output: {
    projectId: z.string(),
    candidates: z.array(candidateOutput).describe('pending proposals, oldest first'),
    has_more: z.boolean().describe('whether another page follows'),
    next_starting_after: z.string().optional().describe('pass as starting_after to get the next page'),
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    const projectId = projectOf(args.project, context);
    const { page } = await runOperation(context, 'Candidates', { projectId, status: 'pending', limit: args.limit, startingAfter: args.starting_after });
    return { projectId, candidates: page.data, has_more: page.has_more, next_starting_after: page.next_starting_after };
  },
  render({ projectId, candidates, has_more, next_starting_after }) {
    if (candidates.length === 0) return `Nothing is waiting for review in project ${projectId}.`;
    const lines = [`${candidates.length} ${candidates.length === 1 ? 'proposal' : 'proposals'} waiting for review in project ${projectId}, oldest first:`, ...candidates.map(renderCandidate)];
    if (has_more) lines.push(`More: call again with starting_after=${next_starting_after}.`);
    return lines.join('\n');
  },
});
