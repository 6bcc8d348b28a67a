// lore_author_knowledge: who knows what, when: what a character knows at a point, and what it does not know yet.
import { z } from 'zod';
import { chapterLine, chapterRef, resourceId } from '../../src/core/validation.ts';
import { defineTool, knownFactOutput, projectArg, projectOf, runOperation } from './shared.ts';

export const knowledge = defineTool({
  name: 'lore_author_knowledge',
  title: 'What does this character know?',
  description:
    "Who knows what, when. Lists, as of a chapter (and a line of it), the secret or restricted facts a character knows, and those the reader already knows that the character does not know yet (with where they learn it, if they do). Use it before writing a character's dialogue or thoughts, so they never speak of or act on what they cannot know yet.",
  input: {
    project: projectArg,
    entity_id: resourceId.describe('The character (ent_...).'),
    as_of: chapterRef.optional().describe('A chapter id (for example ch-12): knowledge as it stands there. Leave it out for after the last chapter.'),
    line: chapterLine.optional().describe('A line of that chapter: what is learned after it is not known yet. Without as_of it is not used.'),
  },
  output: {
    projectId: z.string(),
    entity: z.object({ id: z.string(), name: z.string() }),
    asOf: z.string().optional(),
    line: z.number().int().optional(),
    knows: z.array(knownFactOutput),
    unaware: z.array(knownFactOutput).describe('what the reader knows there that the character does not know yet'),
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    const projectId = projectOf(args.project, context);
    const data = await runOperation(context, 'Knowledge', { projectId, entityId: args.entity_id, asOf: args.as_of, line: args.line });
    return { projectId, ...data.knowledge };
  },
  render({ entity, asOf, line, knows, unaware }) {
    const at = asOf ? `as of ${asOf}${line ? ` line ${line}` : ''}` : 'after the last chapter';
    const where = (p?: { chapter?: string; line?: number }) => (p ? (p.chapter ? `${p.chapter}${p.line ? ` line ${p.line}` : ''}` : 'the start') : undefined);
    const fact = (f: z.infer<typeof knownFactOutput>, learned: string) => `- ${f.text} (about ${f.about.name}; \`${f.id}\`${f.secret ? ', secret' : ''}${learned})`;
    return [
      `${entity.name} (${entity.id}), ${at}:`,
      knows.length ? 'Knows:' : 'Knows none of the secret or restricted facts.',
      ...knows.map((f) => fact(f, where(f.learned) ? `, learned in ${where(f.learned)}` : '')),
      unaware.length ? 'Does not know yet (the reader does):' : 'Nothing the reader knows is hidden from them.',
      ...unaware.map((f) => fact(f, f.learned ? `, learns it in ${where(f.learned)}` : '')),
    ].join('\n');
  },
});
