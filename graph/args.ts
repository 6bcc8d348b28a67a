// Arguments are checked against the shared field rules (src/core/validation.ts) before any resolver uses them.
import { z } from 'zod';
import { parseOrFail } from '../src/core/validation.ts';

/**
 * GraphQL passes absent optional arguments as null; the rules treat them as absent. Each field builds its schema once,
 * at start-up (zod compiles an object schema on first use).
 */
export function parseArgs<S extends z.ZodObject>(schema: S, args: Record<string, unknown>): z.infer<S> {
  const present = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null && value !== undefined));
  return parseOrFail(schema, present);
}
