import { useState } from 'react';
import { gql } from '../api.ts';
import { ops, type Candidate } from '../ops.ts';
import { entityPath, Link } from '../router.tsx';
import { Heading, Problem, span, Status, when } from '../ui.tsx';
import { useData } from '../useData.ts';

type Queue = { data: Candidate[]; hasMore: boolean };

export function ReviewPage({ projectId }: { projectId: string }) {
  const queue = useData(() => gql<{ candidates: Queue }>(ops.reviewQueue, { projectId }).then((d) => d.candidates), [projectId]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [reasons, setReasons] = useState<Record<string, string>>({});
  const [notice, setNotice] = useState<string>();
  const [error, setError] = useState<unknown>();

  async function decide(ids: string[], decision: 'approve' | 'reject') {
    setError(undefined);
    const decided: string[] = [];
    try {
      for (const candidateId of ids) {
        await gql(ops.decide, { projectId, candidateId, decision, reason: reasons[candidateId] || null });
        decided.push(candidateId);
      }
    } catch (e) {
      setError(e);
    } finally {
      // Decided items leave the queue at once, whatever happened to the rest.
      if (queue.data && decided.length > 0) {
        queue.set({ ...queue.data, data: queue.data.data.filter((c) => !decided.includes(c.id)) });
        setSelected((s) => new Set([...s].filter((id) => !decided.includes(id))));
        setNotice(`${decided.length} ${decision === 'approve' ? 'approved' : 'rejected'}.`);
      }
    }
  }

  const items = queue.data?.data ?? [];
  const toggle = (id: string) => setSelected((s) => (s.has(id) ? new Set([...s].filter((x) => x !== id)) : new Set([...s, id])));

  return (
    <>
      <Heading>Review</Heading>
      <p className="muted">Proposals waiting for a decision, oldest first. Approving makes them canon; rejecting removes what they suggested.</p>
      <Problem error={queue.error ?? error} />
      {notice && <Status>{notice}</Status>}
      {queue.data && items.length === 0 && <p>Nothing waits for review.</p>}
      {items.length > 0 && (
        <div className="toolbar">
          <button type="button" onClick={() => setSelected(selected.size === items.length ? new Set() : new Set(items.map((c) => c.id)))}>
            {selected.size === items.length ? 'Select none' : 'Select all'}
          </button>
          <button type="button" disabled={selected.size === 0} onClick={() => decide([...selected], 'approve')}>
            Approve selected ({selected.size})
          </button>
          <button type="button" disabled={selected.size === 0} onClick={() => decide([...selected], 'reject')}>
            Reject selected ({selected.size})
          </button>
        </div>
      )}
      <ol className="queue">
        {items.map((c) => {
          const about = c.kind === 'promise' ? 'Promise ledger' : 'About';
          const title = c.kind === 'entity' ? `New ${c.proposal?.type ?? 'entity'}: ${c.proposal?.name ?? c.entityName}` : `${about} ${c.entityName ?? 'a deleted entity'}`;
          return (
            <li key={c.id} aria-labelledby={`cand-${c.id}`}>
              <div className="row">
                <input type="checkbox" id={`select-${c.id}`} checked={selected.has(c.id)} onChange={() => toggle(c.id)} />
                <label htmlFor={`select-${c.id}`} id={`cand-${c.id}`} className="title">
                  {title}
                </label>
              </div>
              {c.entityId && (
                <p>
                  <Link to={entityPath(projectId, c.entityId)}>Open {c.entityName}</Link>
                </p>
              )}
              {c.facts.length > 0 && (
                <ul>
                  {c.facts.map((f, i) => (
                    <li key={f.id ?? i}>
                      {f.text} <span className="muted">({span(f.from, f.until)}{f.secret ? ', secret' : ''})</span>
                    </li>
                  ))}
                </ul>
              )}
              {c.promise && (
                <p>
                  {[c.promise.setUpIn && `Set up in ${c.promise.setUpIn}`, c.promise.paidOffIn && `paid off in ${c.promise.paidOffIn}`, c.promise.status && `marked ${c.promise.status}`].filter(Boolean).join(', ') ||
                    'Involves more entities'}
                </p>
              )}
              {c.content && (
                <figure>
                  <figcaption>Source passage</figcaption>
                  <blockquote>{c.content}</blockquote>
                </figure>
              )}
              <p className="muted">
                Proposed by {c.proposedBy} ({c.source}) on {when(c.createdAt)}
              </p>
              <div className="actions">
                <label htmlFor={`reason-${c.id}`}>Reason (optional)</label>
                <input id={`reason-${c.id}`} value={reasons[c.id] ?? ''} onChange={(e) => setReasons({ ...reasons, [c.id]: e.target.value })} />
                <button type="button" onClick={() => decide([c.id], 'approve')} aria-describedby={`cand-${c.id}`}>
                  Approve
                </button>
                <button type="button" className="secondary" onClick={() => decide([c.id], 'reject')} aria-describedby={`cand-${c.id}`}>
                  Reject
                </button>
              </div>
            </li>
          );
        })}
      </ol>
      {queue.data?.hasMore && <p className="muted">The oldest 100 are shown; decide them to see more.</p>}
    </>
  );
}
