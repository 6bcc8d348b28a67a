// Idempotency-Key: the first request with a key does the work and its result is kept 24 hours; a repeat with the
// same body gets that result back, a repeat with another body is refused, and a concurrent repeat waits for the first.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Prisma, type PrismaClient } from '../generated/prisma/client.ts';
import { newId } from '../ids.ts';
import { LoreError } from './errors.ts';
import { stableStringify } from './json.ts';

const ttlMs = 24 * 60 * 60 * 1000;
const waitForFirstMs = 15_000;

export type IdempotentOutcome<T> = { result: T; replayed: boolean };

export class Idempotency {
  constructor(private readonly prisma: PrismaClient) {}

  async run<T>(
    scope: { accountId: string; operation: string; key: string | undefined | null },
    request: unknown,
    work: () => Promise<T>,
    /** when set, the request may only replay a stored response; without one it fails with this error */
    refusal?: Error,
  ): Promise<IdempotentOutcome<T>> {
    if (!scope.key && refusal) throw refusal;
    if (!scope.key) return { result: await work(), replayed: false };
    if (scope.key.length > 255) throw new LoreError('validation_error', 'Idempotency-Key must be at most 255 characters.');
    const requestHash = createHash('sha256').update(stableStringify(request)).digest('hex');
    const where = { accountId_operation_idemKey: { accountId: scope.accountId, operation: scope.operation, idemKey: scope.key } };
    await this.prisma.idempotencyRecord.deleteMany({
      where: { accountId: scope.accountId, operation: scope.operation, idemKey: scope.key, createdAt: { lt: new Date(Date.now() - ttlMs) } },
    });
    if (refusal) {
      if (!(await this.prisma.idempotencyRecord.findUnique({ where }))) throw refusal;
      return { result: await this.awaitFirst<T>(where, requestHash), replayed: true };
    }
    let recordId: string;
    try {
      recordId = (await this.prisma.idempotencyRecord.create({
        data: { id: newId('idm'), accountId: scope.accountId, operation: scope.operation, idemKey: scope.key, requestHash },
      })).id;
    } catch (error) {
      if (!(error instanceof Prisma.PrismaClientKnownRequestError) || error.code !== 'P2002') throw error;
      return { result: await this.awaitFirst<T>(where, requestHash), replayed: true };
    }
    try {
      const result = await work();
      await this.prisma.idempotencyRecord.update({
        where: { id: recordId },
        data: { status: 200, body: result as Prisma.InputJsonValue },
      });
      return { result, replayed: false };
    } catch (error) {
      // A failed request leaves no record, so the client may retry it with the same key.
      await this.prisma.idempotencyRecord.delete({ where: { id: recordId } }).catch(() => undefined);
      throw error;
    }
  }

  private async awaitFirst<T>(where: Prisma.IdempotencyRecordWhereUniqueInput, requestHash: string): Promise<T> {
    const deadline = Date.now() + waitForFirstMs;
    for (;;) {
      const record = await this.prisma.idempotencyRecord.findUnique({ where });
      if (record && record.requestHash !== requestHash) {
        throw new LoreError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request body.');
      }
      if (record?.status != null) return record.body as T;
      if (!record) throw new LoreError('idempotency_key_in_progress', 'The first request with this Idempotency-Key failed; retry it.');
      if (Date.now() > deadline) {
        throw new LoreError('idempotency_key_in_progress', 'A request with this Idempotency-Key is still in progress; retry later.');
      }
      await sleep(25);
    }
  }
}
