import type { ReactNode } from 'react';
import { gql } from '../api.ts';
import { ops, type ChapterName } from '../ops.ts';
import { entityPath, Link, projectPath } from '../router.tsx';
import { Heading, Problem } from '../ui.tsx';
import { useData } from '../useData.ts';

type ChapterText = { id: string; title: string; ordinal: number; text: string; names: ChapterName[] };

/** How many characters of `line` from `at` the entity's name or an alias covers (the longest that fits), else 0. */
function nameLength(line: string, at: number, name: ChapterName): number {
  const here = line.slice(at).toLowerCase();
  return Math.max(0, ...[name.canonicalName, ...name.aliases].filter((n) => here.startsWith(n.toLowerCase())).map((n) => n.length));
}

/** The text as text (never HTML), with each recognised name a link to its entity. */
function MarkedText({ projectId, text, names }: { projectId: string; text: string; names: ChapterName[] }) {
  const byLine = new Map<number, ChapterName[]>();
  for (const n of names) byLine.set(n.line, [...(byLine.get(n.line) ?? []), n]);
  const out: ReactNode[] = [];
  text.split(/\r\n|\r|\n/).forEach((line, index) => {
    if (index > 0) out.push('\n');
    let cursor = 0;
    for (const n of (byLine.get(index + 1) ?? []).sort((a, b) => a.column - b.column)) {
      const at = n.column - 1;
      const length = nameLength(line, at, n);
      if (at < cursor || length === 0) continue;
      out.push(
        line.slice(cursor, at),
        <Link key={`${index}:${at}`} to={entityPath(projectId, n.entityId)} className={`name type-${n.type}`} title={n.canonicalName}>
          {line.slice(at, at + length)}
        </Link>,
      );
      cursor = at + length;
    }
    out.push(line.slice(cursor));
  });
  return <div className="chapter-text">{out}</div>;
}

export function ChapterPage({ projectId, chapterId }: { projectId: string; chapterId: string }) {
  const chapter = useData(() => gql<{ chapter: ChapterText }>(ops.chapterText, { projectId, chapterId }).then((d) => d.chapter), [projectId, chapterId]);
  if (chapter.error) return <Problem error={chapter.error} />;
  if (!chapter.data) return <p aria-busy="true">Loading…</p>;
  const c = chapter.data;
  const distinct = [...new Map(c.names.map((n) => [n.entityId, n])).values()];
  return (
    <>
      <p className="crumbs">
        <Link to={projectPath(projectId, 'chapters')}>Chapters</Link> › {c.id}
      </p>
      <Heading>
        {c.ordinal}. {c.title || c.id}
      </Heading>
      {distinct.length > 0 && (
        <p>
          Named here:{' '}
          {distinct.map((n, i) => (
            <span key={n.entityId}>
              {i > 0 && ', '}
              <Link to={entityPath(projectId, n.entityId)}>{n.canonicalName}</Link>
            </span>
          ))}
        </p>
      )}
      <MarkedText projectId={projectId} text={c.text} names={c.names} />
    </>
  );
}
