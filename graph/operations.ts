// The named operations REST, MCP and the CLI are built on, as documents: parsed here without the schema, so that a
// client that only sends them to a gateway (graph/remoteExecutor.ts) does not load it. graph/executor.ts validates
// and compiles them against the schema.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Kind, parse, print, visit, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';

export const operationNames = [
  'ListProjects', 'CreateProject', 'Recall', 'Mentions', 'Search', 'Graph', 'Usage', 'ApproveFact', 'ImportBundle',
  'CheckConflicts', 'CheckChapter', 'Brief', 'Promises', 'Knowledge', 'Timeline', 'ExportProject', 'AuditLog',
  'Propose', 'Candidates', 'DecideCandidate',
  'CreateFact', 'UpdateFact', 'RetireFact', 'Dependents', 'EntityHistory', 'PutChapter', 'DeleteChapter',
  'CreateEntity', 'ReadEntity', 'UpdateEntity', 'DeleteEntity', 'CreateRelationship', 'UpdateRelationship', 'DeleteRelationship', 'DeleteProject',
  'ImportManuscript', 'ExtractCanon', 'Chapters', 'ReadChapter',
] as const;
export type OperationName = (typeof operationNames)[number];

const operationsDir = fileURLToPath(new URL('./operations/', import.meta.url));

let documents: Map<OperationName, DocumentNode> | undefined;

/** Each operation with the fragments it uses, read once. */
export function operationDocuments(): Map<OperationName, DocumentNode> {
  if (documents) return documents;
  const definitions = readdirSync(operationsDir)
    .filter((file) => file.endsWith('.graphql'))
    .sort()
    .flatMap((file) => parse(readFileSync(operationsDir + file, 'utf8')).definitions);
  const fragments = definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);
  documents = new Map();
  for (const name of operationNames) {
    const operation = definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === name);
    if (!operation) throw new Error(`operation ${name} is missing from graph/operations`);
    const spread = new Set<string>();
    visit(operation, { FragmentSpread: (node) => void spread.add(node.name.value) });
    const used = fragments.filter((f) => spread.has(f.name.value));
    documents.set(name, { kind: Kind.DOCUMENT, definitions: [operation, ...used] });
  }
  return documents;
}

/** An operation's document (with the fragments it uses) as text, for a surface that sends it to a gateway. */
export function operationSource(name: OperationName): string {
  return print(operationDocuments().get(name)!);
}

/** A query changes nothing: a call cut off on its way is safe to repeat, and nothing is unknown about it. */
export function isQuery(name: OperationName): boolean {
  return (operationDocuments().get(name)!.definitions[0] as OperationDefinitionNode).operation === 'query';
}
