// Runs the named operations REST and MCP are built on. Documents are parsed, validated and compiled (graphql-jit) once,
// at start-up; a request only runs the compiled function, which costs a fraction of graphql-js's interpreting
// executor on a page of entities (about 600 fields). Expected failures come back with their code; anything else is
// logged with the request id and masked.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GraphQLError, Kind, parse, print, validate, visit, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { isErrorCode, problemCatalog, type ErrorCode } from '../src/core/errors.ts';
import type { Services } from '../src/core/services.ts';
import { createContext, releaseContext, type Caller } from './context.ts';
import type { Principal } from '../src/core/access/keys.ts';
import { LoreError } from '../src/core/errors.ts';
import { schema } from './schema.ts';

export const operationNames = [
  'ListProjects', 'CreateProject', 'Recall', 'Mentions', 'Search', 'Graph', 'Usage', 'ApproveFact', 'ImportBundle',
  'CheckConflicts', 'CheckChapter', 'Brief', 'Promises', 'Timeline', 'ExportProject', 'AuditLog',
  'Propose', 'Candidates', 'DecideCandidate',
  'CreateFact', 'UpdateFact', 'RetireFact', 'Dependents', 'EntityHistory', 'PutChapter', 'DeleteChapter',
  'CreateEntity', 'ReadEntity', 'UpdateEntity', 'DeleteEntity', 'CreateRelationship', 'UpdateRelationship', 'DeleteRelationship', 'DeleteProject',
  'ImportManuscript', 'ExtractCanon', 'Chapters', 'ReadChapter',
] as const;
export type OperationName = (typeof operationNames)[number];

export type OperationError = { code: ErrorCode; status: number; message: string; extensions: Record<string, unknown> };
/**
 * `version`: the canon version the whole answer was read at (recall and search, with the read cache on): the same
 * operation with the same variables answers the same at the same version.
 */
export type OperationOutcome = { ok: true; data: Record<string, unknown>; version?: string } | { ok: false; error: OperationError };
export type { Caller };

const operationsDir = fileURLToPath(new URL('./operations/', import.meta.url));

function loadDocuments(): Map<OperationName, DocumentNode> {
  const definitions = readdirSync(operationsDir)
    .filter((file) => file.endsWith('.graphql'))
    .sort()
    .flatMap((file) => parse(readFileSync(operationsDir + file, 'utf8')).definitions);
  const fragments = definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);
  const documents = new Map<OperationName, DocumentNode>();
  for (const name of operationNames) {
    const operation = definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === name);
    if (!operation) throw new Error(`operation ${name} is missing from graph/operations`);
    const spread = new Set<string>();
    visit(operation, { FragmentSpread: (node) => void spread.add(node.name.value) });
    const used = fragments.filter((f) => spread.has(f.name.value));
    const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation, ...used] };
    const errors = validate(schema, document);
    if (errors.length > 0) throw new Error(`operation ${name} does not match the schema: ${errors[0].message}`);
    documents.set(name, document);
  }
  return documents;
}

const documents = loadDocuments();

type Compiled = { query: CompiledQuery; rootFields: number };

const compiled = new Map<OperationName, Compiled>(
  [...documents].map(([name, document]) => {
    const query = compileQuery(schema, document, name);
    if (!isCompiledQuery(query)) throw new Error(`operation ${name} does not compile: ${query.errors?.[0]?.message}`);
    const operation = document.definitions[0] as OperationDefinitionNode;
    return [name, { query, rootFields: operation.selectionSet.selections.length }];
  }),
);

/** An operation's document (with the fragments it uses) as text, for a surface that sends it to a gateway. */
export function operationSource(name: OperationName): string {
  return print(documents.get(name)!);
}

export class Executor {
  constructor(private readonly services: Services) {}

  /** Resolves a presented key, so a surface can answer 401 before it looks at the rest of the request. */
  async authenticate(credential: string | undefined): Promise<{ ok: true; principal: Principal } | { ok: false; error: OperationError }> {
    try {
      return { ok: true, principal: await this.services.keys.authenticate(credential) };
    } catch (error) {
      if (error instanceof LoreError) return { ok: false, error: this.describe(error, '') };
      throw error;
    }
  }

  async run(name: OperationName, variables: Record<string, unknown>, caller: Caller): Promise<OperationOutcome> {
    const contextValue = createContext(this.services, caller);
    const { query, rootFields } = compiled.get(name)!;
    try {
      const result = await query.query(undefined, contextValue, variables);
      const error = result.errors?.[0];
      if (error) return { ok: false, error: this.describe(error, caller.requestId) };
      // Every root field read at one and the same version: the answer is that version's.
      const [first] = contextValue.readAt;
      const version = contextValue.readAt.length === rootFields && contextValue.readAt.every((v) => v === first) ? first : undefined;
      return { ok: true, data: result.data as Record<string, unknown>, version };
    } finally {
      releaseContext(contextValue);
    }
  }

  private describe(error: GraphQLError, requestId: string): OperationError {
    const code = error.extensions?.code;
    if (isErrorCode(code)) {
      const { status, ...extensions } = error.extensions as Record<string, unknown>;
      return { code, status: problemCatalog[code].status, message: error.message, extensions };
    }
    if (!error.originalError) {
      // Variable coercion: a value of the wrong type reached the operation. Named by the variable, in the surfaces'
      // words rather than GraphQL's (the surfaces name their fields like the variables).
      const variable = /^Variable "\$(\w+)"/.exec(error.message)?.[1] ?? '(root)';
      const message = 'is not a valid value for this field';
      return { code: 'validation_error', status: 400, message: `${variable}: ${message}`, extensions: { errors: [{ path: variable, message }] } };
    }
    this.services.logger.error({ err: error.originalError, requestId, path: error.path }, 'unexpected error');
    return { code: 'internal_error', status: 500, message: `Internal error; quote request id ${requestId} when reporting it.`, extensions: {} };
  }
}
