// lore_author_brief: the canon a scene needs, as of its chapter, in one call and within a token budget.
import { z } from 'zod';
import { omittedCounts } from '../../src/core/brief/omitted.ts';
import { briefBudget, briefEntityIds, briefFormats, chapterRef, defaultBriefBudget, passageText } from '../../src/core/validation.ts';
import { defineTool, projectArg, projectOf, runOperation } from './shared.ts';

export const brief = defineTool({
  name: 'lore_author_brief',
  title: 'Brief me on the canon for a scene',
  description:
    'Call this before drafting or revising a scene. Give the scene (its draft or outline as text, and/or entity ids) and the chapter it belongs to; it answers, in one call and within a token budget (default 2,000), the canon that matters as it stands at that chapter: the characters, places and things the scene names (and relatives it names by a kin word such as "her brother") with their state and approved facts, the relationships between them, the entities one step away, the story\'s rules, the promises involving them, what each named character knows and does not know yet (the secrets the reader holds), and the last beats before the chapter. Most important first; every item is whole and carries its id, to cite; omitted counts what did not fit (call again with a larger budget for it). Markdown by default, ready to use as context; format json gives the same content structured.',
  input: {
    project: projectArg,
    chapter: chapterRef.optional().describe('The chapter id of the scene (for example ch-12): the canon as it stands there. Leave it out for after the last chapter.'),
    text: passageText.optional().describe('The scene: draft or outline, at most 50,000 characters.'),
    entity_ids: briefEntityIds.optional().describe('Entity ids (ent_...) the scene involves besides those its text names.'),
    budget: briefBudget.optional().describe(`Tokens at most (o200k_base encoding), 100 to 200,000; default ${defaultBriefBudget}.`),
    format: z.enum(briefFormats).optional().describe('markdown (default) or json.'),
  },
  output: {
    projectId: z.string(),
    chapter: z.string().optional().describe('the chapter it is as of; absent: after the last chapter'),
    format: z.enum(briefFormats),
    encoding: z.string().describe('tokenizer encoding'),
    budget: z.number().int(),
    tokens: z.number().int().describe('tokens of the rendering, never over budget'),
    omitted: omittedCounts.describe('items of each kind that did not fit'),
    content: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('format json: entities, relationships, neighbours, rules, promises, knowledge, beats')
      .meta({ additionalProperties: true }),
    markdown: z.string().optional().describe('format markdown'),
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    const projectId = projectOf(args.project, context);
    const data = await runOperation(context, 'Brief', {
      projectId,
      chapter: args.chapter,
      text: args.text,
      entityIds: args.entity_ids,
      budget: args.budget,
      format: args.format ?? 'markdown',
    });
    return { projectId, ...data.brief };
  },
  render(result) {
    const left = Object.entries(result.omitted).filter(([, n]) => n > 0);
    const footer = `\n(${result.tokens} of ${result.budget} tokens, ${result.encoding}${left.length ? `; did not fit: ${left.map(([k, n]) => `${n} ${k}`).join(', ')}` : ''})`;
    return (result.markdown ?? JSON.stringify(result.content)) + footer;
  },
});
