// The dashboard's GraphQL operations (graph/operations/dashboard) against the schema: each parses, validates and is
// the one operation of its file, named after it, so a schema change that breaks the app fails here, browser or not.
import { readdirSync, readFileSync } from 'node:fs';
import { Kind, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../graph/schema.ts';

const dir = new URL('../../graph/operations/dashboard/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.graphql'));

describe('dashboard operations', () => {
  it('when the operation files are read, then there are some', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it.each(files)('when %s is validated against the schema, then it has no errors and is named after its file', (file) => {
    const document = parse(readFileSync(new URL(file, dir), 'utf8'));
    expect(validate(schema, document).map((e) => e.message)).toEqual([]);
    const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    expect(operations.map((o) => o.name?.value)).toEqual([file.replace(/\.graphql$/, '')]);
  });
});
