// Idempotency-Key: the first request with a key spends the quota, does the work and its result is kept 24 hours; a
// repeat with the same body gets that result back for free, a repeat with another body is refused, and a concurrent
// repeat waits for the first (and takes its place when the first fails).
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Prisma, type PrismaClient } from '../../generated/prisma/client.ts';
import { newId } from '../../ids.ts';
import { LoreError } from '../errors.ts';
import { stableStringify } from '../json.ts';

const ttlMs = 24 * 60 * 60 * 1000;
const waitForFirstMs = 15_000;

export class Idempotency {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * `reserve` spends the request's quota: called once the request holds its key (or at once without a key), so a
   * repeat that finds the key taken never spends, even when it races its first request for the last unit of quota.
   */
  async run<T>(
    scope: { accountId: string; operation: string; key: string | undefined | null },
    request: unknown,
    reserve: () => Promise<void>,
    work: () => Promise<T>,
  ): Promise<T> {
    if (!scope.key) {
      await reserve();
      return work();
    }
    if (scope.key.length > 255) throw new LoreError('validation_error', 'Idempotency-Key must be at most 255 characters.');
    const requestHash = createHash('sha256').update(stableStringify(request)).digest('hex');
    const where = { accountId_operation_idemKey: { accountId: scope.accountId, operation: scope.operation, idemKey: scope.key } };
    await this.prisma.idempotencyRecord.deleteMany({
      where: { accountId: scope.accountId, operation: scope.operation, idemKey: scope.key, createdAt: { lt: new Date(Date.now() - ttlMs) } },
    });
    // A request whose first failed (and so let go of the key) takes its place, a few times at most.
    for (let attempt = 1; ; attempt++) {
      let recordId: string;
      try {
        recordId = (await this.prisma.idempotencyRecord.create({
          data: { id: newId('idm'), accountId: scope.accountId, operation: scope.operation, idemKey: scope.key, requestHash },
        })).id;
      } catch (error) {
        if (!(error instanceof Prisma.PrismaClientKnownRequestError) || error.code !== 'P2002') throw error;
        const first = await this.awaitFirst<T>(where, requestHash);
        if (first) return first.body;
        if (attempt === 3) throw new LoreError('idempotency_key_in_progress', 'The first request with this Idempotency-Key failed; retry it.');
        continue;
      }
      try {
        await reserve();
        const result = await work();
        await this.prisma.idempotencyRecord.update({
          where: { id: recordId },
          data: { status: 200, body: result as Prisma.InputJsonValue },
        });
        return result;
      } catch (error) {
        // A failed request leaves no record, so the client may retry it with the same key.
        await this.prisma.idempotencyRecord.delete({ where: { id: recordId } }).catch(() => undefined);
        throw error;
      }
    }
  }

  /** The first request's stored response, or undefined when it failed and let go of the key. */
  private async awaitFirst<T>(where: Prisma.IdempotencyRecordWhereUniqueInput, requestHash: string): Promise<{ body: T } | undefined> {
    const deadline = Date.now() + waitForFirstMs;
    for (;;) {
      const record = await this.prisma.idempotencyRecord.findUnique({ where });
      if (record && record.requestHash !== requestHash) {
        throw new LoreError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request body.');
      }
      if (record?.status != null) return { body: record.body as T };
      if (!record) return undefined;
      if (Date.now() > deadline) {
        throw new LoreError('idempotency_key_in_progress', 'A request with this Idempotency-Key is still in progress; retry later.');
      }
      await sleep(25);
    }
  }
}
