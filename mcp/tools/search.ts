// lore_author_search: ranked search over names, aliases and approved facts, by words and (with embeddings) by meaning,
// a page at a time.
import { z } from 'zod';
import { cursor, defaultPageLimit, pageLimit, searchQuery } from '../../src/core/validation.ts';
import { defineTool, entityOutput, projectArg, projectOf, renderEntity, runOperation } from './shared.ts';

export const search = defineTool({
  name: 'lore_author_search',
  title: 'Search the canon',
  description:
    'Searches the canon of the story by meaning as well as by words: full-text over entity names, aliases and approved facts, fuzzy matching of names (finds misspelt names), and, where the server has embeddings, semantic matching, so a query in the words of a scene finds canon worded differently (for example "the sailor\'s fear of deep water" finds "Keth never learned to swim"). Best match first, a page at a time. Use it when you do not know an entity\'s exact name, to find which entities a fact, word or idea relates to, or to look for canon a passage might touch. To read one entity by name use lore_author_recall.',
  input: {
    project: projectArg,
    query: searchQuery.describe('Words, names or aliases to look for, or a phrase describing what you mean.'),
    limit: pageLimit.optional().describe(`Results per page, 1 to 100 (default ${defaultPageLimit}).`),
    starting_after: cursor.optional().describe('For the next page: the next_starting_after value of the previous result.'),
  },
  output: {
    projectId: z.string(),
    entities: z.array(entityOutput).describe('matching entities, best first'),
    has_more: z.boolean().describe('whether another page follows'),
    next_starting_after: z.string().optional().describe('pass as starting_after to get the next page'),
    ranking: z.enum(['hybrid', 'lexical']).describe('hybrid: ranked by words and meaning; lexical: by words only'),
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    const projectId = projectOf(args.project, context);
    const { page } = await runOperation(context, 'Search', { projectId, q: args.query, limit: args.limit, startingAfter: args.starting_after });
    return { projectId, entities: page.data, has_more: page.has_more, next_starting_after: page.next_starting_after, ranking: page.ranking };
  },
  render({ projectId, entities, has_more, next_starting_after, ranking }) {
    if (entities.length === 0) return `Nothing in the canon of project ${projectId} matched.`;
    const how = ranking === 'hybrid' ? 'best first, by words and meaning' : 'best first';
    const lines = [`${entities.length} ${entities.length === 1 ? 'match' : 'matches'} in project ${projectId}, ${how}:`, ...entities.map(renderEntity)];
    if (has_more) lines.push(`More results: call again with starting_after=${next_starting_after}.`);
    return lines.join('\n');
  },
});
