import { useState, type FormEvent, type ReactNode } from 'react';
import { gql } from '../api.ts';
import { ops, type CitedCanon, type Conflict } from '../ops.ts';
import { entityPath, Link, projectPath } from '../router.tsx';
import { Heading, Problem, Status } from '../ui.tsx';
import { useData } from '../useData.ts';
import { allChapters } from './chapters.ts';

/** The words a rationale quotes ("…" or “…”): the passage's words that triggered the hit. */
export function quotedWords(rationale: string): string[] {
  return [...rationale.matchAll(/"([^"]{2,})"|“([^”]{2,})”/g)].map((m) => (m[1] ?? m[2]).trim()).filter(Boolean);
}

/** The passage as text, with every occurrence of the quoted words marked. */
function Highlighted({ text, quotes }: { text: string; quotes: string[] }) {
  const lower = text.toLowerCase();
  const ranges: [number, number][] = [];
  for (const q of quotes) {
    const needle = q.toLowerCase();
    for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + needle.length)) ranges.push([at, at + needle.length]);
  }
  // In passage order; of two quotes starting at one place, the longer is marked.
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const parts: ReactNode[] = [];
  let cursor = 0;
  for (const [start, end] of ranges) {
    if (start < cursor) continue;
    parts.push(text.slice(cursor, start), <mark key={start}>{text.slice(start, end)}</mark>);
    cursor = end;
  }
  parts.push(text.slice(cursor));
  return <p className="passage">{parts}</p>;
}

/** The canon a conflict cites: each named and linked to its entity (or a beat to its chapter) when Lore resolved it. */
function Refs({ projectId, refs, cited = [] }: { projectId: string; refs: string[]; cited?: CitedCanon[] }) {
  if (refs.length === 0) return null;
  const byId = new Map(cited.map((c) => [c.id, c]));
  const link = (r: string) => {
    const c = byId.get(r);
    if (c?.entityId) return <Link to={entityPath(projectId, c.entityId)}>{c.kind === 'fact' ? `“${c.label}”` : c.label}</Link>;
    if (c?.chapter) return <Link to={projectPath(projectId, `chapters/${encodeURIComponent(c.chapter)}`)}>{c.label}</Link>;
    return r.startsWith('ent_') ? <Link to={entityPath(projectId, r)}>{r}</Link> : <code>{r}</code>;
  };
  return (
    <p className="refs">
      Cites:{' '}
      {refs.map((r, i) => (
        <span key={r}>
          {i > 0 && ', '}
          {byId.get(r) && byId.get(r)!.kind !== 'entity' && <span className="muted">{byId.get(r)!.kind} </span>}
          {link(r)}
        </span>
      ))}
    </p>
  );
}

function ConflictBody({ projectId, c }: { projectId: string; c: Conflict }) {
  const quotes = quotedWords(c.rationale);
  return (
    <>
      <p>
        <span className={`tag sev-${c.severity}`}>{c.severity}</span> <span className="tag">{c.kind.replaceAll('_', ' ')}</span>
        {c.episode && <span className="muted"> in {c.episode}</span>}
      </p>
      <p>{c.rationale}</p>
      {quotes.length > 0 && (
        <p>
          Quoted:{' '}
          {quotes.map((q, i) => (
            <q key={i} className="quote">
              {q}
            </q>
          ))}
        </p>
      )}
      <Refs projectId={projectId} refs={c.refs} cited={c.cited} />
    </>
  );
}

export function ConflictsPage({ projectId }: { projectId: string }) {
  const open = useData(() => gql<{ conflicts: Conflict[] }>(ops.openConflicts, { projectId }).then((d) => d.conflicts), [projectId]);
  const [notice, setNotice] = useState<string>();
  const [error, setError] = useState<unknown>();

  async function settle(c: Conflict, status: 'resolved' | 'dismissed') {
    setError(undefined);
    try {
      await gql(ops.settleConflict, { projectId, conflictId: c.id, status });
      open.set((open.data ?? []).filter((x) => x.id !== c.id));
      setNotice(`“${c.title}” ${status}.`);
    } catch (e) {
      setError(e);
    }
  }

  return (
    <>
      <Heading>Conflicts</Heading>
      <Problem error={open.error ?? error} />
      {notice && <Status>{notice}</Status>}
      {open.data && open.data.length === 0 && <p>No open conflicts.</p>}
      <ol className="conflicts">
        {(open.data ?? []).map((c) => (
          <li key={c.id} aria-labelledby={`conflict-${c.id}`}>
            <h2 id={`conflict-${c.id}`}>{c.title}</h2>
            <ConflictBody projectId={projectId} c={c} />
            <div className="actions">
              <button type="button" onClick={() => settle(c, 'resolved')} aria-describedby={`conflict-${c.id}`}>
                Resolve
              </button>
              <button type="button" className="secondary" onClick={() => settle(c, 'dismissed')} aria-describedby={`conflict-${c.id}`}>
                Dismiss
              </button>
            </div>
          </li>
        ))}
      </ol>
      <CheckPassage projectId={projectId} onChecked={() => open.reload()} />
    </>
  );
}

function CheckPassage({ projectId, onChecked }: { projectId: string; onChecked: () => void }) {
  const chapters = useData(() => allChapters(projectId), [projectId]);
  const [text, setText] = useState('');
  const [chapter, setChapter] = useState('');
  const [provider, setProvider] = useState('openai');
  const [model, setModel] = useState('');
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ text: string; hits: Conflict[] }>();
  const [error, setError] = useState<unknown>();

  async function check(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    // The provider key goes with this one request only: it is not kept anywhere.
    const headers: Record<string, string> = key ? { 'X-LLM-Provider': provider, 'X-LLM-Key': key, ...(model && { 'X-LLM-Model': model }) } : {};
    try {
      const { checkConflicts } = await gql<{ checkConflicts: Conflict[] }>(ops.checkPassage, { projectId, text, chapter: chapter || null }, headers);
      setResult({ text, hits: checkConflicts });
      onChecked();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="check">
      <h2 id="check">Check a passage</h2>
      <form onSubmit={check} className="stack">
        <label htmlFor="check-text">Passage</label>
        <textarea id="check-text" rows={6} required value={text} onChange={(e) => setText(e.target.value)} />
        <label htmlFor="check-chapter">Chapter</label>
        <select id="check-chapter" value={chapter} onChange={(e) => setChapter(e.target.value)}>
          <option value="">None (the whole canon)</option>
          {(chapters.data ?? []).map((c) => (
            <option key={c.id} value={c.id}>
              {c.ordinal}. {c.title || c.id}
            </option>
          ))}
        </select>
        <label htmlFor="check-provider">LLM provider</label>
        <select id="check-provider" value={provider} onChange={(e) => setProvider(e.target.value)}>
          <option value="openai">OpenAI</option>
          <option value="anthropic">Anthropic</option>
          <option value="openai-compatible">OpenAI-compatible</option>
        </select>
        <label htmlFor="check-model">Model (optional)</label>
        <input id="check-model" value={model} onChange={(e) => setModel(e.target.value)} />
        <label htmlFor="check-key">Provider key (sent with this check only, never stored)</label>
        <input id="check-key" type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} />
        <div>
          <button type="submit" disabled={busy}>
            Check
          </button>
        </div>
      </form>
      <Problem error={error} />
      {busy && <Status>Checking…</Status>}
      {result && (
        <div className="check-result">
          <Status>{result.hits.length === 0 ? 'No conflicts found.' : `${result.hits.length} conflict${result.hits.length === 1 ? '' : 's'} found.`}</Status>
          <Highlighted text={result.text} quotes={result.hits.flatMap((h) => quotedWords(h.rationale))} />
          <ol>
            {result.hits.map((h) => (
              <li key={h.id}>
                <h3>{h.title}</h3>
                <ConflictBody projectId={projectId} c={h} />
              </li>
            ))}
          </ol>
        </div>
      )}
    </section>
  );
}
