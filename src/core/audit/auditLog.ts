// The account's audit log: one entry per write (which key, which request, the operation, the ids it touched, a
// summary of its arguments), read newest first. Ids are ULIDs, so id order is creation order.
import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts';
import { newId } from '../../ids.ts';
import type { Page } from '../canon/canon.ts';
import { LoreError } from '../errors.ts';

export type AuditRecord = {
  accountId: string;
  /** null: the operator, through the CLI */
  keyId: string | null;
  requestId: string;
  operation: string;
  targets: string[];
  summary: Record<string, unknown>;
};

export type AuditItem = {
  id: string;
  keyId: string | null;
  requestId: string;
  operation: string;
  targets: string[];
  summary: unknown;
  createdAt: Date;
};

/** The row to insert, for a writer that records its entry in its own transaction. */
export function auditEntryData(record: AuditRecord): Prisma.AuditEntryCreateInput {
  return { id: newId('aud'), ...record, summary: record.summary as Prisma.InputJsonObject };
}

export class AuditLog {
  constructor(private readonly prisma: PrismaClient) {}

  async record(record: AuditRecord): Promise<void> {
    await this.prisma.auditEntry.create({ data: auditEntryData(record) });
  }

  async list(accountId: string, limit: number, startingAfter?: string): Promise<Page<AuditItem>> {
    if (startingAfter) {
      const cursor = await this.prisma.auditEntry.findFirst({ where: { id: startingAfter, accountId }, select: { id: true } });
      if (!cursor) throw new LoreError('invalid_cursor', `starting_after ${startingAfter} is not an entry of this account's audit log.`);
    }
    const rows = await this.prisma.auditEntry.findMany({
      where: { accountId, ...(startingAfter ? { id: { lt: startingAfter } } : {}) },
      orderBy: { id: 'desc' },
      take: limit + 1,
      select: { id: true, keyId: true, requestId: true, operation: true, targets: true, summary: true, createdAt: true },
    });
    const page = rows.slice(0, limit);
    return {
      data: page,
      hasMore: rows.length > limit,
      nextStartingAfter: rows.length > limit ? page[page.length - 1].id : null,
    };
  }
}
