// A project's names (every entity's name and aliases, whatever its status) kept in this process under
// Project.namesVersion, which every transaction that adds, removes or renames entities raises as it commits (its
// triggers), in any process: while the version stands, so do the names. The name writers, the brief and the conflict
// check all read them here, and each keeps what it makes of them (its index) beside them, so a write that changes no
// name (a fact, a state) costs none of them a read of 5,000 names and a new index. A write that changes names costs
// the next reader the entities it changed (the NameChange log, the names28g_names_log migration), applied to the names
// kept, and the indexes that can be patched are patched; the others are made again when next asked for.
import { rows, statement, type SqlClient } from '../../db/sql.ts';
import { firstIndex } from '../sorted.ts';

export type NamedEntity = { id: string; name: string; aliases: string[] };

/** Names of one version against the version before: `changed`, the entities whose names changed, in id order. */
export type NamesPatch = {
  before: readonly NamedEntity[];
  after: readonly NamedEntity[];
  changed: readonly { id: string; before?: NamedEntity; after?: NamedEntity }[];
  /** where the first entity changed stands in `before` (and in `after`: all before it are the same) */
  first: number;
};

/** What a reader makes of a project's names; `patch`, when it can, makes it for the names after a change from before. */
export type Derivation<T> = { build(entities: readonly NamedEntity[]): T; patch?(made: T, change: NamesPatch): T };

export class ProjectNames {
  private readonly built: Map<Derivation<unknown>, unknown>;

  /**
   * `entities` in id order (the store's order: ids are ASCII of one shape); `built`: what derived() would make of them,
   * already made (a writer that changed one entity's names updates its own index rather than build it again).
   */
  constructor(
    readonly version: string,
    readonly entities: readonly NamedEntity[],
    built: [Derivation<unknown>, unknown][] = [],
  ) {
    this.built = new Map(built);
  }

  /** What `derivation` makes of these names, made once per version (pass one object, not a new one: it is the key). */
  derived<T>(derivation: Derivation<T>): T {
    if (!this.built.has(derivation)) this.built.set(derivation, derivation.build(this.entities));
    return this.built.get(derivation) as T;
  }

  /**
   * These names at `version`, after the entities in `changes` (in id order) took the names given, or went (none given):
   * what was made of these names is patched where its derivation can, the rest made again when asked for.
   */
  changed(version: string, changes: readonly { id: string; entity?: NamedEntity }[]): ProjectNames {
    const after: NamedEntity[] = [];
    const changed: NamesPatch['changed'][number][] = [];
    let i = 0;
    for (const change of changes) {
      while (i < this.entities.length && this.entities[i].id < change.id) after.push(this.entities[i++]);
      const before = this.entities[i]?.id === change.id ? this.entities[i++] : undefined;
      if (change.entity) after.push(change.entity);
      changed.push({ id: change.id, before, after: change.entity });
    }
    while (i < this.entities.length) after.push(this.entities[i++]);
    if (changed.length === 0) return new ProjectNames(version, this.entities, [...this.built]);
    const patch: NamesPatch = { before: this.entities, after, changed, first: placeOf(this.entities, changed[0].id).at };
    const built: [Derivation<unknown>, unknown][] = [];
    for (const [derivation, made] of this.built) if (derivation.patch) built.push([derivation, derivation.patch(made, patch)]);
    return new ProjectNames(version, after, built);
  }
}

/** Where `id` stands among `entities` (in id order: ids are ASCII of one shape, so the store's order is the code points'). */
export function placeOf(entities: readonly { id: string }[], id: string): { at: number; present: boolean } {
  const at = firstIndex(entities.length, (i) => entities[i].id < id);
  return { at, present: entities[at]?.id === id };
}

// The project's names version, and either every entity's names (`whole`: no names version given, one older than the
// log reaches back to, or one later than this statement sees: kept by a writer whose commit it began before) or those of the entities whose names changed since the version given ($2), as they stand now
// (none for an entity deleted or moved away). `pending`: read inside a transaction that changed the project's names,
// whose version is raised only as it commits (the mixes28_names_at_commit migration): its own changes (logged at -1)
// are among those read, and such names are not kept.
const namesRead = statement('project_names', `
  SELECT p."namesVersion"::text AS version, w.whole, x.id, x.name, x.aliases,
    position(',' || p.id || ',' IN COALESCE(current_setting('lore.names_changed', true), '')) > 0 AS pending
  FROM "Project" p
  CROSS JOIN LATERAL (SELECT $2::bigint IS NULL OR $2::bigint < p."namesLogFrom" OR $2::bigint > p."namesVersion" AS whole) w
  LEFT JOIN LATERAL (
    SELECT id, name, aliases FROM "Entity" WHERE "projectId" = p.id AND w.whole
    UNION ALL
    SELECT c."entityId", e.name, e.aliases FROM (
      SELECT DISTINCT "entityId" FROM "NameChange" WHERE "projectId" = p.id AND (version > $2::bigint OR version = -1) AND NOT w.whole
    ) c LEFT JOIN "Entity" e ON e.id = c."entityId" AND e."projectId" = p.id
  ) x ON true
  WHERE p.id = $1 ORDER BY x.id`);

type NameRow = { version: string; whole: boolean; id: string | null; name: string | null; aliases: string[] | null; pending: boolean };
const changesOf = (found: NameRow[]) =>
  found.filter((e): e is NameRow & { id: string } => e.id !== null)
    .map((e) => ({ id: e.id, entity: e.name === null ? undefined : { id: e.id, name: e.name, aliases: e.aliases ?? [] } }));
const namedEntities = (found: NameRow[]): NamedEntity[] => changesOf(found).map((e) => e.entity!);

// The projects whose names were asked for last.
const kept = new Map<string, ProjectNames>();
const keptProjects = 16;

/** Keeps `names` as the project's (the most recently used last), unless names of a later version are kept. */
export function keepNames(projectId: string, names: ProjectNames): void {
  const current = kept.get(projectId);
  kept.delete(projectId);
  kept.set(projectId, current && BigInt(current.version) > BigInt(names.version) ? current : names);
  if (kept.size > keptProjects) kept.delete(kept.keys().next().value!);
}

// The reads of each project's names in flight, per client (a transaction's reads see its own writes: never shared).
type Flight = { read: Promise<ProjectNames | undefined>; queued?: Promise<ProjectNames | undefined> };
const flights = new WeakMap<SqlClient, Map<string, Flight>>();

/**
 * The project's names now, undefined for no such project. `version`: the project's names version as the caller just
 * read it; the kept names answer without a read when they are at it. Otherwise one statement reads the version, and
 * the names changed since those kept (all of them when none are kept). One read of a project's names is in flight at
 * a time: callers arriving meanwhile (new entities arriving together at a gateway just started, each wanting all the
 * names) wait for it, take its names when they are at the version they read, and otherwise share one read sent after
 * it, once they have all arrived, so that it sees every write committed before any of them asked.
 */
export async function projectNames(sql: SqlClient, projectId: string, version?: string): Promise<ProjectNames | undefined> {
  const known = kept.get(projectId);
  if (known && version !== undefined && known.version === version) {
    keepNames(projectId, known);
    return known;
  }
  let inFlight = flights.get(sql);
  if (!inFlight) flights.set(sql, (inFlight = new Map()));
  const flight = inFlight.get(projectId);
  if (flight && version !== undefined) {
    const names = await flight.read.catch(() => undefined);
    if (names?.version === version) return names;
    return projectNames(sql, projectId, version);
  }
  const start = (): Promise<ProjectNames | undefined> => {
    const started: Flight = { read: readNames(sql, projectId).finally(() => inFlight.get(projectId) === started && inFlight.delete(projectId)) };
    inFlight.set(projectId, started);
    return started.read;
  };
  if (!flight) return start();
  return (flight.queued ??= flight.read.then(start, start));
}

async function readNames(sql: SqlClient, projectId: string): Promise<ProjectNames | undefined> {
  const known = kept.get(projectId);
  const found = await rows<NameRow>(sql, namesRead, [projectId, known?.version ?? null]);
  if (found.length === 0) return undefined;
  const { version: now, whole, pending } = found[0];
  // The names this transaction sees, not kept: the version it has not raised yet stands for the names without its own.
  if (pending) return whole ? new ProjectNames(now, namedEntities(found)) : known!.changed(now, changesOf(found));
  if (known?.version === now && found[0].id === null) {
    keepNames(projectId, known);
    return known;
  }
  // Names kept meanwhile at the same version are the same names.
  const current = kept.get(projectId);
  if (current?.version === now) return current;
  const names = whole ? new ProjectNames(now, namedEntities(found)) : known!.changed(now, changesOf(found));
  keepNames(projectId, names);
  return names;
}
