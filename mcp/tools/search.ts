// lore_author_search: ranked search over names, aliases and approved facts, a page at a time.
import { z } from 'zod';
import { cursor, defaultPageLimit, pageLimit, searchQuery } from '../../src/core/validation.ts';
import { defineTool, entityOutput, projectArg, projectOf, renderEntity, runOperation } from './shared.ts';

export const search = defineTool({
  name: 'lore_author_search',
  title: 'Search the canon',
  description:
    'Searches the canon of the story by words: full-text over entity names, aliases and approved facts, plus fuzzy matching of names (finds misspelt names). Best match first, a page at a time. Use it when you do not know an entity\'s exact name, or to find which entities a fact or word relates to (for example "lighthouse" or "drowned"). To read one entity by name use lore_author_recall.',
  input: {
    project: projectArg,
    query: searchQuery.describe('Words, names or aliases to look for.'),
    limit: pageLimit.optional().describe(`Results per page, 1 to 100 (default ${defaultPageLimit}).`),
    starting_after: cursor.optional().describe('For the next page: the next_starting_after value of the previous result.'),
  },
  output: {
    projectId: z.string(),
    entities: z.array(entityOutput).describe('matching entities, best first'),
    has_more: z.boolean().describe('whether another page follows'),
    next_starting_after: z.string().optional().describe('pass as starting_after to get the next page'),
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    const projectId = projectOf(args.project, context);
    const { page } = await runOperation(context, 'Search', { projectId, q: args.query, limit: args.limit, startingAfter: args.starting_after });
    return { projectId, entities: page.data, has_more: page.has_more, next_starting_after: page.next_starting_after };
  },
  render({ projectId, entities, has_more, next_starting_after }) {
    if (entities.length === 0) return `Nothing in the canon of project ${projectId} matched.`;
    const lines = [`${entities.length} ${entities.length === 1 ? 'match' : 'matches'} in project ${projectId}, best first:`, ...entities.map(renderEntity)];
    if (has_more) lines.push(`More results: call again with starting_after=${next_starting_after}.`);
    return lines.join('\n');
  },
});
