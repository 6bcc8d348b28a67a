// lore_author_recall: what the canon says about characters, places, objects, rules and promises, by name.
import { z } from 'zod';
import { chapterRef, defaultPageLimit, pageLimit, recallQuery } from '../../src/core/validation.ts';
import { defineTool, entityOutput, projectArg, projectOf, renderEntity, runOperation } from './shared.ts';

export const recall = defineTool({
  name: 'lore_author_recall',
  title: 'Recall canon entities',
  description:
    'Looks up the canon of the story: entities (characters, locations, objects, events, rules, promises) whose name or alias contains the query, each with its current state, approved facts, suggested facts (proposed, not yet canon), approval status, pending conflicts and most recent mentions in the manuscript. Use it before writing or revising a scene that involves a named entity, to stay consistent with what is already established; pass as_of with the chapter of the scene to get the state and facts as they stand there (a character who dies later is still alive). Without a query it lists the entities alphabetically. For ranked matches on facts or misspelt names use lore_author_search.',
  input: {
    project: projectArg,
    query: recallQuery.optional().describe('Part of a name or alias to match, case-insensitive (for example "Mara"). Leave it out to list entities.'),
    limit: pageLimit.optional().describe(`How many entities at most, 1 to 100 (default ${defaultPageLimit}).`),
    as_of: chapterRef.optional().describe('A chapter id (for example ch-12): the state, facts and latest mentions as they stand at that chapter (no mention from later in the story). Leave it out for the latest.'),
  },
  output: {
    projectId: z.string(),
    entities: z.array(entityOutput).describe('matching entities, by name'),
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    const projectId = projectOf(args.project, context);
    const data = await runOperation(context, 'Recall', { projectId, q: args.query, limit: args.limit, asOf: args.as_of, knowledge: args.as_of !== undefined });
    return { projectId, entities: data.entities };
  },
  render({ projectId, entities }) {
    if (entities.length === 0) return `No canon entities matched in project ${projectId}.`;
    return [`${entities.length} canon ${entities.length === 1 ? 'entity' : 'entities'} in project ${projectId}:`, ...entities.map(renderEntity)].join('\n');
  },
});
