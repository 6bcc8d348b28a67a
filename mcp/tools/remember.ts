// lore_author_remember: propose canon for the writer to review (a fact about an entity, or a new entity), approving it
// only when the author explicitly asks.
import { z } from 'zod';
import { entityLabel, maxProposedFacts } from '../../src/core/canon/reviewRules.ts';
import { entityTypes, promiseStatuses } from '../../src/core/ingest/bundle.ts';
import { chapterLine, chapterRef, factText, resourceId, sourceContent, text } from '../../src/core/validation.ts';
import { defineTool, entityIdPattern, projectArg, projectOf, runOperation } from './shared.ts';

export const remember = defineTool({
  name: 'lore_author_remember',
  title: 'Propose canon for review',
  description:
    'Proposes canon to the writer: a fact about an entity (for example "Keth has a scar over his left eye"), or a new entity (name, type, optional aliases and facts) when no entity has that name, or a promise\'s ledger line (set up, paid off, dropped). What you propose is recorded as suggested, with its source text, and waits in the review queue until the writer approves or rejects it (lore_author_review, lore_author_decide). The entity is its id, or its exact name or alias; an unknown name proposes a new entity and then needs type. Set approve to true only when the author has explicitly asked you to approve this now; otherwise leave it out.',
  input: {
    project: projectArg,
    entity: text().trim().min(1).max(200).describe('The entity: its id (ent_...), its exact name or alias (for example "Mara Voss"), or the name of a new entity.'),
    fact: factText.optional().describe('One fact, a self-contained statement (at most 2000 characters).'),
    facts: z.array(factText).max(maxProposedFacts).optional().describe(`More facts, each a self-contained statement (at most ${maxProposedFacts} in all).`),
    type: z.enum(entityTypes).optional().describe('The kind of a new entity; required when the entity name is new, else leave it out.'),
    aliases: z.array(entityLabel).max(100).optional().describe('Other names of a new entity (for example ["Mara", "the Captain"]).'),
    source: sourceContent.optional().describe('The passage the proposal comes from, kept as provenance.'),
    from: chapterRef.optional().describe('Chapter id from which the facts hold (inclusive), for example "ch-30"; leave out when always true.'),
    until: chapterRef.optional().describe('Chapter id until which the facts hold (exclusive); leave out when open-ended.'),
    known_by: z
      .array(
        z.object({
          entity_id: resourceId.describe('An entity (ent_...) that knows the facts.'),
          from: chapterRef.optional().describe('The chapter id it learns them in; leave out when it always knew.'),
          line: chapterLine.optional().describe('The line of that chapter it learns them at (known after it).'),
        }),
      )
      .max(200)
      .optional()
      .describe('Who knows the facts, from when: then only they know them (who knows what, when). Leave out for common knowledge.'),
    secret: z.boolean().optional().describe('The facts are a secret: nobody knows them until someone learns them (known_by).'),
    promise: z
      .object({
        set_up_in: chapterRef.optional().describe('The chapter id that sets the promise up.'),
        paid_off_in: chapterRef.optional().describe('The chapter id that pays it off (it is then paid).'),
        involves: z.array(resourceId).min(1).max(100).optional().describe('Entity ids (ent_...) it involves.'),
        status: z.enum(promiseStatuses).optional().describe('open, paid, or dropped when the story gives the promise up.'),
      })
      .optional()
      .describe("For a promise (type promise) only: its line in the promise ledger, or a change to a known promise's line (a payoff, or dropped); facts may then be left out."),
    approve: z.boolean().optional().describe('Approve into the canon at once. Only when the author explicitly asks to approve; default false (suggested for review).'),
  },
  output: {
    projectId: z.string(),
    entity: z.object({
      id: z.string(),
      name: z.string(),
      isNew: z.boolean().describe('created by this proposal'),
      status: z.enum(['approved', 'suggested']).describe('the entity is approved canon, or only suggested'),
    }),
    candidateIds: z.array(z.string()).describe('the recorded proposals, for lore_author_decide'),
    status: z.enum(['suggested', 'approved']).describe('suggested for review, or approved at once'),
    facts: z.array(z.string()).describe('the facts recorded'),
    alreadyCanon: z.array(z.string()).describe('ids of facts the entity already had: nothing was recorded for them'),
  },
  // Proposing the same again records nothing new: the texts are the entity's facts by then (already canon).
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    const projectId = projectOf(args.project, context);
    const texts = [...(args.fact ? [args.fact] : []), ...(args.facts ?? [])];
    const input = {
      ...(entityIdPattern.test(args.entity) ? { entityId: args.entity } : { name: args.entity }),
      type: args.type,
      aliases: args.aliases,
      facts: texts.map((text) => ({
        text, from: args.from, until: args.until, secret: args.secret,
        knownBy: args.known_by?.map((k) => ({ entityId: k.entity_id, from: k.from, line: k.line })),
      })),
      promise: args.promise && { setUpIn: args.promise.set_up_in, paidOffIn: args.promise.paid_off_in, involves: args.promise.involves, status: args.promise.status },
      content: args.source,
      approve: args.approve,
    };
    const { result } = await runOperation(context, 'Propose', { projectId, input });
    const candidates = result.candidates as { id: string; facts: { text: string }[] }[];
    return {
      projectId,
      entity: { id: result.entity.id, name: result.entity.name, isNew: result.entity.is_new, status: result.entity.status },
      candidateIds: candidates.map((c) => c.id),
      status: args.approve ? ('approved' as const) : ('suggested' as const),
      facts: candidates.flatMap((c) => c.facts.map((f) => f.text)),
      alreadyCanon: result.already_canon,
    };
  },
  render({ entity, candidateIds, status, facts, alreadyCanon }) {
    const about = `${entity.isNew ? 'new entity ' : ''}${entity.name} (${entity.id})`;
    const lines: string[] = [];
    const listed = facts.map((f) => `"${f}"`).join('; ');
    if (candidateIds.length > 0) {
      const what = facts.length > 0 ? `${listed} about ${about}` : about;
      lines.push(
        status === 'approved'
          ? `Approved into the canon: ${what}; candidate${candidateIds.length === 1 ? '' : 's'} ${candidateIds.join(', ')}.`
          : `Suggested for review: ${what}; candidate${candidateIds.length === 1 ? '' : 's'} ${candidateIds.join(', ')}. The writer approves it with lore_author_decide or in the review queue.`,
      );
    }
    if (alreadyCanon.length > 0) lines.push(`Already recorded for ${entity.name}, so nothing new for: ${alreadyCanon.join(', ')}.`);
    return lines.join('\n');
  },
});
