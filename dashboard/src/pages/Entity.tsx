import { useState, type FormEvent } from 'react';
import { ApiError, gql } from '../api.ts';
import { entityTypes, ops, type ChapterHeading, type EntityDetail, type EntityType, type Fact, type Mention, type StoryFact } from '../ops.ts';
import { entityPath, Link, navigate, projectPath } from '../router.tsx';
import { Heading, Problem, span, Status, when } from '../ui.tsx';
import { useData } from '../useData.ts';
import { allChapters } from './chapters.ts';

type Detail = {
  entity: EntityDetail;
  mentions: { data: Mention[]; hasMore: boolean };
  chapters: { data: ChapterHeading[]; hasMore: boolean; nextStartingAfter: string | null };
};

export function EntityPage({ projectId, entityId }: { projectId: string; entityId: string }) {
  const [asOf, setAsOf] = useState('');
  // One request for everything the page shows, the picker's first 100 chapters included: on a big project every
  // further request waits its turn on the server and the machine.
  const detail = useData(() => gql<Detail>(ops.entityDetail, { projectId, entityId, asOf: asOf || null }), [projectId, entityId, asOf]);
  const after = detail.data?.chapters.hasMore ? detail.data.chapters.nextStartingAfter : null;
  const laterChapters = useData(() => (after ? allChapters(projectId, after) : Promise.resolve([])), [projectId, after]);
  const [notice, setNotice] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [stale, setStale] = useState(false);

  if (detail.error && !detail.data) return <Problem error={detail.error} />;
  if (!detail.data) return <p aria-busy="true">Loading…</p>;
  const { entity, mentions } = detail.data;
  const chapters = [...detail.data.chapters.data, ...(laterChapters.data ?? [])];
  const byId = new Map(entity.facts.map((f) => [f.id, f]));
  const chapterTitle = new Map(chapters.map((c) => [c.id, c.title]));

  async function run(action: () => Promise<unknown>, done: string) {
    setError(undefined);
    setNotice(undefined);
    try {
      await action();
      setNotice(done);
      detail.reload();
    } catch (e) {
      setError(e);
    }
  }

  async function remove() {
    if (!confirm(`Delete ${entity.canonicalName} with its facts, mentions and relationships? This cannot be undone.`)) return;
    try {
      await gql(ops.deleteEntity, { projectId, entityId });
      navigate(projectPath(projectId, 'codex'));
    } catch (e) {
      setError(e);
    }
  }

  const factItem = (f: StoryFact, suggested: boolean) => (
    <FactItem
      key={f.id}
      fact={f}
      full={byId.get(f.id)}
      suggested={suggested}
      onRetcon={(text) => run(() => gql(ops.retconFact, { projectId, factId: f.id, input: { text } }), 'Retconned: the old fact is in the history.')}
      onRetire={(reason) => run(() => gql(ops.retireFact, { projectId, factId: f.id, reason: reason || null }), 'Retired: the fact is in the history.')}
    />
  );

  return (
    <>
      <p className="crumbs">
        <Link to={projectPath(projectId, 'codex')}>Codex</Link> › {entity.type}
      </p>
      <Heading>{entity.canonicalName}</Heading>
      <p>
        <span className={`tag type-${entity.type}`}>{entity.type}</span> <span className={`tag ${entity.approvalStatus}`}>{entity.approvalStatus}</span>{' '}
        <span className="muted">
          version {entity.version}
          {entity.confidence !== null && `, confidence ${entity.confidence}`}
        </span>
      </p>
      {entity.aliases.length > 0 && <p>Also called: {entity.aliases.join(', ')}</p>}
      {notice && <Status>{notice}</Status>}
      <Problem error={error} />

      <div className="asof">
        <label htmlFor="as-of">As of chapter</label>
        <select id="as-of" value={asOf} onChange={(e) => setAsOf(e.target.value)}>
          <option value="">Latest (after the last chapter)</option>
          {chapters.map((c) => (
            <option key={c.id} value={c.id}>
              {c.ordinal}. {c.title || c.id} ({c.id})
            </option>
          ))}
        </select>
      </div>

      <section aria-labelledby="state">
        <h2 id="state">State {asOf ? `as of ${asOf}` : '(latest)'}</h2>
        {Object.keys(entity.currentState).length === 0 ? (
          <p className="muted">No state recorded.</p>
        ) : (
          <dl className="state" aria-busy={detail.loading}>
            {Object.entries(entity.currentState).map(([k, v]) => (
              <div key={k}>
                <dt>{k}</dt>
                <dd>{typeof v === 'string' ? v : JSON.stringify(v)}</dd>
              </div>
            ))}
          </dl>
        )}
      </section>

      <section aria-labelledby="approved">
        <h2 id="approved">Approved facts {asOf ? `as of ${asOf}` : '(latest)'}</h2>
        {entity.approvedFacts.length === 0 ? <p className="muted">None.</p> : <ul className="facts">{entity.approvedFacts.map((f) => factItem(f, false))}</ul>}
      </section>

      <section aria-labelledby="suggested">
        <h2 id="suggested">Suggested facts (not canon until approved)</h2>
        {entity.suggestedFacts.length === 0 ? (
          <p className="muted">None.</p>
        ) : (
          <>
            <ul className="facts">{entity.suggestedFacts.map((f) => factItem(f, true))}</ul>
            <p>
              <Link to={projectPath(projectId, 'review')}>Review them</Link>
            </p>
          </>
        )}
        <NewFact projectId={projectId} entityId={entityId} onAdded={() => detail.reload()} />
      </section>

      <section aria-labelledby="history">
        <h2 id="history">Retcon history</h2>
        {entity.history.length === 0 ? (
          <p className="muted">No retired facts.</p>
        ) : (
          <ul className="facts">
            {entity.history.map((f) => (
              <li key={f.id}>
                <s>{f.text}</s>
                <div className="muted">
                  written {when(f.createdAt)} by {f.createdBy ?? 'the operator'}; retired {when(f.retiredAt)} by {f.retiredBy ?? 'the operator'}
                  {f.replacedById ? `; replaced by ${byId.get(f.replacedById)?.text ? `“${byId.get(f.replacedById)!.text}”` : f.replacedById}` : '; not replaced'}
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="relationships">
        <h2 id="relationships">Relationships</h2>
        {entity.relationships.length === 0 ? (
          <p className="muted">None.</p>
        ) : (
          <ul>
            {entity.relationships.map((r) => {
              const self = <strong>{entity.canonicalName}</strong>;
              const other = r.other.id === entityId ? self : <Link to={entityPath(projectId, r.other.id)}>{r.other.canonicalName}</Link>;
              return (
                <li key={`${r.id}-${r.direction}`}>
                  {r.direction === 'outgoing' ? self : other} <span className="kind">{r.kind.replaceAll('_', ' ')}</span> {r.direction === 'outgoing' ? other : self}
                </li>
              );
            })}
          </ul>
        )}
        <p>
          <Link to={`${projectPath(projectId, 'graph')}?root=${encodeURIComponent(entityId)}`}>Open in the graph</Link>
        </p>
      </section>

      <section aria-labelledby="mentions">
        <h2 id="mentions">Mentions in reading order</h2>
        {mentions.data.length === 0 ? (
          <p className="muted">Not mentioned in any chapter.</p>
        ) : (
          <ol className="mentions">
            {mentions.data.map((m) => (
              <li key={m.id}>
                <Link to={projectPath(projectId, `chapters/${encodeURIComponent(m.chapter)}`)}>
                  {chapterTitle.get(m.chapter) || m.chapter}, line {m.line}
                </Link>
                <blockquote>{m.snippet}</blockquote>
              </li>
            ))}
          </ol>
        )}
        {mentions.hasMore && <p className="muted">The first 100 mentions are shown.</p>}
      </section>

      <EditEntity
        key={entity.version}
        projectId={projectId}
        entity={entity}
        stale={stale}
        onSaved={(v) => {
          setStale(false);
          void run(async () => undefined, `Saved: now version ${v}.`);
        }}
        onStale={() => {
          setStale(true);
          detail.reload();
        }}
      />

      <section aria-labelledby="danger">
        <h2 id="danger">Delete</h2>
        <button type="button" className="danger" onClick={remove}>
          Delete
        </button>
      </section>
    </>
  );
}

function FactItem({ fact, full, suggested, onRetcon, onRetire }: { fact: StoryFact; full?: Fact; suggested: boolean; onRetcon: (text: string) => void; onRetire: (reason: string) => void }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(fact.text);
  const p = full?.provenance;
  return (
    <li>
      <span className={suggested ? 'suggested-text' : undefined}>{fact.text}</span> <span className="muted">({span(fact.from, fact.until)})</span>
      <div className="provenance">
        {p ? (
          <>
            proposed by {p.proposedBy} on {when(p.proposedAt)} ({p.source})
            {p.decision && `; ${p.decision} by ${p.decidedBy} on ${when(p.decidedAt)}`}
            {p.content && <blockquote>{p.content}</blockquote>}
          </>
        ) : (
          full && <>written by {full.createdBy ?? 'the operator'} on {when(full.createdAt)} ({full.source})</>
        )}
      </div>
      {!suggested && (
        <div className="actions">
          {editing ? (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                if (confirm('Retcon this fact? The current text goes into the history.')) onRetcon(text);
              }}
            >
              <label htmlFor={`retcon-${fact.id}`}>New text</label>
              <input id={`retcon-${fact.id}`} value={text} onChange={(e) => setText(e.target.value)} required />
              <button type="submit">Save retcon</button>
              <button type="button" className="quiet" onClick={() => setEditing(false)}>
                Cancel
              </button>
            </form>
          ) : (
            <>
              <button type="button" className="small" onClick={() => setEditing(true)} aria-label={`Retcon “${fact.text}”`}>
                Retcon
              </button>
              <button
                type="button"
                className="small quiet"
                aria-label={`Retire “${fact.text}”`}
                onClick={() => {
                  const reason = prompt('Retire this fact? It leaves the canon and stays in the history. Reason (optional):');
                  if (reason !== null) onRetire(reason);
                }}
              >
                Retire
              </button>
            </>
          )}
        </div>
      )}
    </li>
  );
}

function NewFact({ projectId, entityId, onAdded }: { projectId: string; entityId: string; onAdded: () => void }) {
  const [text, setText] = useState('');
  const [status, setStatus] = useState('approved');
  const [error, setError] = useState<unknown>();
  async function add(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    try {
      await gql(ops.createFact, { projectId, entityId, input: { text, status } });
      setText('');
      onAdded();
    } catch (e) {
      setError(e);
    }
  }
  return (
    <form onSubmit={add} className="inline">
      <label htmlFor="new-fact">New fact</label>
      <input id="new-fact" value={text} onChange={(e) => setText(e.target.value)} required />
      <label htmlFor="new-fact-status">as</label>
      <select id="new-fact-status" value={status} onChange={(e) => setStatus(e.target.value)}>
        <option value="approved">approved</option>
        <option value="suggested">suggested</option>
      </select>
      <button type="submit">Add fact</button>
      <Problem error={error} />
    </form>
  );
}

function EditEntity({ projectId, entity, stale, onSaved, onStale }: { projectId: string; entity: EntityDetail; stale: boolean; onSaved: (version: number) => void; onStale: () => void }) {
  const [name, setName] = useState(entity.canonicalName);
  const [aliases, setAliases] = useState(entity.aliases.join(', '));
  const [type, setType] = useState<EntityType>(entity.type);
  const [status, setStatus] = useState(entity.approvalStatus);
  const [error, setError] = useState<unknown>();

  async function save(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    try {
      const input = { name, type, status, aliases: aliases.split(',').map((a) => a.trim()).filter(Boolean), expectedVersion: entity.version };
      const { updateEntity } = await gql<{ updateEntity: { version: number } }>(ops.updateEntity, { projectId, entityId: entity.id, input });
      onSaved(updateEntity.version);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'version_conflict') onStale();
      else setError(e);
    }
  }

  return (
    <section aria-labelledby="edit">
      <h2 id="edit">Edit</h2>
      {stale && (
        <p role="alert" className="problem">
          Someone changed this entity while you were editing it, so your change was not saved. This is their version ({entity.version}).
        </p>
      )}
      <form onSubmit={save} className="stack">
        <label htmlFor="edit-name">Name</label>
        <input id="edit-name" required value={name} onChange={(e) => setName(e.target.value)} />
        <label htmlFor="edit-aliases">Aliases (comma separated)</label>
        <input id="edit-aliases" value={aliases} onChange={(e) => setAliases(e.target.value)} />
        <label htmlFor="edit-type">Type</label>
        <select id="edit-type" value={type} onChange={(e) => setType(e.target.value as EntityType)}>
          {entityTypes.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        <label htmlFor="edit-status">Status</label>
        <select id="edit-status" value={status} onChange={(e) => setStatus(e.target.value)}>
          <option>approved</option>
          <option>suggested</option>
        </select>
        <div>
          <button type="submit">Save</button>
        </div>
      </form>
      <Problem error={error} />
    </section>
  );
}
