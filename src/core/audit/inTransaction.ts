// A write's audit entry in the write's own transaction: the audit plugin (graph/plugins/audit.ts) hands a mutation's
// resolver its pending entry (GraphContext.audit), the resolver hands it to its writer, and a writer that calls
// recordAudit inside its transaction (or passes auditValues to a statement of its own) stores the entry there, so the
// entry commits with the write (one commit, one WAL flush, instead of two) and never without it. A mutation whose
// writer does not record it is recorded by the plugin after its resolver, as before. Handed, not kept in an
// AsyncLocalStorage: on Node 20 one in use makes every promise of the process call a hook as it is made (a tenth
// of a request's CPU).
import { statement, utcTimestamp, type TransactionSql } from '../../db/sql.ts';
import { newId } from '../../ids.ts';
import type { AuditRecord } from './auditLog.ts';

/** `entry`: the entry for the mutation's answer; `recorded`: set once a writer has added it to its transaction. */
export type PendingAudit = { entry: (answer: unknown) => AuditRecord; recorded: boolean };

/**
 * Adds the mutation's audit entry (`pending`) to the transaction `sql`, for `answer` (what the mutation answers: its ids
 * are the entry's targets), sent with the transaction's COMMIT. Without one (no mutation), or once added, nothing is
 * written. Should the transaction then fail, the mutation fails with it, and a failed mutation records nothing.
 */
export function recordAudit(sql: TransactionSql, pending: PendingAudit | undefined, answer: unknown): void {
  const audit = auditValues(pending, answer);
  if (!audit) return;
  audit.recorded();
  sql.atCommit(auditInsert, audit.values);
}

/**
 * The mutation's audit entry (`pending`) for `answer` as auditInsert's values, for a writer that stores it in a
 * statement of its own making; it calls `recorded` once the statement has run. Undefined without one or once added.
 */
export function auditValues(
  pending: PendingAudit | undefined, answer: unknown,
): { values: [string, string, string | null, string, string, string[], string, string]; recorded(): void } | undefined {
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
