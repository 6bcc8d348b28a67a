// What a brief leaves out to keep within its budget: a count per kind of item. One shape for every surface that
// states it (REST's schema, MCP's output).
import { z } from 'zod';

export const omittedCounts = z.object({
  entities: z.number().int(),
  facts: z.number().int(),
  relationships: z.number().int(),
  neighbours: z.number().int(),
  rules: z.number().int(),
  promises: z.number().int(),
  knowledge: z.number().int(),
  beats: z.number().int(),
});

export type Omitted = z.infer<typeof omittedCounts>;
export type OmittedKind = keyof Omitted;
