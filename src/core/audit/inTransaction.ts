// A write's audit entry in the write's own transaction: the audit plugin (graph/plugins/audit.ts) opens a scope around
// a mutation's resolver, and a writer that calls recordAudit inside its transaction stores the entry there, so the
// entry commits with the write (one commit, one WAL flush, instead of two) and never without it. A mutation whose
// writer does not call it is recorded by the plugin after its resolver, as before.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Prisma } from '../../generated/prisma/client.ts';
import { auditEntryData, type AuditRecord } from './auditLog.ts';

/** `entry`: the entry for the mutation's answer; `recorded`: set once a writer has added it to its transaction. */
export type PendingAudit = { entry: (answer: unknown) => AuditRecord; recorded: boolean };

const scope = new AsyncLocalStorage<PendingAudit>();

export const auditScope = <T>(pending: PendingAudit, work: () => Promise<T>): Promise<T> => scope.run(pending, work);

/**
 * Adds the current mutation's audit entry to `tx`, for `answer` (what the mutation answers: its ids are the entry's
 * targets). Outside a mutation's scope, or once added, nothing is written. Should the transaction then fail, the
 * mutation fails with it, and a failed mutation records nothing.
 */
export async function recordAudit(tx: Prisma.TransactionClient, answer: unknown): Promise<void> {
  const pending = scope.getStore();
  if (!pending || pending.recorded) return;
  pending.recorded = true;
  await tx.auditEntry.create({ data: auditEntryData(pending.entry(answer)) });
}
