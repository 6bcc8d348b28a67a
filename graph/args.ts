// Arguments are checked against the shared field rules (src/core/validation.ts) before any resolver uses them.
import { z } from 'zod';
import { parseOrFail } from '../src/core/validation.ts';

/** GraphQL passes absent optional arguments as null; the rules treat them as absent. */
export function parseArgs<S extends z.ZodRawShape>(shape: S, args: Record<string, unknown>): z.infer<z.ZodObject<S>> {
  const present = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null && value !== undefined));
  return parseOrFail(z.object(shape), present);
}
