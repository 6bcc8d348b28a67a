// lore_author_remember: approve a fact into the canon, with where it came from.
import { z } from 'zod';
import { factText, sourceContent, text } from '../../src/core/validation.ts';
import { defineTool, projectArg, projectOf, resolveEntity, runOperation } from './shared.ts';

export const remember = defineTool({
  name: 'lore_author_remember',
  title: 'Approve a canon fact',
  description:
    'Adds a fact about an entity to the approved canon of the story and marks the entity approved, recording the decision with the source text it came from. Use it only when the author has settled something (for example "Keth has a scar over his left eye") and wants it remembered, not for ideas still under discussion. The entity is its id or its exact name or alias (a name costs one extra recall call); use lore_author_search first if unsure.',
  input: {
    project: projectArg,
    entity: text().trim().min(1).max(200).describe('The entity the fact is about: its id (ent_...) or its exact name or alias, for example "Mara Voss".'),
    fact: factText.describe('The fact to approve, one self-contained statement (at most 2000 characters).'),
    source: sourceContent.optional().describe('The passage the fact comes from, kept as provenance.'),
  },
  output: {
    projectId: z.string(),
    entityId: z.string(),
    entityName: z.string().optional().describe('the entity name, when it was given by name'),
    fact: z.string(),
    status: z.enum(['approved', 'suggested']),
    candidateId: z.string().describe('the recorded proposal'),
    decisionId: z.string().describe('the recorded decision'),
  },
  // Approving the same fact again leaves the canon as it is (the fact is stored once); only the decision log grows.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    const projectId = projectOf(args.project, context);
    const entity = await resolveEntity(context, projectId, args.entity);
    const { approval } = await runOperation(context, 'ApproveFact', { projectId, entityId: entity.id, fact: args.fact, content: args.source });
    return { projectId, entityId: entity.id, entityName: entity.name, fact: args.fact, ...approval };
  },
  render({ entityId, entityName, fact, status, decisionId }) {
    return `Canon updated: "${fact}" is ${status} for ${entityName ? `${entityName} (${entityId})` : entityId}; decision ${decisionId}.`;
  },
});
