// Per-operation context: who is calling (resolved lazily from the presented key, once) and the services to use.
import { contextCacheSymbol } from '@pothos/core';
import { RequestCache } from '@pothos/plugin-scope-auth';
import type { LoreError } from '../src/core/errors.ts';
import type { Principal } from '../src/core/access/keys.ts';
import type { Services } from '../src/core/services.ts';
import type { Admission, PipelinedAdmission, RateLimitState } from '../src/core/metering/metering.ts';
import type { PendingAudit } from '../src/core/audit/inTransaction.ts';

/**
 * A request admitted before it ran (Executor.authenticate): its rate limit counted and its quota reserved, or refused;
 * or (`pipelined`) its admission made ready for its write to send in the same round trip.
 */
export type Admitted = NonNullable<Admission['admitted']> | { pipelined: PipelinedAdmission };
import type { LlmCredentials } from '../src/core/llm/provider.ts';
import type { VersionRead } from '../src/core/canon/entities.ts';

export type GraphContext = {
  requestId: string;
  services: Services;
  /** the authenticated caller; rejects with AUTH_MISSING_KEY, AUTH_INVALID_KEY or AUTH_EXPIRED_KEY */
  principal(): Promise<Principal>;
  /** counts this operation against the per-minute rate limit, once however many root fields it has */
  countRequest(): Promise<void>;
  /** tells the surface the key's rate limit as it stands, for its RateLimit headers */
  reportRateLimit(state: RateLimitState): void;
  /**
   * Idempotent root fields (by response key): spends the field's quota cost. Its resolver calls it once it holds the
   * request's Idempotency-Key (Idempotency.run), so a replay never spends.
   */
  reservations: Map<string | number, () => Promise<void>>;
  /**
   * Set when the surface admitted the request before it ran (Caller.admitted): the metering plugin takes its
   * reservation (once) instead of reserving. The request is counted already: countRequest reports it.
   */
  takeAdmitted(): Admitted | undefined;
  /**
   * Set by the metering plugin for a field that `admitsInWrite`, admitted `pipelined`: its resolver hands it to the
   * writer, which sends it with the write (or alone before it).
   */
  pipelined?: PipelinedAdmission;
  /**
   * Set by the audit plugin while a mutation's resolver runs: its audit entry, which the resolver hands to a writer
   * that stores it in the write's own transaction (src/core/audit/inTransaction.ts).
   */
  audit?: PendingAudit;
  /**
   * This request's read of a project's canon version: the first call starts it (the metering plugin does, while the
   * request is admitted, for a field that `readsCanon`), later calls share it. Undefined when the read cache is off.
   */
  canonVersion(projectId: string): VersionRead | undefined;
  /** why authentication failed, set by the scope check so an unauthorized field reports it */
  authFailure?: LoreError;
  /** the caller's own LLM provider (BYOK headers); never stored or logged */
  llm?: LlmCredentials;
  /**
   * The canon versions (`projectId@version`, see EntityReader.cachedPage) root fields read their answers at, one per
   * reporting field; undefined: read without one.
   */
  readAt: (string | undefined)[];
  /**
   * A root field reports the version it read its answer at; true when the surface already holds that answer
   * (Caller.holdsAnswer), so the field leaves its page out.
   */
  answeredAt(version: string | undefined): boolean;
  /**
   * A root field reports the objects its answer's list is resolved from, in order; true when the surface holds the
   * rendering of each one (Caller.holdsItems), so the field leaves its list empty.
   */
  itemsFrom(items: readonly object[]): boolean;
  /** what the root field reported through itemsFrom: its list's objects, and whether it left the list empty */
  listItems?: ListItems;
  /** the key Pothos' plugins keep this request's state under, in their WeakMaps (see releaseContext) */
  [contextCacheSymbol]?: object;
};

function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => (pending ??= fn());
}

export type Caller = {
  requestId: string;
  credential: string | undefined;
  /** already resolved by the surface (REST authenticates before validating input) */
  principal?: Principal;
  llm?: LlmCredentials;
  /**
   * For a surface that keeps answers per canon version: true when it holds the answer read at `version`. The root
   * field then still checks and counts everything but leaves its answer empty, and the surface sends what it holds.
   */
  holdsAnswer?: (version: string) => boolean;
  /**
   * For a surface that keeps the rendering of a list's items by the object each was resolved from (REST: a search
   * page's entities, whose cards stay the same objects while they stand): true when it holds every one of `items`.
   * The root field then leaves its list empty, and the surface puts what it holds in its place.
   */
  holdsItems?: (items: readonly object[]) => boolean;
  /** receives the key's rate limit once the operation has counted (or read) it, for the surface's RateLimit headers */
  onRateLimit?: (state: RateLimitState) => void;
  /** counted and reserved with the key, before the operation runs (Executor.authenticate with the operation) */
  admitted?: Admitted;
  /** the project's canon version, read beside the admission (Executor.authenticate): canonVersion answers it */
  versionRead?: CanonRead;
};

/** A read of a project's canon version started before the operation ran. */
export type CanonRead = { projectId: string; read: VersionRead };

/** The objects a root field's list was resolved from, in order; `leftOut`: the list was left empty (Caller.holdsItems). */
export type ListItems = { items: readonly object[]; leftOut: boolean };

export function createContext(services: Services, request: Caller): GraphContext {
  const versionReads = new Map<string, VersionRead | undefined>(request.versionRead ? [[request.versionRead.projectId, request.versionRead.read]] : []);
  const counted = request.admitted && 'rate' in request.admitted ? request.admitted.rate : undefined;
  const context: GraphContext = {
    [contextCacheSymbol]: {},
    requestId: request.requestId,
    services,
    principal: once(async () => request.principal ?? services.keys.authenticate(request.credential)),
    countRequest: once(async () => {
      const principal = await context.principal();
      try {
        if (counted instanceof Error) throw counted;
        context.reportRateLimit(counted ?? (await services.metering.hit(principal)));
      } catch (error) {
        const retryAfter = (error as LoreError).extensions?.retryAfter;
        if (typeof retryAfter === 'number') context.reportRateLimit({ limit: principal.ratePerMinute, remaining: 0, resetSeconds: retryAfter });
        throw error;
      }
    }),
    // Methods rather than arrows: tsx names each arrow held by a property with a defineProperty call as the context is
    // made (esbuild's keepNames), on every request; none of them reads `this`, so a copy of the context keeps working.
    reportRateLimit(state) {
      request.onRateLimit?.(state);
    },
    reservations: new Map(),
    takeAdmitted() {
      const { admitted } = request;
      request.admitted = undefined;
      return admitted;
    },
    canonVersion(projectId) {
      if (!versionReads.has(projectId)) versionReads.set(projectId, services.entities.readVersion(projectId));
      return versionReads.get(projectId);
    },
    llm: request.llm,
    readAt: [],
    answeredAt(version) {
      context.readAt.push(version);
      return version !== undefined && request.holdsAnswer?.(version) === true;
    },
    itemsFrom(items) {
      const leftOut = request.holdsItems?.(items) === true;
      context.listItems = { items, leftOut };
      return leftOut;
    },
  };
  return context;
}

/**
 * Called once the operation is done. Pothos' plugins keep per-request state in WeakMaps under the context's cache key,
 * and that state points back at the context. V8's young-generation GC keeps every WeakMap value alive whatever its key,
 * so such an entry kept the whole request (the context and all it reaches) through each young-generation GC until it
 * was promoted and left for a full one: measured under load, about 1 MB promoted per young-generation GC and the GC a
 * tenth of the gateway's time. Scope-auth's cache, the one every operation fills, is cleared; entries of the others
 * (Prisma and dataloader state on some fields) lose their key and go at the next young-generation GC.
 */
export function releaseContext(context: GraphContext): void {
  RequestCache.clearForContext(context);
  context[contextCacheSymbol] = undefined;
}
