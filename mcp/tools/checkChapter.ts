// lore_author_check_chapter: checks a stored chapter in place with the deterministic core (no LLM), with positions.
import { z } from 'zod';
import { conflictKinds, severities, wordsPerCall } from '../../src/core/conflicts/kinds.ts';
import { chapterRef } from '../../src/core/validation.ts';
import { defineTool, projectArg, projectOf, runOperation } from './shared.ts';

const hitOutput = z.object({
  id: z.string().describe('pending conflict id'),
  severity: z.enum(severities).describe('P1 breaks approved canon outright, P2 very likely contradicts it, P3 possible or minor'),
  kind: z.enum(conflictKinds),
  title: z.string(),
  rationale: z.string().describe('why, citing the canon'),
  refs: z.array(z.string()).describe('canon ids cited'),
  line: z.number().int().describe('the line of the chapter (1-based) the quoted words begin on'),
  start: z.number().int().describe("offset of the quoted words' first character in the chapter's text"),
  end: z.number().int().describe('offset just past their last character'),
  quote: z.string().describe('the words of the chapter the hit stands on'),
});
const lostOutput = z.object({ entity: z.string(), key: z.string(), anchor: z.string(), line: z.number().int().nullable() });
type Check = { chapter: string; words: number; cached: boolean; hits: z.infer<typeof hitOutput>[]; anchorsLost: z.infer<typeof lostOutput>[] };

export const checkChapter = defineTool({
  name: 'lore_author_check_chapter',
  title: 'Check a stored chapter in place',
  description: `Checks a chapter already stored in Lore (see lore_author_chapters) against the canon, line by line in story time: a character who dies at a line of the chapter is dead only after it. Lists each contradiction (a dead character acting, a changed eye or hair colour, age or title, someone in two places at once, a wrong kinship word) with the line and the quoted words, and stores it as a pending conflict. Runs no LLM (no provider key needed); costs one call per ${wordsPerCall.toLocaleString('en')} words; the same text and canon answer again from the kept result.`,
  input: {
    project: projectArg,
    chapter: chapterRef.describe('The chapter id (for example ch-12).'),
  },
  output: {
    projectId: z.string(),
    chapter: z.string(),
    words: z.number().int(),
    cached: z.boolean().describe('answered from the last check of the same text and canon'),
    hits: z.array(hitOutput).describe('contradictions in reading order; empty when none'),
    anchorsLost: z.array(lostOutput).describe('state changes anchored by a phrase no longer in the chapter: placed at their given line or the chapter start'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    const projectId = projectOf(args.project, context);
    const data = await runOperation(context, 'CheckChapter', { projectId, chapter: args.chapter });
    const check = data.check as Check;
    return { projectId, ...check, hits: [...check.hits].sort((a, b) => a.start - b.start) };
  },
  render({ projectId, chapter, words, hits, anchorsLost }) {
    const lost = anchorsLost.map((a) => `- The anchor "${a.anchor}" (${a.key} of ${a.entity}) is no longer in the chapter; placed at ${a.line === null ? 'its start' : `line ${a.line}`}.`);
    if (hits.length === 0) return [`No contradictions with the canon of project ${projectId} in ${chapter} (${words} words).`, ...lost].join('\n');
    return [
      `${hits.length} ${hits.length === 1 ? 'contradiction' : 'contradictions'} in ${chapter} (${words} words) with the canon of project ${projectId}:`,
      ...hits.map((h) => `- line ${h.line} [${h.severity}] ${h.title} (${h.kind}): "${h.quote}". ${h.rationale} Cites ${h.refs.join(', ')}. Conflict ${h.id}.`),
      ...lost,
    ].join('\n');
  },
});
