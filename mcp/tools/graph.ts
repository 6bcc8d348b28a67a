// lore_author_graph: who is related to whom, around one entity or across the whole story.
import { z } from 'zod';
import { graphDepth, text } from '../../src/core/validation.ts';
import { defineTool, projectArg, projectOf, resolveEntity, runOperation } from './shared.ts';

export const graph = defineTool({
  name: 'lore_author_graph',
  title: 'Read the relationship graph',
  description:
    'Reads the relationship graph of the canon: entities as nodes and relationships (for example sibling_of, captains, died_at) as edges. With root, the entities within depth hops of it; without root, the most connected entities of the story. Use it to answer how characters, places and objects are connected before writing a scene that depends on those ties. A root given by name costs one extra recall call.',
  input: {
    project: projectArg,
    root: text().trim().min(1).max(200).optional().describe('The entity to start from: its id (ent_...) or its exact name or alias. Leave it out for the most connected entities.'),
    depth: graphDepth.optional().describe('How many hops from root, 1 to 3 (default 1).'),
  },
  output: {
    projectId: z.string(),
    root: z.string().optional().describe('the id of the root entity, when one was given'),
    nodes: z.array(z.object({ id: z.string(), label: z.string().describe('the entity name'), type: z.string().describe('the entity type') })),
    edges: z.array(z.object({ from: z.string(), to: z.string(), kind: z.string().describe('the relationship, for example sibling_of'), weight: z.number() })),
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    const projectId = projectOf(args.project, context);
    const root = args.root === undefined ? undefined : (await resolveEntity(context, projectId, args.root)).id;
    const data = await runOperation(context, 'Graph', { projectId, root, depth: args.depth });
    return { projectId, root, nodes: data.graph.nodes, edges: data.graph.edges };
  },
  render({ projectId, root, nodes, edges }) {
    const label = new Map(nodes.map((n) => [n.id, n.label]));
    const around = root ? ` around ${label.get(root) ?? root}` : '';
    const lines = [`Relationship graph of project ${projectId}${around}: ${nodes.length} entities, ${edges.length} relationships.`];
    if (nodes.length > 0) lines.push(`Entities: ${nodes.map((n) => `${n.label} (${n.type}, ${n.id})`).join('; ')}`);
    for (const e of edges) lines.push(`- ${label.get(e.from) ?? e.from} -[${e.kind}]-> ${label.get(e.to) ?? e.to}${e.weight !== 1 ? ` (weight ${e.weight})` : ''}`);
    return lines.join('\n');
  },
});
