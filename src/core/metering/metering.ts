// Rate limits (per key and minute) and quotas (per key and UTC day or month), both kept in the database so that
// every gateway process sharing it enforces one limit.
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { LoreError } from '../errors.ts';
import type { Principal } from '../access/keys.ts';
import { rows, statement, utcTimestamp, type AheadStatement, type Literal, type SqlClient } from '../../db/sql.ts';
import { periodStart, tierPolicies, tiers } from '../access/tiers.ts';
import { hashSecret, principalOf, type KeyRow } from '../access/keys.ts';
import { batched, settleGroups } from '../../db/batch.ts';

// Greedy over a batch of requests of one key, in arrival order, under the counter's row lock: concurrent requests on
// any number of processes can never spend past the quota (prisma/migrations/…_batched_metering).
const reserveQuota = statement('reserve_quota', `SELECT lore_reserve_quota($1, $2::timestamp(3), $3::int[], $4::int) AS granted`);

const refundQuota = statement('refund_quota', `
  UPDATE "UsageCounter" SET "used" = GREATEST("used" - $3::int, 0) WHERE "keyId" = $1 AND "periodStart" = $2::timestamp(3)`);

// The whole admission of each request of a batch, the key with its rate limit and quota, in one round trip for the
// batch (prisma/migrations/…_search28i_grouped_admission): the requests of one key decided in arrival order as
// lore_admit would decide them one by one, its rows written once for them all; a request whose key is not found gets a
// row of nulls.
const admitStatement = statement('admit_batch', `
  SELECT id, "accountId", tier, scopes, "customQuota", "customRate", revoked, expired, points, expire, granted
  FROM lore_admit_batch($1::text[], $2::text[], $3::int[], $4::bigint[], $5::timestamp(3)[], $6::timestamp(3)[], $7::text[], $8::int[], $9::boolean[], $10::int[])
  ORDER BY n`);
type AdmitRequest = { hash: string; scope: string; cost: number; now: Date; day: Date; month: Date };
type AdmitRow = Omit<KeyRow, 'secretHash'> & { points: number | null; expire: string | null; granted: boolean | null };
const tierTable = [tiers, tiers.map((t) => tierPolicies[t].quota), tiers.map((t) => tierPolicies[t].period === 'day'), tiers.map((t) => tierPolicies[t].ratePerMinute)];

// The same admission sent ahead of its write, in its round trip: refused, it raises, so the write never runs
// (prisma/migrations/…_writes28_pipelined_admission).
const admitOrRefuse = statement('admit_or_refuse', `
  SELECT * FROM lore_admit_or_refuse($1, $2, $3::int, $4::bigint, $5::timestamp(3), $6::timestamp(3), $7::text[], $8::int[], $9::boolean[], $10::int[])`);
const rateWindow = statement('rate_window', `SELECT points, expire::text AS expire FROM "RateLimit" WHERE key = $1`);
const tierLiterals = [tiers, ...tierTable.slice(1).map((column) => column.map(String))];
/** What lore_admit_or_refuse raises for a refused request. */
const refusedState = 'LA001';

/** A request lore_admit_or_refuse refused: nothing of it was counted or written; it is to be admitted alone. */
export class AdmissionRefused extends Error {}

/**
 * A request's admission (rate limit counted, cost reserved) that a writer sends in its own transaction's round trip,
 * ahead of its write, in a transaction of its own that commits without waiting for the disk (as the metering
 * connections do). `statements` go first; `received` takes their answers. A writer that sends its write otherwise runs
 * `alone` first. Refused, either throws AdmissionRefused.
 */
export class PipelinedAdmission {
  /** the rate limit as the admission counted it (unset until it ran) */
  rate?: RateLimitState;
  private ran = false;

  constructor(
    private readonly sql: SqlClient,
    private readonly principal: Principal,
    private readonly values: Literal[],
    private readonly now: Date,
    readonly keyHash: string,
  ) {}

  // Run prepared where the pool prepares: written out inline, it was parsed, analysed and planned on every write (0.3
  // ms of PostgreSQL's CPU, half the admission's).
  get statements(): AheadStatement[] {
    return ['BEGIN', 'SET LOCAL synchronous_commit TO off', { statement: admitOrRefuse, values: this.values }, 'COMMIT'];
  }

  /** The answers of `statements`, in order. */
  received(results: { rows: unknown[] }[]): void {
    const [{ points, expire }] = results[2].rows as { points: number; expire: string }[];
    this.ran = true;
    this.rate = rateState(this.principal.ratePerMinute, points, Math.max(Number(expire) - this.now.getTime(), 0)) as RateLimitState;
  }

  /** The error of the round trip that carried `statements`: AdmissionRefused when the admission refused, else `error`. */
  failed(error: unknown): unknown {
    if ((error as { code?: unknown }).code === refusedState) return new AdmissionRefused('admission refused');
    // Any later statement's error comes after the admission committed.
    this.ran = true;
    return error;
  }

  /**
   * After a write whose round trip carried `statements` failed past them (`failed` said so), which the writer makes
   * again without them: the rate limit as it stands now, read alone, since the failed round trip's answers are lost.
   */
  async recount(): Promise<void> {
    const [window] = await rows<{ points: number; expire: string | null }>(this.sql, rateWindow, [`rpm:${this.principal.keyId}`]);
    if (window) this.rate = rateState(this.principal.ratePerMinute, window.points, Math.max(Number(window.expire) - this.now.getTime(), 0)) as RateLimitState;
  }

  async alone(): Promise<void> {
    let found: { rows: unknown[] };
    try {
      found = await this.sql.query({ name: admitOrRefuse.name, text: admitOrRefuse.text, values: this.values });
    } catch (error) {
      if ((error as { code?: unknown }).code === refusedState) throw new AdmissionRefused('admission refused');
      throw error;
    }
    this.received([{ rows: [] }, { rows: [] }, found]);
  }

  /** After a failed write: the reservation goes back when the admission was made. */
  async refund(): Promise<void> {
    if (!this.ran) return;
    this.ran = false;
    const start = periodStart(this.principal.period, this.now);
    await rows(this.sql, refundQuota, [this.principal.keyId, utcTimestamp(start), this.values[2]]);
  }
}

/**
 * What admitKey found: the key's row (undefined: no such key) and, when the key is live and holds the scope, the
 * request's rate limit and its quota reservation as decided (each a LoreError when refused; the reservation undefined
 * when the rate limit refused the request first, so nothing was reserved).
 */
export type Admission = {
  key: Omit<KeyRow, 'secretHash'> | undefined;
  admitted?: { rate: RateLimitState | LoreError; reservation: (() => Promise<void>) | LoreError | undefined };
};

const quotaUsed = statement('quota_used', `SELECT "used" FROM "UsageCounter" WHERE "keyId" = $1 AND "periodStart" = $2::timestamp(3)`);

export type UsageSummary = {
  apiKeyId: string;
  period: 'day' | 'month';
  used: number;
  quota: number;
  remaining: number;
  rateLimitPerMinute: number;
  resetsAt: string;
  rateLimit: RateLimitState;
};

type Reservation = { principal: Principal; start: Date; cost: number; now: Date };

/** A key's per-minute rate limit as it stands after a request: what the RateLimit headers and GET /usage report. */
export type RateLimitState = { limit: number; remaining: number; resetSeconds: number };

export class Metering {
  private readonly limiters = new Map<number, RateLimiterPostgres>();

  // A key's requests of one batch are counted with one consume of as many points; the counter's value afterwards
  // says which of them fit in the minute's limit.
  private readonly hits = batched<Principal, RateLimitState>((principals) =>
    settleGroups(principals, (p) => `${p.keyId}\0${p.ratePerMinute}`, async (group) => {
      const { keyId, ratePerMinute } = group[0];
      let counted: RateLimiterRes;
      try {
        counted = await this.limiter(ratePerMinute).consume(keyId, group.length);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        counted = rejection;
      }
      const first = counted.consumedPoints - group.length + 1;
      return group.map((_, position) => rateState(ratePerMinute, first + position, counted.msBeforeNext));
    }),
  );

  private readonly reservations = batched<Reservation, true>((reservations) =>
    settleGroups(reservations, (r) => `${r.principal.keyId}\0${r.start.getTime()}\0${r.principal.quota}`, async (group) => {
      const { principal, start } = group[0];
      const costs = group.map((r) => r.cost);
      const [{ granted }] = await rows<{ granted: boolean[] }>(this.sql, reserveQuota, [principal.keyId, utcTimestamp(start), costs, principal.quota]);
      return group.map(({ now }, position) => {
        return granted[position] ? true : quotaExceeded(principal, now);
      });
    }),
  );

  // Requests admitted with their key (admitKey) that arrived together: one statement for all of them, sent in the
  // keys' order. Each admission locks its key's rows until the statement ends, so two batches meeting the same keys in
  // opposite orders (other gateways, other ticks) would each wait for the other: a deadlock, answered with a 500.
  private readonly admissions = batched<AdmitRequest, AdmitRow | undefined>(async (arrived) => {
    const order = arrived.map((_, i) => i).sort((a, b) => (arrived[a].hash < arrived[b].hash ? -1 : arrived[a].hash > arrived[b].hash ? 1 : a - b));
    const requests = order.map((i) => arrived[i]);
    const found = await rows<AdmitRow>(this.sql, admitStatement, [
      requests.map((r) => r.hash), requests.map((r) => r.scope), requests.map((r) => r.cost), requests.map((r) => r.now.getTime()),
      requests.map((r) => utcTimestamp(r.day)), requests.map((r) => utcTimestamp(r.month)), ...tierTable,
    ]);
    const answers: (AdmitRow | undefined)[] = new Array(arrived.length);
    order.forEach((i, position) => (answers[i] = found[position].id === null ? undefined : found[position]));
    return answers;
  });

  /** `sql`: the database's metering connections (see src/db/database.ts). */
  constructor(private readonly sql: SqlClient) {}

  private limiter(points: number): RateLimiterPostgres {
    let limiter = this.limiters.get(points);
    if (!limiter) {
      limiter = new RateLimiterPostgres({
        storeClient: this.sql,
        storeType: 'pool',
        tableName: 'RateLimit',
        tableCreated: true, // by the migrations
        keyPrefix: 'rpm',
        points,
        duration: 60,
      });
      this.limiters.set(points, limiter);
    }
    return limiter;
  }

  /** Counts one request against the key's per-minute limit; a request over it fails with rate_limited. */
  hit(principal: Principal): Promise<RateLimitState> {
    return this.hits.load(principal);
  }

  /** The key's rate limit as it stands, without counting a request (GET /usage). */
  async rateLimit(principal: Principal): Promise<RateLimitState> {
    const current = await this.limiter(principal.ratePerMinute).get(principal.keyId);
    const limit = principal.ratePerMinute;
    // No window open: the next request opens a full minute.
    if (!current) return { limit, remaining: limit, resetSeconds: 60 };
    return { limit, remaining: Math.max(limit - current.consumedPoints, 0), resetSeconds: Math.max(0, Math.ceil(current.msBeforeNext / 1000)) };
  }

  /**
   * Counts the request (`count`, the rate limit by default) and reserves its cost at the same time: one database round
   * trip per request instead of two in turn. A request over the rate limit gets its reservation back before it is
   * answered 429, so it costs nothing; only a request racing it for the period's very last calls can meanwhile be
   * refused 402.
   */
  async admit(principal: Principal, cost: number, count: () => Promise<unknown> = () => this.hit(principal)): Promise<() => Promise<void>> {
    const [counted, reserved] = await Promise.allSettled([count(), this.reserve(principal, cost)]);
    if (counted.status === 'rejected') {
      if (reserved.status === 'fulfilled') await reserved.value();
      throw counted.reason;
    }
    if (reserved.status === 'rejected') throw reserved.reason;
    return reserved.value;
  }

  /**
   * The key of `secret` and, when it is live and holds `scope`, one request counted against its rate limit and `cost`
   * reserved from its quota, in one statement: what keys.authenticate, hit and reserve do in three round trips.
   */
  async admitKey(secret: string, scope: string, cost: number, now = new Date()): Promise<Admission> {
    const day = periodStart('day', now);
    const month = periodStart('month', now);
    const row = await this.admissions.load({ hash: hashSecret(secret), scope, cost, now, day, month });
    if (!row) return { key: undefined };
    const { points, expire, granted, ...key } = row;
    if (points === null) return { key };
    const principal = principalOf(key);
    const { ratePerMinute } = principal;
    const rate = rateState(ratePerMinute, points, Math.max(Number(expire) - now.getTime(), 0));
    if (rate instanceof LoreError) return { key, admitted: { rate, reservation: undefined } };
    if (cost === 0) return { key, admitted: { rate, reservation: async () => undefined } };
    const start = principal.period === 'day' ? day : month;
    const reservation = granted
      ? async () => {
          await rows(this.sql, refundQuota, [principal.keyId, utcTimestamp(start), cost]);
        }
      : quotaExceeded(principal, now);
    return { key, admitted: { rate, reservation } };
  }

  /** The admission of a request of `principal` (the key of `keyHash`, found live before) for its write to carry. */
  pipelined(principal: Principal, keyHash: string, scope: string, cost: number, now = new Date()): PipelinedAdmission {
    const values = [keyHash, scope, cost, now.getTime(), utcTimestamp(periodStart('day', now)), utcTimestamp(periodStart('month', now)), ...tierLiterals];
    return new PipelinedAdmission(this.sql, principal, values, now, keyHash);
  }

  /** Reserves `cost` calls of the current period; returns a refund for when the request then fails. */
  async reserve(principal: Principal, cost: number, now = new Date()): Promise<() => Promise<void>> {
    if (cost === 0) return async () => undefined;
    const start = periodStart(principal.period, now);
    await this.reservations.load({ principal, start, cost, now });
    return async () => {
      await rows(this.sql, refundQuota, [principal.keyId, utcTimestamp(start), cost]);
    };
  }

  async usage(principal: Principal, now = new Date()): Promise<UsageSummary> {
    const [[row], rateLimit] = await Promise.all([
      rows<{ used: number }>(this.sql, quotaUsed, [principal.keyId, utcTimestamp(periodStart(principal.period, now))]),
      this.rateLimit(principal),
    ]);
    const used = row?.used ?? 0;
    return {
      rateLimit,
      apiKeyId: principal.keyId,
      period: principal.period,
      used,
      quota: principal.quota,
      remaining: Math.max(principal.quota - used, 0),
      rateLimitPerMinute: principal.ratePerMinute,
      resetsAt: nextPeriod(principal.period, now).toISOString(),
    };
  }
}

/** The `count`th request of a key's minute window, `msBeforeNext` before the window ends: its state, or its refusal. */
function rateState(ratePerMinute: number, count: number, msBeforeNext: number): RateLimitState | LoreError {
  const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1000));
  if (count <= ratePerMinute) return { limit: ratePerMinute, remaining: ratePerMinute - count, resetSeconds: retryAfter };
  return new LoreError('rate_limited', `Rate limit of ${ratePerMinute} requests per minute exceeded; retry in ${retryAfter} s.`, { retryAfter });
}

function quotaExceeded(principal: Principal, now: Date): LoreError {
  const resetsAt = nextPeriod(principal.period, now).toISOString();
  return new LoreError(
    'quota_exceeded',
    `The ${principal.period === 'day' ? 'daily' : 'monthly'} quota of ${principal.quota} calls is used up; it resets at ${resetsAt}.`,
    { resetsAt },
  );
}

function nextPeriod(period: 'day' | 'month', now: Date): Date {
  const start = periodStart(period, now);
  return period === 'day'
    ? new Date(start.getTime() + 86_400_000)
    : new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}
