// API keys: sk_lore_ + 40 base62 characters. Only a sha256 of the secret is stored; the secret is shown once.
import { hash, randomInt } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Tier } from '../../generated/prisma/enums.ts';
import { newId } from '../../ids.ts';
import { auditEntryData } from '../audit/auditLog.ts';
import { LoreError } from '../errors.ts';
import type DataLoader from 'dataloader';
import { statement, type SqlClient } from '../../db/sql.ts';
import { batchedRows } from '../../db/batch.ts';
import { tierPolicies, type Period } from './tiers.ts';

// Expiry is decided by the database clock, the one every gateway process shares.
const keysBySecret = statement('keys_by_secret', `
  SELECT "secretHash", id, "accountId", tier::text AS tier, scopes, "customQuota", "customRate", "revokedAt" IS NOT NULL AS revoked,
         "expiresAt" IS NOT NULL AND "expiresAt" <= (now() AT TIME ZONE 'UTC') AS expired
  FROM "ApiKey" WHERE "secretHash" = ANY($1::text[])`);

export type KeyRow = {
  secretHash: string;
  id: string;
  accountId: string;
  tier: Tier;
  scopes: string[];
  customQuota: number | null;
  customRate: number | null;
  revoked: boolean;
  expired: boolean;
};

export const keyPrefix = 'sk_lore_';
export const keyPattern = /^sk_lore_[0-9A-Za-z]{32,128}$/;
const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function generateSecret(): string {
  let body = '';
  for (let i = 0; i < 40; i++) body += base62[randomInt(62)];
  return keyPrefix + body;
}

export const hashSecret = (secret: string) => hash('sha256', secret, 'hex');

export type Principal = {
  keyId: string;
  accountId: string;
  tier: Tier;
  scopes: ReadonlySet<string>;
  quota: number;
  period: Period;
  ratePerMinute: number;
};

export type CreatedKey = { id: string; key: string; account: string; tier: Tier; scopes: string[]; expiresAt: string | null };

export type KeyOptions = {
  tier: Tier;
  accountId?: string;
  name?: string;
  expiresAt?: Date;
  /** enterprise only: extra custom scopes, quota per month and rate per minute */
  customScopes?: string[];
  customQuota?: number;
  customRate?: number;
};

export class KeyService {
  private readonly bySecretHash: DataLoader<string, KeyRow | null>;

  constructor(
    private readonly prisma: PrismaClient,
    sql: SqlClient,
  ) {
    this.bySecretHash = batchedRows<KeyRow>(sql, keysBySecret, (row) => row.secretHash);
  }

  async create(options: KeyOptions): Promise<CreatedKey> {
    if (options.tier !== 'enterprise' && (options.customScopes?.length || options.customQuota || options.customRate)) {
      throw new LoreError('validation_error', 'custom scopes, quota and rate are for enterprise keys only');
    }
    return this.prisma.$transaction(async (tx) => {
      let accountId = options.accountId;
      if (accountId) {
        await tx.account.upsert({ where: { id: accountId }, create: { id: accountId }, update: {} });
      } else {
        accountId = (await tx.account.create({ data: { id: newId('acc') } })).id;
      }
      const scopes = [...new Set([...tierPolicies[options.tier].scopes, ...(options.customScopes ?? [])])];
      const secret = generateSecret();
      const row = await tx.apiKey.create({
        data: {
          id: newId('key'),
          accountId,
          name: options.name,
          tier: options.tier,
          scopes,
          secretHash: hashSecret(secret),
          displayPrefix: secret.slice(0, keyPrefix.length + 4),
          expiresAt: options.expiresAt,
          customQuota: options.customQuota,
          customRate: options.customRate,
        },
      });
      await tx.auditEntry.create({ data: operatorEntry(accountId, 'keys.create', [row.id], row) });
      return { id: row.id, key: secret, account: accountId, tier: row.tier, scopes, expiresAt: row.expiresAt?.toISOString() ?? null };
    });
  }

  /** Issues a new secret for the same account, tier and scopes; the old key stops working at once. */
  async rotate(id: string): Promise<CreatedKey> {
    return this.prisma.$transaction(async (tx) => {
      // Revoked first, which takes the key's row: a racing rotation waits for it, then finds the key revoked.
      const { count } = await tx.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
      if (count === 0) throw new LoreError('not_found', `active key ${id} not found`);
      const old = await tx.apiKey.findUniqueOrThrow({ where: { id } });
      const secret = generateSecret();
      const row = await tx.apiKey.create({
        data: {
          id: newId('key'),
          accountId: old.accountId,
          name: old.name,
          tier: old.tier,
          scopes: old.scopes,
          secretHash: hashSecret(secret),
          displayPrefix: secret.slice(0, keyPrefix.length + 4),
          expiresAt: old.expiresAt,
          customQuota: old.customQuota,
          customRate: old.customRate,
        },
      });
      await tx.apiKey.update({ where: { id }, data: { replacedById: row.id } });
      await tx.auditEntry.create({ data: operatorEntry(row.accountId, 'keys.rotate', [id, row.id], row) });
      return { id: row.id, key: secret, account: row.accountId, tier: row.tier, scopes: row.scopes, expiresAt: row.expiresAt?.toISOString() ?? null };
    });
  }

  async revoke(id: string): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const { count } = await tx.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
      if (count === 0) throw new LoreError('not_found', `active key ${id} not found`);
      const key = await tx.apiKey.findUniqueOrThrow({ where: { id } });
      await tx.auditEntry.create({ data: operatorEntry(key.accountId, 'keys.revoke', [id], key) });
    });
  }

  async list() {
    const rows = await this.prisma.apiKey.findMany({ orderBy: { id: 'asc' } });
    return rows.map((k) => ({
      id: k.id,
      account: k.accountId,
      name: k.name,
      tier: k.tier,
      prefix: `${k.displayPrefix}…`,
      status: k.revokedAt ? 'revoked' : k.expiresAt && k.expiresAt <= new Date() ? 'expired' : 'active',
      expiresAt: k.expiresAt?.toISOString() ?? null,
      createdAt: k.createdAt.toISOString(),
    }));
  }

  /** Resolves a presented secret to its principal, or fails with the contract's 401 code. */
  async authenticate(secret: string | undefined): Promise<Principal> {
    return this.principal(await this.bySecretHash.load(hashSecret(this.checkShape(secret))));
  }

  /** The principal of a key row found by its secret (undefined: none), or the contract's 401 failure. */
  principal(key: Omit<KeyRow, 'secretHash'> | null | undefined): Principal {
    if (!key || key.revoked) throw new LoreError('AUTH_INVALID_KEY', 'The API key is invalid or inactive.');
    if (key.expired) throw new LoreError('AUTH_EXPIRED_KEY', 'The API key has expired.');
    return principalOf(key);
  }

  /** A secret's shape checked before any lookup: no key, or a malformed one, fails without a round trip. */
  checkShape(secret: string | undefined): string {
    if (!secret) throw new LoreError('AUTH_MISSING_KEY', 'No API key: send Authorization: Bearer <key>.');
    if (!keyPattern.test(secret)) throw new LoreError('AUTH_INVALID_KEY', 'The API key is malformed.');
    return secret;
  }
}

export function principalOf(key: Omit<KeyRow, 'secretHash'>): Principal {
  const policy = tierPolicies[key.tier];
  return {
    keyId: key.id,
    accountId: key.accountId,
    tier: key.tier,
    scopes: new Set(key.scopes),
    quota: key.customQuota ?? policy.quota,
    period: policy.period,
    ratePerMinute: key.customRate ?? policy.ratePerMinute,
  };
}

/** Key changes are the operator's (the CLI): no key made them, and the entry names the key, never its secret or hash. */
function operatorEntry(accountId: string, operation: string, targets: string[], key: { tier: Tier; name: string | null }) {
  return auditEntryData({ accountId, keyId: null, requestId: 'cli', operation, targets, summary: { tier: key.tier, ...(key.name && { name: key.name }) } });
}
