import { useState } from 'react';
import { gql } from '../api.ts';
import { entityTypes, ops, type ChapterHeading, type EntityType } from '../ops.ts';
import { entityPath, Link, projectPath } from '../router.tsx';
import { Heading, Problem } from '../ui.tsx';
import { useData } from '../useData.ts';
import { allChapters } from './chapters.ts';

type Beat = { id: string; summary: string; entities: string[] };
type TimelineEntry = { id: string; chapter: string; ordinal: number; beats: Beat[] };
type MentionMap = { chapters: ChapterHeading[]; rows: { entityId: string; canonicalName: string; type: EntityType; total: number; counts: number[] }[] };

/** Beats of every chapter (imported or summarised before); a chapter never summarised needs the caller's LLM, so it shows none. */
async function beats(projectId: string): Promise<Map<string, Beat[]>> {
  const byChapter = new Map<string, Beat[]>();
  let after: string | null = null;
  do {
    const { timeline }: { timeline: { data: TimelineEntry[]; hasMore: boolean; nextStartingAfter: string | null } } = await gql(ops.timeline, { projectId, startingAfter: after });
    for (const entry of timeline.data) byChapter.set(entry.chapter, entry.beats);
    after = timeline.hasMore ? timeline.nextStartingAfter : null;
  } while (after);
  return byChapter;
}

export function ChaptersPage({ projectId }: { projectId: string }) {
  const chapters = useData(() => allChapters(projectId), [projectId]);
  const timeline = useData(() => beats(projectId), [projectId]);
  return (
    <>
      <Heading>Chapters</Heading>
      <Problem error={chapters.error} />
      {timeline.error && <p className="muted">Beats are not shown: {timeline.error.message}</p>}
      {chapters.data && chapters.data.length === 0 && <p>No chapters yet.</p>}
      <ol className="chapters">
        {(chapters.data ?? []).map((c) => (
          <li key={c.id}>
            <Link to={projectPath(projectId, `chapters/${encodeURIComponent(c.id)}`)}>
              {c.ordinal}. {c.title || c.id}
            </Link>{' '}
            <span className="muted">({c.id})</span>
            {(timeline.data?.get(c.id) ?? []).length > 0 && (
              <ul className="beats">
                {timeline.data!.get(c.id)!.map((b) => (
                  <li key={b.id}>{b.summary}</li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
      <MentionMapView projectId={projectId} />
    </>
  );
}

function MentionMapView({ projectId }: { projectId: string }) {
  const [type, setType] = useState<EntityType | ''>('');
  const map = useData(() => gql<{ mentionMap: MentionMap }>(ops.mentionMap, { projectId, type: type || null }).then((d) => d.mentionMap), [projectId, type]);
  const max = Math.max(1, ...(map.data?.rows ?? []).flatMap((r) => r.counts));
  return (
    <section aria-labelledby="mention-map">
      <h2 id="mention-map">Mention map</h2>
      <p className="muted">How often each of the 50 most mentioned entities appears in each chapter; an empty cell is a chapter without them.</p>
      <label htmlFor="map-type">Type</label>{' '}
      <select id="map-type" value={type} onChange={(e) => setType(e.target.value as EntityType | '')}>
        <option value="">All types</option>
        {entityTypes.map((t) => (
          <option key={t}>{t}</option>
        ))}
      </select>
      <Problem error={map.error} />
      {map.data && map.data.rows.length === 0 && <p>No mentions recorded.</p>}
      {map.data && map.data.rows.length > 0 && (
        <div className="scroll" tabIndex={0} role="region" aria-label="Mention map table">
          <table className="mention-map">
            <caption className="visually-hidden">Mentions per entity and chapter</caption>
            <thead>
              <tr>
                <th scope="col">Entity</th>
                {map.data.chapters.map((c) => (
                  <th scope="col" key={c.id} title={c.title}>
                    {c.id}
                  </th>
                ))}
                <th scope="col">Total</th>
              </tr>
            </thead>
            <tbody>
              {map.data.rows.map((r) => (
                <tr key={r.entityId}>
                  <th scope="row">
                    <Link to={entityPath(projectId, r.entityId)}>{r.canonicalName}</Link>
                  </th>
                  {r.counts.map((n, i) => (
                    <td key={map.data!.chapters[i].id} className={n === 0 ? 'cell empty' : `cell heat-${Math.ceil((n / max) * 4)}`}>
                      {n === 0 ? '' : n}
                    </td>
                  ))}
                  <td className="num">{r.total}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
