// Runs the named operations REST and MCP are built on. Documents are parsed, validated and compiled (graphql-jit) once,
// at start-up; a request only runs the compiled function, which costs a fraction of graphql-js's interpreting
// executor on a page of entities (about 600 fields). Expected failures come back with their code; anything else is
// logged with the request id and masked.
import { GraphQLError, validate, type OperationDefinitionNode } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { isErrorCode, problemCatalog, type ErrorCode } from '../src/core/errors.ts';
import type { Services } from '../src/core/services.ts';
import { createContext, releaseContext, type Admitted, type Caller, type CanonRead, type ListItems } from './context.ts';
import { hashSecret, type KeyRow, type Principal } from '../src/core/access/keys.ts';
import { AdmissionRefused } from '../src/core/metering/metering.ts';
import { LoreError, storeUnavailable } from '../src/core/errors.ts';
import { isStoreUnreachable } from '../src/db/unavailable.ts';
import { operationDocuments, type OperationName } from './operations.ts';
import { schema } from './schema.ts';

export { operationNames, operationSource, type OperationName } from './operations.ts';

export type OperationError = { code: ErrorCode; status: number; message: string; extensions: Record<string, unknown> };
/**
 * `version`: the canon version the whole answer was read at (recall and search, with the read cache on): the same
 * operation with the same variables answers the same at the same version.
 */
export type OperationOutcome = { ok: true; data: Record<string, unknown>; version?: string; items?: ListItems } | { ok: false; error: OperationError };
export type { Caller };

/**
 * An operation of one metered root field that `admitsWithKey`, needs a scope and counts against the rate limit: its
 * admission (key, rate limit, quota) can go in one statement before it runs (Metering.admitKey, one per batch). `idempotent`: only without an
 * Idempotency-Key, whose holder spends the quota later (graph/plugins/metering.ts).
 */
type Admissible = { scope: string; cost: number; idempotent: boolean; inWrite: boolean; readsCanon: boolean };
type Compiled = { query: CompiledQuery; rootFields: number; admissible?: Admissible };

function admissibleOf(operation: OperationDefinitionNode): Admissible | undefined {
  const [selection, ...others] = operation.selectionSet.selections;
  if (operation.operation === 'subscription' || others.length > 0 || selection.kind !== 'Field') return undefined;
  const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  const options = root?.getFields()[selection.name.value]?.extensions?.pothosOptions as
    | { cost?: number; idempotent?: boolean; rateLimited?: boolean; admitsWithKey?: boolean; admitsInWrite?: boolean; readsCanon?: boolean; authScopes?: { scope?: string } }
    | undefined;
  const scope = options?.authScopes?.scope;
  if (!options?.admitsWithKey || options.cost === undefined || options.rateLimited === false || typeof scope !== 'string') return undefined;
  return { scope, cost: options.cost, idempotent: options.idempotent === true, inWrite: options.admitsInWrite === true, readsCanon: options.readsCanon === true };
}

const compiled = new Map<OperationName, Compiled>(
  [...operationDocuments()].map(([name, document]) => {
    const errors = validate(schema, document);
    if (errors.length > 0) throw new Error(`operation ${name} does not match the schema: ${errors[0].message}`);
    const query = compileQuery(schema, document, name);
    if (!isCompiledQuery(query)) throw new Error(`operation ${name} does not compile: ${query.errors?.[0]?.message}`);
    const operation = document.definitions[0] as OperationDefinitionNode;
    return [name, { query, rootFields: operation.selectionSet.selections.length, admissible: admissibleOf(operation) }];
  }),
);

// Keys this process admitted lately, by their secret's hash: a write of one (a field that `admitsInWrite`) sends its
// admission with the write, in one round trip, which refuses it there, before the write, when the key is no longer
// live, lacks the scope or is over its limits (the operation then runs again, admitted alone: run).
const knownKeys = new Map<string, Omit<KeyRow, 'secretHash'>>();
const knownKeysKept = 1_000;

function canonRead(services: Services, projectId: string): CanonRead | undefined {
  const read = services.entities.readVersion(projectId);
  return read && { projectId, read };
}

export class Executor {
  constructor(private readonly services: Services) {}

  /**
   * Resolves a presented key, so a surface can answer 401 before it looks at the rest of the request. With `operation`
   * (the one the surface is about to run with `variables`, its input already valid), an admissible operation is also
   * admitted in the same round trip, its rate limit counted and quota reserved (Caller.admitted).
   */
  async authenticate(
    credential: string | undefined, operation?: { name: OperationName; variables: Record<string, unknown> },
  ): Promise<{ ok: true; principal: Principal; admitted?: Admitted; versionRead?: CanonRead } | { ok: false; error: OperationError }> {
    try {
      const admissible = operation && compiled.get(operation.name)!.admissible;
      if (!admissible || (admissible.idempotent && operation.variables.idempotencyKey != null)) {
        return { ok: true, principal: await this.services.keys.authenticate(credential) };
      }
      const { keys, metering } = this.services;
      const secret = keys.checkShape(credential);
      const keyHash = admissible.inWrite ? hashSecret(secret) : undefined;
      const known = keyHash && knownKeys.get(keyHash);
      if (known) {
        const principal = keys.principal(known);
        return { ok: true, principal, admitted: { pipelined: metering.pipelined(principal, keyHash, admissible.scope, admissible.cost) } };
      }
      // A field that answers at its project's canon version has that version read beside the admission, in the same
      // turn: a page served from memory then waits for one round trip, not two in turn. The read proves nothing by
      // itself (the field still checks the project is the caller's) and is dropped when the key is refused.
      const { projectId } = operation.variables;
      const versionRead = admissible.readsCanon && typeof projectId === 'string' ? canonRead(this.services, projectId) : undefined;
      const { key, admitted } = await metering.admitKey(secret, admissible.scope, admissible.cost);
      const principal = keys.principal(key);
      if (keyHash && key) {
        knownKeys.delete(keyHash);
        knownKeys.set(keyHash, key);
        if (knownKeys.size > knownKeysKept) knownKeys.delete(knownKeys.keys().next().value!);
      }
      return { ok: true, principal, admitted, versionRead };
    } catch (error) {
      if (error instanceof LoreError) return { ok: false, error: this.describe(error, '') };
      if (isStoreUnreachable(error)) return { ok: false, error: this.describe(storeUnavailable(), '') };
      throw error;
    }
  }

  async run(name: OperationName, variables: Record<string, unknown>, caller: Caller): Promise<OperationOutcome> {
    const pipelined = caller.admitted && 'pipelined' in caller.admitted ? caller.admitted.pipelined : undefined;
    const contextValue = createContext(this.services, caller);
    const { query, rootFields } = compiled.get(name)!;
    try {
      const result = await query.query(undefined, contextValue, variables);
      const error = result.errors?.[0];
      if (pipelined && error?.originalError instanceof AdmissionRefused) {
        // Refused with its write, so nothing was counted or written: admitted alone, for the refusal's own answer.
        knownKeys.delete(pipelined.keyHash);
        const auth = await this.authenticate(caller.credential, { name, variables });
        if (!auth.ok) return auth;
        return this.run(name, variables, { ...caller, principal: auth.principal, admitted: auth.admitted, versionRead: auth.versionRead });
      }
      if (error) return { ok: false, error: this.describe(error, caller.requestId) };
      // Every root field read at one and the same version: the answer is that version's.
      const [first] = contextValue.readAt;
      const version = contextValue.readAt.length === rootFields && contextValue.readAt.every((v) => v === first) ? first : undefined;
      return { ok: true, data: result.data as Record<string, unknown>, version, items: rootFields === 1 ? contextValue.listItems : undefined };
    } finally {
      // Admitted, but refused before its field ran (a variable GraphQL would not coerce): its reservation goes back.
      const admitted = contextValue.takeAdmitted();
      const unspent = admitted && 'reservation' in admitted ? admitted.reservation : undefined;
      if (unspent && !(unspent instanceof Error)) await unspent();
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
    if (isStoreUnreachable(error.originalError)) {
      this.services.logger.warn({ err: error.originalError, requestId }, 'store unavailable');
      return this.describe(storeUnavailable(), requestId);
    }
    this.services.logger.error({ err: error.originalError, requestId, path: error.path }, 'unexpected error');
    return { code: 'internal_error', status: 500, message: `Internal error; quote request id ${requestId} when reporting it.`, extensions: {} };
  }
}
