// lore_author_extract: the writer's own LLM reads chapters and proposes the canon they establish, for review.
import { z } from 'zod';
import { defaultExtractLimit, extractChapters, extractLimit, maxExtractLimit } from '../../src/core/ingest/manuscripts/rules.ts';
import { chapterRef } from '../../src/core/validation.ts';
import { defineTool, projectArg, projectOf, runOperation } from './shared.ts';

const chapterOutput = z.object({
  chapter: z.string().describe('chapter id'),
  title: z.string(),
  status: z.enum(['asked', 'cached', 'empty']).describe('asked: read by the model now; cached: this version was read before; empty: no text'),
  entities_proposed: z.number().int(),
  facts_proposed: z.number().int(),
  entities_matched: z.number().int().describe('entities the model named that the canon has already'),
  promises_proposed: z.number().int().describe('ledger lines proposed: promises the chapter sets up or pays off'),
  dropped: z.number().int().describe('proposals left out: their quote is not in the chapter, or review refused them'),
});

export const extract = defineTool({
  name: 'lore_author_extract',
  title: 'Propose canon from the chapters',
  description: `Reads the project's chapters with the writer's own LLM (LORE_LLM_PROVIDER and LORE_LLM_KEY in this server's env block) and proposes the characters, places, objects, events, rules and promises they establish, the facts they state and the promises they set up or pay off (ledger lines), each resting on a quote from the chapter. Quotes not in the text are dropped; entities the canon has are matched by name or alias. Proposals wait in the review queue (lore_author_review, lore_author_decide): nothing becomes canon until the writer approves it. Use it after the writer imports or revises chapters. It reads up to ${maxExtractLimit} chapters per call (default ${defaultExtractLimit}), skips chapter versions read before, and costs 5 calls; pass next_starting_after as starting_after to go on.`,
  input: {
    project: projectArg,
    chapters: extractChapters.optional().describe('Only these chapter ids (for example ["ch-07"]); leave it out to go through every chapter in reading order.'),
    starting_after: chapterRef.optional().describe('For the next chapters: the next_starting_after value of the previous result.'),
    limit: extractLimit.optional().describe(`Chapters the model reads in this call, 1 to ${maxExtractLimit} (default ${defaultExtractLimit}).`),
  },
  output: {
    projectId: z.string(),
    chapters: z.array(chapterOutput),
    candidate_ids: z.array(z.string()).describe('the pending proposals recorded; list them with lore_author_review'),
    entities_proposed: z.number().int(),
    facts_proposed: z.number().int(),
    promises_proposed: z.number().int().describe('ledger lines proposed: setups and payoffs of promises'),
    remaining_chapters: z.number().int().describe('chapters still to read after these'),
    next_starting_after: z.string().optional().describe('pass as starting_after to read the next chapters'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run(args, context) {
    const projectId = projectOf(args.project, context);
    const { result } = await runOperation(context, 'ExtractCanon', { projectId, chapters: args.chapters, startingAfter: args.starting_after, limit: args.limit });
    return {
      projectId,
      chapters: (result.chapters as Record<string, any>[]).map((c) => ({
        chapter: c.chapter, title: c.title, status: c.status, entities_proposed: c.entitiesProposed, facts_proposed: c.factsProposed, entities_matched: c.entitiesMatched, promises_proposed: c.promisesProposed,
        dropped: c.dropped,
      })),
      candidate_ids: result.candidateIds,
      entities_proposed: result.entitiesProposed,
      facts_proposed: result.factsProposed,
      promises_proposed: result.promisesProposed,
      remaining_chapters: result.remainingChapters,
      next_starting_after: result.nextStartingAfter,
    };
  },
  render({ projectId, chapters, candidate_ids, entities_proposed, facts_proposed, promises_proposed, remaining_chapters, next_starting_after }) {
    const lines = [
      `Read ${chapters.length} chapter${chapters.length === 1 ? '' : 's'} of project ${projectId}: ${entities_proposed} new entities, ${facts_proposed} facts and ${promises_proposed} promise ledger lines proposed for review (${candidate_ids.length} pending proposals).`,
      ...chapters.map((c) => `- ${c.chapter} "${c.title}": ${c.status}${c.status === 'asked' ? `, ${c.entities_proposed} entities, ${c.facts_proposed} facts and ${c.promises_proposed} ledger lines proposed, ${c.entities_matched} known entities matched, ${c.dropped} dropped` : ''}`),
    ];
    if (candidate_ids.length > 0) lines.push('Show them to the writer with lore_author_review; nothing is canon until approved.');
    if (next_starting_after) lines.push(`${remaining_chapters} more chapters: call again with starting_after=${next_starting_after}.`);
    return lines.join('\n');
  },
});
