// What every Lore tool shares: how it is declared and registered, project selection, entity names, the entity
// shape it returns, and how a failure becomes a tool error a model can act on.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { OperationName } from '../../graph/executor.ts';
import { entityTypes } from '../../src/core/ingest/bundle.ts';
import { resourceId } from '../../src/core/validation.ts';
import type { Logger } from '../../src/logger.ts';
import type { LoreClient, Problem } from '../client.ts';

export type ToolContext = { client: LoreClient; defaultProjectId?: string; logger: Logger };

type ToolDefinition<I extends z.ZodRawShape, O extends z.ZodRawShape> = {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  run(args: z.infer<z.ZodObject<I>>, context: ToolContext): Promise<z.infer<z.ZodObject<O>>>;
  /** a short text a model reads well; the same content is in structuredContent */
  render(result: z.infer<z.ZodObject<O>>): string;
};

export type LoreTool = { name: string; register(server: McpServer, context: ToolContext): void };

/** A failure to report as a tool error (isError) with the problem's code and detail. */
export class ToolFailure extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail);
  }
}

export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(tool: ToolDefinition<I, O>): LoreTool {
  return {
    name: tool.name,
    register(server, context) {
      // Fields an operation gains later are dropped rather than sent: clients check results against outputSchema.
      const output = z.object(tool.output);
      const config = { title: tool.title, description: tool.description, inputSchema: tool.input, outputSchema: tool.output, annotations: tool.annotations };
      // The SDK types the handler's arguments through a conditional type that TypeScript cannot resolve for a generic shape.
      server.registerTool(tool.name, config, (async (args: z.infer<z.ZodObject<I>>): Promise<CallToolResult> => {
        try {
          const result = output.parse(await tool.run(args, context));
          return { content: [{ type: 'text', text: tool.render(result) }], structuredContent: result as Record<string, unknown> };
        } catch (error) {
          if (error instanceof ToolFailure) return problemResult(error.problem);
          context.logger.error({ err: error, tool: tool.name }, 'tool failed');
          return problemResult({ code: 'internal_error', detail: `${tool.name} failed unexpectedly; the details are in the server's log (stderr).` });
        }
      }) as never);
    },
  };
}

/** The tool error for a problem: code, HTTP status and detail, and what to do about it. */
export function problemResult(problem: Problem): CallToolResult {
  const lines = [`Lore error ${problem.code}${problem.status ? ` (HTTP ${problem.status})` : ''}: ${problem.detail}`];
  if (problem.retryAfter !== undefined) lines.push(`Wait ${problem.retryAfter} seconds, then call the tool again.`);
  if (problem.code === 'quota_exceeded') lines.push(`Do not retry before the quota resets${problem.resetsAt ? ` at ${problem.resetsAt}` : ''}.`);
  if (problem.status === 401) {
    lines.push('Set LORE_API_KEY in the "env" block of this MCP server in the AI client (shell profiles are not read), then restart the client: it does not hot-reload.');
  }
  return { content: [{ type: 'text', text: lines.join('\n') }], isError: true };
}

/** Runs one named operation and returns its data, or throws the problem as a ToolFailure. */
export async function runOperation(context: ToolContext, operation: OperationName, variables: Record<string, unknown>) {
  const outcome = await context.client.run(operation, variables);
  if (!outcome.ok) throw new ToolFailure(outcome.problem);
  return withoutNulls(outcome.data) as Record<string, any>;
}

export const projectArg = resourceId
  .optional()
  .describe('Project id (prj_...). Leave it out to use the default project, LORE_PROJECT_ID from this server\'s env block.');

/** The project argument, else LORE_PROJECT_ID; neither is a tool error that says how to choose one. */
export function projectOf(project: string | undefined, context: ToolContext): string {
  const chosen = project ?? context.defaultProjectId;
  if (!chosen) {
    throw new ToolFailure({
      code: 'validation_error',
      status: 400,
      detail: 'No project selected: pass the "project" argument (a project id such as prj_...) or set LORE_PROJECT_ID in the env block of this MCP server.',
    });
  }
  return chosen;
}

export const entityIdPattern = /^ent_[0-9a-z]{26}$/;

/**
 * An entity given by id, or by its exact name or alias (case-insensitive) looked up through Recall. A canonical name
 * wins over an alias; more than one match is an error listing them, so the model can pass an id.
 */
export async function resolveEntity(context: ToolContext, projectId: string, ref: string): Promise<{ id: string; name?: string }> {
  if (entityIdPattern.test(ref)) return { id: ref };
  const data = await runOperation(context, 'Recall', { projectId, q: ref, limit: 100 });
  const entities = data.entities as { id: string; canonicalName: string; aliases: string[] }[];
  const wanted = ref.trim().toLowerCase();
  const byName = entities.filter((e) => e.canonicalName.toLowerCase() === wanted);
  const matches = byName.length > 0 ? byName : entities.filter((e) => e.aliases.some((a) => a.toLowerCase() === wanted));
  if (matches.length === 1) return { id: matches[0].id, name: matches[0].canonicalName };
  if (matches.length === 0) {
    throw new ToolFailure({
      code: 'not_found',
      status: 404,
      detail: `No entity named "${ref}" in project ${projectId}. Use lore_author_search to find it, then pass its id.`,
    });
  }
  throw new ToolFailure({
    code: 'validation_error',
    status: 400,
    detail: `"${ref}" names ${matches.length} entities: ${matches.map((e) => `${e.canonicalName} (${e.id})`).join(', ')}. Pass the id of the one you mean.`,
  });
}

const mentionOutput = z.object({
  chapter: z.string().describe('chapter id'),
  line: z.number().int().describe('1-based line in the chapter'),
  snippet: z.string(),
  timestamp: z.string().describe('when the mention was recorded (ISO 8601)'),
});

const factOutput = z.object({
  id: z.string(),
  text: z.string(),
  from: z.string().optional().describe('chapter id it holds from (inclusive); absent: from the start'),
  until: z.string().optional().describe('chapter id it holds until (exclusive); absent: to the end'),
});

/** A secret or restricted fact in a character's knowledge (src/core/knowledge). */
export const knownFactOutput = z.object({
  id: z.string().describe('the fact'),
  text: z.string(),
  about: z.object({ id: z.string(), name: z.string() }).describe('the entity the fact is about'),
  secret: z.boolean(),
  learned: z
    .object({ chapter: z.string().optional().describe('absent: from the start'), line: z.number().int().optional() })
    .optional()
    .describe('knows: where it was learned; unaware: where it is learned later (absent: never)'),
});

export const entityOutput = z.object({
  id: z.string(),
  type: z.enum(entityTypes),
  canonicalName: z.string(),
  aliases: z.array(z.string()),
  approvalStatus: z.enum(['approved', 'suggested']).describe('approved canon, or only suggested'),
  confidence: z.number().optional().describe('0..1, how sure the source of the entity was'),
  currentState: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('the current state, free-form (for example status, location)')
    .meta({ additionalProperties: true }),
  pendingConflictIds: z.array(z.string()).describe('unresolved conflicts involving the entity'),
  lastMentions: z.array(mentionOutput).describe('the latest mentions in the manuscript, latest first (with as_of, the latest up to that chapter)'),
  facts: z.array(factOutput).describe('approved canon facts holding at the chapter asked about (else the latest)'),
  suggestedFacts: z.array(factOutput).describe('facts proposed but not approved: not canon yet'),
  knowledge: z
    .object({ knows: z.array(knownFactOutput), unaware: z.array(knownFactOutput) })
    .optional()
    .describe('characters, with as_of: the secret or restricted facts it knows there, and those the reader knows that it does not know yet'),
});
export type EntityOutput = z.infer<typeof entityOutput>;

/** A few lines per entity: what a writer's assistant needs to stay consistent with the canon. */
export function renderEntity(entity: EntityOutput): string {
  const head = `- ${entity.canonicalName} (${entity.type}, ${entity.approvalStatus}${entity.confidence !== undefined ? `, confidence ${entity.confidence}` : ''}) id ${entity.id}`;
  const lines = [head];
  if (entity.aliases.length > 0) lines.push(`  also called: ${entity.aliases.join(', ')}`);
  const state = Object.entries(entity.currentState ?? {});
  if (state.length > 0) lines.push(`  state: ${state.map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ')}`);
  for (const f of entity.facts) lines.push(`  fact: ${f.text}${renderSpan(f)}`);
  for (const f of entity.suggestedFacts) lines.push(`  fact (suggested): ${f.text}${renderSpan(f)}`);
  for (const f of entity.knowledge?.knows ?? []) lines.push(`  knows: ${f.text}`);
  for (const f of entity.knowledge?.unaware ?? []) lines.push(`  does not know yet: ${f.text}`);
  if (entity.pendingConflictIds.length > 0) lines.push(`  pending conflicts: ${entity.pendingConflictIds.join(', ')}`);
  for (const m of entity.lastMentions.slice(0, 3)) lines.push(`  mentioned ${m.chapter} line ${m.line}: "${m.snippet}"`);
  return lines.join('\n');
}

const renderSpan = (f: { from?: string; until?: string }) =>
  f.from || f.until ? ` (${[f.from && `from ${f.from}`, f.until && `until ${f.until}`].filter(Boolean).join(' ')})` : '';

/** GraphQL answers null for an absent optional field; tools leave it out, as REST does. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, withoutNulls(v)]));
  }
  return value;
}
