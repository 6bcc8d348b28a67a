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
  variables(input: RouteInput): Record<string, unknown>;
  respond(data: Record<string, unknown>): unknown;
};
