// lore_author_chapters: the chapters in reading order, so the assistant can name the chapter of a scene (recall's
// as_of, the check's chapter).
import { z } from 'zod';
import { chapterRef, defaultPageLimit, pageLimit } from '../../src/core/validation.ts';
import { defineTool, projectArg, projectOf, runOperation } from './shared.ts';

export const chapters = defineTool({
  name: 'lore_author_chapters',
  title: 'List the chapters',
  description:
    "Lists the manuscript's chapters in reading order: id, title and place. Use it to find the chapter id of a scene, then pass it as as_of to lore_author_recall or as chapter to lore_author_check, so canon established later in the book is not used against it.",
  input: {
    project: projectArg,
    limit: pageLimit.optional().describe(`Chapters per page, 1 to 100 (default ${defaultPageLimit}).`),
    starting_after: chapterRef.optional().describe('For the next page: the next_starting_after value of the previous result.'),
  },
  output: {
    projectId: z.string(),
    chapters: z.array(z.object({ id: z.string().describe('the chapter id'), title: z.string(), ordinal: z.number().int().describe('its place in reading order') })),
    has_more: z.boolean().describe('whether another page follows'),
    next_starting_after: z.string().optional().describe('pass as starting_after to get the next page'),
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    const projectId = projectOf(args.project, context);
    const { page } = await runOperation(context, 'Chapters', { projectId, limit: args.limit, startingAfter: args.starting_after });
    return { projectId, chapters: page.data, has_more: page.has_more, next_starting_after: page.next_starting_after };
  },
  render({ projectId, chapters, has_more, next_starting_after }) {
    if (chapters.length === 0) return `Project ${projectId} has no chapters yet.`;
    const lines = [`Chapters of project ${projectId} in reading order:`, ...chapters.map((c) => `- ${c.id} (${c.ordinal})${c.title ? `: ${c.title}` : ''}`)];
    if (has_more) lines.push(`More: call again with starting_after=${next_starting_after}.`);
    return lines.join('\n');
  },
});
