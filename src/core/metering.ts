// Rate limits (per key and minute) and quotas (per key and UTC day or month), both kept in the database so that
// every gateway process sharing it enforces one limit.
import { RateLimiterPrisma, RateLimiterRes } from 'rate-limiter-flexible';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { LoreError } from './errors.ts';
import type { Principal } from './keys.ts';
import { periodStart } from './tiers.ts';

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
  private readonly limiters = new Map<number, RateLimiterPrisma>();

  constructor(private readonly prisma: PrismaClient) {}

  private limiter(points: number): RateLimiterPrisma {
    let limiter = this.limiters.get(points);
    if (!limiter) {
      limiter = new RateLimiterPrisma({
        storeClient: this.prisma,
        tableName: 'rateLimiterFlexible',
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

  /**
   * Reserves `cost` calls of the current period in one conditional upsert, so concurrent requests on any number of
   * processes can never spend past the quota. Returns a refund for when the request then fails.
   */
  async reserve(principal: Principal, cost: number, now = new Date()): Promise<() => Promise<void>> {
    if (cost === 0) return async () => undefined;
    const start = periodStart(principal.period, now);
    const rows = await this.prisma.$queryRaw<{ used: number }[]>`
      INSERT INTO "UsageCounter" ("keyId", "periodStart", "used")
      SELECT ${principal.keyId}, ${start}, ${cost}::int WHERE ${cost}::int <= ${principal.quota}::int
      ON CONFLICT ("keyId", "periodStart") DO UPDATE SET "used" = "UsageCounter"."used" + EXCLUDED."used"
      WHERE "UsageCounter"."used" + EXCLUDED."used" <= ${principal.quota}::int
      RETURNING "used"`;
    if (rows.length === 0) {
      throw new LoreError(
        'quota_exceeded',
        `The ${principal.period === 'day' ? 'daily' : 'monthly'} quota of ${principal.quota} calls is used up; it resets at ${nextPeriod(principal.period, now).toISOString()}.`,
        { resetsAt: nextPeriod(principal.period, now).toISOString() },
      );
    }
    return async () => {
      await this.prisma.$executeRaw`
        UPDATE "UsageCounter" SET "used" = GREATEST("used" - ${cost}::int, 0)
        WHERE "keyId" = ${principal.keyId} AND "periodStart" = ${start}`;
    };
  }

  async usage(principal: Principal, now = new Date()): Promise<UsageSummary> {
    const row = await this.prisma.usageCounter.findUnique({
      where: { keyId_periodStart: { keyId: principal.keyId, periodStart: periodStart(principal.period, now) } },
    });
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
