// lore_author_promises: the promise ledger, what the story still owes as of a chapter.
import { z } from 'zod';
import { atRiskAfter, chapterRef } from '../../src/core/validation.ts';
import { defineTool, projectArg, projectOf, runOperation } from './shared.ts';

const lineOutput = z.object({
  id: z.string().describe('the promise entity'),
  name: z.string(),
  approval: z.string().describe('approved canon, or only suggested'),
  status: z.enum(['open', 'paid', 'dropped']).describe('as of the chapter asked about'),
  setUpIn: z.string().optional().describe('chapter id of its setup'),
  paidOffIn: z.string().optional().describe('chapter id of its payoff'),
  involves: z.array(z.object({ id: z.string(), name: z.string() })),
  age: z.number().int().optional().describe('chapters since its setup'),
  atRisk: z.boolean().describe('open for longer than the threshold'),
  paidBeforeSetUp: z.boolean().describe('its payoff chapter comes before its setup chapter'),
});

export const promises = defineTool({
  name: 'lore_author_promises',
  title: 'Read the promise ledger',
  description:
    "Lists the story's promises (setups that owe a payoff, Chekhov's guns) as they stand at a chapter: where each was set up and paid off, the entities it involves, whether it is open, paid or dropped, how many chapters it has waited, and whether an open one is at risk of being forgotten (waiting longer than at_risk_after chapters, default 10). Use it when planning or drafting a chapter, to pay off or keep alive what the story owes.",
  input: {
    project: projectArg,
    as_of: chapterRef.optional().describe('A chapter id (for example ch-12): the ledger as it stands there. Leave it out for after the last chapter.'),
    at_risk_after: atRiskAfter.optional().describe('Chapters an open promise may wait before it is at risk (default 10).'),
  },
  output: { projectId: z.string(), promises: z.array(lineOutput).describe('by setup chapter') },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    const projectId = projectOf(args.project, context);
    const data = await runOperation(context, 'Promises', { projectId, asOf: args.as_of, atRiskAfter: args.at_risk_after });
    return { projectId, promises: data.promises };
  },
  render({ projectId, promises: lines }) {
    if (lines.length === 0) return `No promises in the ledger of project ${projectId}.`;
    return [
      `${lines.length} ${lines.length === 1 ? 'promise' : 'promises'} in project ${projectId}:`,
      ...lines.map(
        (p) =>
          `- ${p.name} (${p.id}): ${p.status}${p.atRisk ? ', AT RISK' : ''}${p.setUpIn ? `, set up in ${p.setUpIn}` : ''}${p.age !== undefined ? ` (${p.age} chapters ago)` : ''}` +
          `${p.paidOffIn ? `, paid off in ${p.paidOffIn}` : ''}${p.paidBeforeSetUp ? ', paid off before it is set up' : ''}` +
          `${p.involves.length ? `; involves ${p.involves.map((e) => e.name).join(', ')}` : ''}`,
      ),
    ].join('\n');
  },
});
