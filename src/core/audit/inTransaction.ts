// A write's audit entry in the write's own transaction: the audit plugin (graph/plugins/audit.ts) opens a scope around
// a mutation's resolver, and a writer that calls recordAudit inside its transaction (or passes auditValues to a
// statement of its own) stores the entry there, so the entry commits with the write (one commit, one WAL flush, instead of two) and never without it. A mutation whose
// writer does not call it is recorded by the plugin after its resolver, as before.
import { AsyncLocalStorage } from 'node:async_hooks';
import { inline, statement, utcTimestamp, type TransactionSql } from '../../db/sql.ts';
import { newId } from '../../ids.ts';
import type { AuditRecord } from './auditLog.ts';

/** `entry`: the entry for the mutation's answer; `recorded`: set once a writer has added it to its transaction. */
export type PendingAudit = { entry: (answer: unknown) => AuditRecord; recorded: boolean };

const scope = new AsyncLocalStorage<PendingAudit>();

export const auditScope = <T>(pending: PendingAudit, work: () => Promise<T>): Promise<T> => scope.run(pending, work);

/**
 * Adds the current mutation's audit entry to the transaction `sql`, for `answer` (what the mutation answers: its ids are the entry's
 * targets), sent with the transaction's COMMIT. Outside a mutation's scope, or once added, nothing is written. Should
 * the transaction then fail, the mutation fails with it, and a failed mutation records nothing.
 */
export function recordAudit(sql: TransactionSql, answer: unknown): void {
  const pending = auditValues(answer);
  if (!pending) return;
  pending.recorded();
  sql.atCommit(inline(auditInsert, pending.values));
}

/**
 * The current mutation's audit entry for `answer` as auditInsert's values, for a writer that stores it in a statement
 * of its own making; it calls `recorded` once the statement has run. Undefined outside a mutation's scope or once added.
 */
export function auditValues(answer: unknown): { values: [string, string, string | null, string, string, string[], string, string]; recorded(): void } | undefined {
  const pending = scope.getStore();
  if (!pending || pending.recorded) return undefined;
  const entry = pending.entry(answer);
  return {
    values: [newId('aud'), entry.accountId, entry.keyId, entry.requestId, entry.operation, entry.targets, JSON.stringify(entry.summary), utcTimestamp(new Date())],
    recorded: () => {
      pending.recorded = true;
    },
  };
}

const auditInsert = statement('audit_insert', `
  INSERT INTO "AuditEntry" (id, "accountId", "keyId", "requestId", operation, targets, summary, "createdAt")
  VALUES ($1, $2, $3, $4, $5, $6::text[], $7::jsonb, $8::timestamp(3))`);
