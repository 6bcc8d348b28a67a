// The contract's tier table: scopes, quota per period and rate per minute.
import type { Tier } from '../../generated/prisma/enums.ts';

export const allScopes = [
  'recall', 'remember', 'graph', 'search', 'check', 'timeline', 'usage',
  'projects:read', 'projects:write', 'audit:read', 'managed_llm',
] as const;
export type Scope = (typeof allScopes)[number];

/**
 * What a new project needs, however it is made (createProject, POST /projects, or an import or sync that names no
 * existing project): pro keys and up. Keys without it write into their account's existing projects.
 */
export const newProjectScope: Scope = 'projects:write';

const free: Scope[] = ['recall', 'remember', 'graph', 'search'];
const indie: Scope[] = [...free, 'check', 'timeline', 'usage'];
const pro: Scope[] = [...indie, 'projects:read', 'projects:write'];
const studio: Scope[] = [...pro, 'audit:read'];

export type Period = 'day' | 'month';

export type TierPolicy = { scopes: readonly string[]; quota: number; period: Period; ratePerMinute: number };

export const tierPolicies: Record<Tier, TierPolicy> = {
  free: { scopes: free, quota: 50, period: 'day', ratePerMinute: 30 },
  indie: { scopes: indie, quota: 1_000, period: 'month', ratePerMinute: 60 },
  pro: { scopes: pro, quota: 10_000, period: 'month', ratePerMinute: 60 },
  studio: { scopes: studio, quota: 100_000, period: 'month', ratePerMinute: 600 },
  studio_managed: { scopes: [...studio, 'managed_llm'], quota: 100_000, period: 'month', ratePerMinute: 600 },
  // "custom" in the contract: these defaults apply unless the key carries its own quota and rate.
  enterprise: { scopes: allScopes, quota: 1_000_000, period: 'month', ratePerMinute: 6_000 },
};

export const tiers = Object.keys(tierPolicies) as Tier[];

/** Start of the quota period containing `now`: UTC midnight, or the UTC first of the month. */
export function periodStart(period: Period, now: Date): Date {
  return period === 'day'
    ? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()))
    : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}
