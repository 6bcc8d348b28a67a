// Rate limits (per key and minute) and quotas (per key and UTC day or month), both kept in the database so that
// every gateway process sharing it enforces one limit.
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { LoreError } from './errors.ts';
import type { Principal } from './keys.ts';
import { rows, statement, utcTimestamp, type SqlClient } from '../db/sql.ts';
import { periodStart } from './tiers.ts';

// One conditional upsert: concurrent requests on any number of processes can never spend past the quota.
const reserveQuota = statement('reserve_quota', `
  INSERT INTO "UsageCounter" ("keyId", "periodStart", "used")
  SELECT $1, $2::timestamp(3), $3::int WHERE $3::int <= $4::int
  ON CONFLICT ("keyId", "periodStart") DO UPDATE SET "used" = "UsageCounter"."used" + EXCLUDED."used"
  WHERE "UsageCounter"."used" + EXCLUDED."used" <= $4::int
  RETURNING "used"`);

const refundQuota = statement('refund_quota', `
  UPDATE "UsageCounter" SET "used" = GREATEST("used" - $3::int, 0) WHERE "keyId" = $1 AND "periodStart" = $2::timestamp(3)`);

const quotaUsed = statement('quota_used', `SELECT "used" FROM "UsageCounter" WHERE "keyId" = $1 AND "periodStart" = $2::timestamp(3)`);

export type UsageSummary = {
  apiKeyId: string;
  period: 'day' | 'month';
  used: number;
  quota: number;
  remaining: number;
  rateLimitPerMinute: number;
  resetsAt: string;
};

export class Metering {
  private readonly limiters = new Map<number, RateLimiterPostgres>();

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

  /** Counts one request against the key's per-minute limit. */
  async hit(principal: Principal): Promise<void> {
    try {
      await this.limiter(principal.ratePerMinute).consume(principal.keyId, 1);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new LoreError('rate_limited', `Rate limit of ${principal.ratePerMinute} requests per minute exceeded; retry in ${retryAfter} s.`, { retryAfter });
    }
  }

  /** Reserves `cost` calls of the current period; returns a refund for when the request then fails. */
  async reserve(principal: Principal, cost: number, now = new Date()): Promise<() => Promise<void>> {
    if (cost === 0) return async () => undefined;
    const start = periodStart(principal.period, now);
    const reserved = await rows<{ used: number }>(this.sql, reserveQuota, [principal.keyId, utcTimestamp(start), cost, principal.quota]);
    if (reserved.length === 0) {
      throw new LoreError(
        'quota_exceeded',
        `The ${principal.period === 'day' ? 'daily' : 'monthly'} quota of ${principal.quota} calls is used up; it resets at ${nextPeriod(principal.period, now).toISOString()}.`,
        { resetsAt: nextPeriod(principal.period, now).toISOString() },
      );
    }
    return async () => {
      await rows(this.sql, refundQuota, [principal.keyId, utcTimestamp(start), cost]);
    };
  }

  async usage(principal: Principal, now = new Date()): Promise<UsageSummary> {
    const [row] = await rows<{ used: number }>(this.sql, quotaUsed, [principal.keyId, utcTimestamp(periodStart(principal.period, now))]);
    const used = row?.used ?? 0;
    return {
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

function nextPeriod(period: 'day' | 'month', now: Date): Date {
  const start = periodStart(period, now);
  return period === 'day'
    ? new Date(start.getTime() + 86_400_000)
    : new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}
