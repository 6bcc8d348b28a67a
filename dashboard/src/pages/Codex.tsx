import { useState, type FormEvent } from 'react';
import { gql } from '../api.ts';
import { entityTypes, ops, type EntityHeading, type EntityType } from '../ops.ts';
import { entityPath, Link, navigate } from '../router.tsx';
import { Heading, Problem, Status } from '../ui.tsx';
import { useData } from '../useData.ts';

const pageSize = 50;

type Listing = { data: EntityHeading[]; hasMore: boolean; nextStartingAfter: string | null; total?: number; ranking?: string };

export function CodexPage({ projectId }: { projectId: string }) {
  const [type, setType] = useState<EntityType | ''>('');
  const [query, setQuery] = useState('');
  const [searched, setSearched] = useState('');
  // The cursors of the pages before the current one: Previous pops, Next pushes.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const after = cursors[cursors.length - 1];

  const listing = useData<Listing>(
    () =>
      searched
        ? gql<{ search: Listing }>(ops.searchEntities, { projectId, q: searched, limit: pageSize, startingAfter: after }).then((d) => ({
            ...d.search,
            data: type ? d.search.data.filter((e) => e.type === type) : d.search.data,
          }))
        : gql<{ entities: Listing }>(ops.entities, { projectId, type: type || null, limit: pageSize, startingAfter: after }).then((d) => d.entities),
    [projectId, type, searched, after],
  );

  const restart = () => setCursors([undefined]);

  return (
    <>
      <Heading>Codex</Heading>
      <form
        className="toolbar"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setSearched(query.trim());
          restart();
        }}
      >
        <label htmlFor="codex-type">Type</label>
        <select
          id="codex-type"
          value={type}
          onChange={(e) => {
            setType(e.target.value as EntityType | '');
            restart();
          }}
        >
          <option value="">All types</option>
          {entityTypes.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        <label htmlFor="codex-search">Search</label>
        <input id="codex-search" type="search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder="name, alias or fact" />
        <button type="submit">Search</button>
        {searched && (
          <button
            type="button"
            className="quiet"
            onClick={() => {
              setQuery('');
              setSearched('');
              restart();
            }}
          >
            Clear search
          </button>
        )}
      </form>
      <Problem error={listing.error} />
      {listing.data && (
        <>
          <Status>
            {searched
              ? `Matches for “${searched}” (${listing.data.ranking === 'hybrid' ? 'by words and meaning' : 'by words'})`
              : `${listing.data.total} ${type || 'entities'}${listing.data.total === 1 ? '' : type ? 's' : ''}, in name order`}
            {cursors.length > 1 && `, page ${cursors.length}`}
          </Status>
          <ul className="entity-list" aria-busy={listing.loading}>
            {listing.data.data.map((e) => (
              <li key={e.id}>
                <Link to={entityPath(projectId, e.id)}>{e.canonicalName}</Link> <span className={`tag type-${e.type}`}>{e.type}</span>
                {e.approvalStatus === 'suggested' && <span className="tag suggested">suggested</span>}
                {e.aliases.length > 0 && <span className="muted"> also {e.aliases.join(', ')}</span>}
              </li>
            ))}
          </ul>
          <div className="pager">
            <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
              Previous page
            </button>
            <button type="button" disabled={!listing.data.hasMore} onClick={() => setCursors([...cursors, listing.data!.nextStartingAfter ?? undefined])}>
              Next page
            </button>
          </div>
        </>
      )}
      <NewEntity projectId={projectId} />
    </>
  );
}

function NewEntity({ projectId }: { projectId: string }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<EntityType>('character');
  const [aliases, setAliases] = useState('');
  const [error, setError] = useState<unknown>();

  async function create(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    try {
      const input = { name, type, aliases: aliases.split(',').map((a) => a.trim()).filter(Boolean) };
      const { createEntity } = await gql<{ createEntity: { id: string } }>(ops.createEntity, { projectId, input });
      navigate(entityPath(projectId, createEntity.id));
    } catch (e) {
      setError(e);
    }
  }

  return (
    <section aria-labelledby="new-entity">
      <h2 id="new-entity">New entity</h2>
      <form onSubmit={create} className="stack">
        <label htmlFor="entity-name">Name</label>
        <input id="entity-name" required value={name} onChange={(e) => setName(e.target.value)} />
        <label htmlFor="entity-type">Type of the new entity</label>
        <select id="entity-type" value={type} onChange={(e) => setType(e.target.value as EntityType)}>
          {entityTypes.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        <label htmlFor="entity-aliases">Aliases (comma separated)</label>
        <input id="entity-aliases" value={aliases} onChange={(e) => setAliases(e.target.value)} />
        <div>
          <button type="submit">Create entity</button>
        </div>
      </form>
      <Problem error={error} />
    </section>
  );
}
