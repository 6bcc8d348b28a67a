// A REST route is a declaration: its contract (paths, inputs, outputs, scope, cost) for the OpenAPI document, and how
// its validated input becomes variables of one named GraphQL operation and the answer becomes the response body.
import type { z } from 'zod';
import type { OperationName } from '../graph/executor.ts';

export type RouteInput = {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  idempotencyKey?: string;
};

export type RouteDef = {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI form, relative to /api/v1 */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  scope: string;
  cost: number;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodObject;
  /** the body may be omitted altogether */
  bodyOptional?: boolean;
  idempotent?: boolean;
  /** runs the caller's LLM: reads the BYOK headers X-LLM-Provider, X-LLM-Key, X-LLM-Model */
  byok?: boolean;
  success: { status: 200 | 201; schema: z.ZodType; description: string };
  /** error statuses beyond those every authenticated route has (401, 403, 429, 500) */
  errors: number[];
  operation: OperationName;
  /** false: never refused by the per-minute rate limit, nor counted in it (GET /usage) */
  rateLimited?: false;
  /** the operation's answer is read at one canon version, so its body is kept per version (rest/answerCache.ts) */
  cacheable?: boolean;
  /**
   * The list of the answer (a member of respond()'s object) whose items the router keeps rendered by the objects the
   * operation resolved them from (graph/context.ts Caller.holdsItems): a held item is spliced in, not resolved and
   * serialised again. Given the operation's data.
   */
  items?(data: Record<string, unknown>): unknown[];
  /** response headers beyond the standard ones, declared in the OpenAPI document; each value is taken from the answer */
  headers?: Record<string, { description: string; value(data: Record<string, unknown>): string }>;
  /** the body is sent as respond() returns it, nulls included (user JSON such as an exported bundle's state) */
  keepNulls?: boolean;
  /** a PUT that creates what it names when it is new: answered 201 (same schema) when `when` holds, else success.status */
  created?: { description: string; when(data: Record<string, unknown>): boolean };
  /** OpenAPI links from the success answer: the operations that take the ids it holds (what to call next), in their
   * parameters or as fields of their JSON body */
  links?: Record<string, { operationId: string; parameters: Record<string, string>; requestBody?: Record<string, string> }>;
  /** the core's error paths (GraphQL argument names) as this route's request names them, e.g. { entityId: 'body.entity_id' } */
  errorPaths?: Record<string, string>;
  variables(input: RouteInput): Record<string, unknown>;
  respond(data: Record<string, unknown>): unknown;
};

/** RouteDef.links to each of `operationIds`, all with the same parameters (runtime expressions such as $response.body#/id). */
export const linksTo = (operationIds: string[], parameters: Record<string, string>): RouteDef['links'] =>
  Object.fromEntries(operationIds.map((operationId) => [operationId, { operationId, parameters }]));
