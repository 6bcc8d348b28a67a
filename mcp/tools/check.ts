// lore_author_check: checks a passage against the canon (deterministic pass, then the writer's own LLM).
import { z } from 'zod';
import { conflictKinds, severities } from '../../src/core/conflicts/kinds.ts';
import { chapterLine, chapterRef, passageText } from '../../src/core/validation.ts';
import { defineTool, projectArg, projectOf, runOperation } from './shared.ts';

const conflictOutput = z.object({
  id: z.string().describe('pending conflict id'),
  severity: z.enum(severities).describe('P1 breaks approved canon outright, P2 very likely contradicts it, P3 possible or minor'),
  kind: z.enum(conflictKinds),
  episode: z.string().optional().describe('chapter id where it happens; absent when not known'),
  title: z.string(),
  rationale: z.string().describe('why, citing the canon'),
  refs: z.array(z.string()).describe('canon ids cited: entities, facts, relationships, beats'),
});

export const check = defineTool({
  name: 'lore_author_check',
  title: 'Check a passage against the canon',
  description:
    'Checks a new or revised passage of the story against the approved canon and lists where it contradicts it (a dead character acting, a changed eye colour or age, someone in two places at once, a character speaking of what they do not know yet, broken rules or promises, timeline and relationship slips), each with a severity, a rationale and the canon ids it cites. Use it before accepting or publishing text. It runs the writer\'s own LLM (LORE_LLM_PROVIDER and LORE_LLM_KEY in this server\'s env block) and costs 5 calls. Hits are stored as pending conflicts.',
  input: {
    project: projectArg,
    text: passageText.describe('The passage to check, as plain text (at most 50,000 characters).'),
    chapter: chapterRef.optional().describe('The chapter id the passage belongs to (for example ch-12), so later canon is not used against it.'),
    line: chapterLine.optional().describe('The line of that chapter the passage begins at: what is learned or changes later in the chapter does not hold yet.'),
  },
  output: {
    projectId: z.string(),
    conflicts: z.array(conflictOutput).describe('contradictions found, most severe first; empty when none'),
  },
  // It records its hits as pending conflicts (not read-only), and changes or removes no canon.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run(args, context) {
    const projectId = projectOf(args.project, context);
    const data = await runOperation(context, 'CheckConflicts', { projectId, text: args.text, chapter: args.chapter, line: args.line });
    const conflicts = (data.conflicts as z.infer<typeof conflictOutput>[]).sort((a, b) => a.severity.localeCompare(b.severity));
    return { projectId, conflicts };
  },
  render({ projectId, conflicts }) {
    if (conflicts.length === 0) return `No contradictions with the canon of project ${projectId} were found.`;
    return [
      `${conflicts.length} ${conflicts.length === 1 ? 'contradiction' : 'contradictions'} with the canon of project ${projectId}:`,
      ...conflicts.map((c) => `- [${c.severity}] ${c.title} (${c.kind}${c.episode ? `, ${c.episode}` : ''}): ${c.rationale} Cites ${c.refs.join(', ')}. Conflict ${c.id}.`),
    ].join('\n');
  },
});
