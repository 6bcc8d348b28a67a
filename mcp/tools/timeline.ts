// lore_author_timeline: what happens in each chapter, in reading order.
import { z } from 'zod';
import { chapterOrdinal, cursor, defaultPageLimit, pageLimit } from '../../src/core/validation.ts';
import { defineTool, projectArg, projectOf, runOperation } from './shared.ts';

const entryOutput = z.object({
  id: z.string().describe('timeline entry id (the paging cursor)'),
  chapter: z.string().describe('chapter id'),
  ordinal: z.number().int().describe('position of the chapter in reading order'),
  beats: z.array(z.object({ id: z.string(), summary: z.string(), entities: z.array(z.string()).describe('entity ids involved') })),
});

export const timeline = defineTool({
  name: 'lore_author_timeline',
  title: 'Read the story timeline',
  description:
    "Lists the story's chapters in reading order with their beats (what happens, and which entities are involved). Use it to know where the story stands before writing the next scene, or what happened in a range of chapters (from/to are chapter ordinals). Chapters without imported beats are summarised once by the writer's own LLM (LORE_LLM_PROVIDER and LORE_LLM_KEY in this server's env block); it costs 5 calls.",
  input: {
    project: projectArg,
    from: chapterOrdinal.optional().describe('First chapter ordinal to include.'),
    to: chapterOrdinal.optional().describe('Last chapter ordinal to include.'),
    limit: pageLimit.optional().describe(`Chapters per page, 1 to 100 (default ${defaultPageLimit}).`),
    starting_after: cursor.optional().describe('For the next page: the next_starting_after value of the previous result.'),
  },
  output: {
    projectId: z.string(),
    timeline: z.array(entryOutput),
    has_more: z.boolean().describe('whether another page follows'),
    next_starting_after: z.string().optional().describe('pass as starting_after to get the next page'),
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  async run(args, context) {
    const projectId = projectOf(args.project, context);
    const { page } = await runOperation(context, 'Timeline', {
      projectId, from: args.from, to: args.to, limit: args.limit, startingAfter: args.starting_after,
    });
    return { projectId, timeline: page.data, has_more: page.has_more, next_starting_after: page.next_starting_after };
  },
  render({ projectId, timeline, has_more, next_starting_after }) {
    if (timeline.length === 0) return `Project ${projectId} has no chapters in that range.`;
    const lines = timeline.flatMap((entry) => [
      `${entry.chapter} (#${entry.ordinal}):`,
      ...(entry.beats.length > 0 ? entry.beats.map((b) => `  - ${b.summary}`) : ['  (no beats)']),
    ]);
    if (has_more) lines.push(`More chapters: call again with starting_after=${next_starting_after}.`);
    return lines.join('\n');
  },
});
