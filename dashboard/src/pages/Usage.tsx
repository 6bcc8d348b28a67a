import { ApiError, gql } from '../api.ts';
import { ops } from '../ops.ts';
import { Heading, Problem, when } from '../ui.tsx';
import { useData } from '../useData.ts';

type Usage = { apiKeyId: string; period: string; quota: number; used: number; remaining: number; resetsAt: string; rateLimitPerMinute: number; rateLimitRemaining: number; rateLimitResetSeconds: number };
type AuditEntry = { id: string; createdAt: string; keyId: string | null; operation: string; requestId: string; targets: string[] };

export function UsagePage() {
  const usage = useData(() => gql<{ usage: Usage }>(ops.usageAndAudit).then((d) => d.usage), []);
  const audit = useData(() => gql<{ auditLog: { data: AuditEntry[]; hasMore: boolean } }>(ops.auditEntries).then((d) => d.auditLog), []);
  const u = usage.data;
  const noAudit = audit.error instanceof ApiError && audit.error.code === 'insufficient_scope';
  return (
    <>
      <Heading>Usage</Heading>
      <Problem error={usage.error} />
      {u && (
        <dl className="state">
          <div>
            <dt>Key</dt>
            <dd>{u.apiKeyId}</dd>
          </div>
          <div>
            <dt>Quota this {u.period}</dt>
            <dd>
              {u.used} used of {u.quota}, {u.remaining} left
            </dd>
          </div>
          <div>
            <dt>Resets</dt>
            <dd>{when(u.resetsAt)}</dd>
          </div>
          <div>
            <dt>Rate limit</dt>
            <dd>
              {u.rateLimitPerMinute} a minute; {u.rateLimitRemaining} left this minute, which ends in {u.rateLimitResetSeconds} s
            </dd>
          </div>
        </dl>
      )}
      <section aria-labelledby="audit">
        <h2 id="audit">Audit log</h2>
        {noAudit ? <p>This key cannot read the audit log (it needs the audit:read scope).</p> : <Problem error={audit.error} />}
        {audit.data && (
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Operation</th>
                <th scope="col">Key</th>
                <th scope="col">Touched</th>
                <th scope="col">Request</th>
              </tr>
            </thead>
            <tbody>
              {audit.data.data.map((a) => (
                <tr key={a.id}>
                  <td>{when(a.createdAt)}</td>
                  <td>{a.operation}</td>
                  <td>{a.keyId ?? 'operator'}</td>
                  <td className="ids">{a.targets.slice(0, 3).join(', ')}{a.targets.length > 3 && ` and ${a.targets.length - 3} more`}</td>
                  <td className="ids">{a.requestId}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
