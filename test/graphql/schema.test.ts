import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { printedSchema } from '../../graph/schema.ts';

describe('committed GraphQL SDL', () => {
  it('when the schema is printed, then it equals graph/schema.graphql', async () => {
    const committed = await readFile(new URL('../../graph/schema.graphql', import.meta.url), 'utf8');
    // A plain equality check, so the failure says what to do instead of dumping two 250-line strings.
    expect(committed === `${printedSchema()}\n`, 'graph/schema.graphql is out of date: run `npm run schema:print`').toBe(true);
  });
});
