// A project's names (every entity's name and aliases, whatever its status) kept in this process under
// Project.namesVersion, which every transaction that adds, removes or renames entities raises as it commits (its
// triggers), in any process: while the version stands, so do the names. The name writers, the brief and the conflict check all read them
// here, and each keeps what it builds from them (its index) beside them, so a write that changes no name (a fact, a
// state) costs none of them a read of 5,000 names and a new index.
import { rows, statement, type SqlClient } from '../../db/sql.ts';

export type NamedEntity = { id: string; name: string; aliases: string[] };

type Build<T> = (entities: readonly NamedEntity[]) => T;

export class ProjectNames {
  private readonly built: Map<Build<unknown>, unknown>;

  /**
   * `entities` in id order (the store's order: ids are ASCII of one shape); `built`: what derived() would make of them,
   * already made (a writer that changed one entity's names updates its own index rather than build it again).
   */
  constructor(
    readonly version: string,
    readonly entities: readonly NamedEntity[],
    built: [Build<unknown>, unknown][] = [],
  ) {
    this.built = new Map(built);
  }

  /** What `build` makes of these names, made once per version (`build` is the key: pass one function, not a new one). */
  derived<T>(build: Build<T>): T {
    if (!this.built.has(build)) this.built.set(build, build(this.entities));
    return this.built.get(build) as T;
  }
}

// The names by entity id with the version they are at; none (one row of the version alone) when that version is $2,
// the version kept in this process. `pending`: read inside a transaction that changed the project's names, whose
// version is raised only as it commits (the mixes28_names_at_commit migration): such names are not kept.
const namesRead = statement('project_names', `
  SELECT p."namesVersion"::text AS version, x.id, x.name, x.aliases,
    position(',' || p.id || ',' IN COALESCE(current_setting('lore.names_changed', true), '')) > 0 AS pending
  FROM "Project" p LEFT JOIN LATERAL (
    SELECT id, name, aliases FROM "Entity" WHERE "projectId" = p.id AND p."namesVersion"::text IS DISTINCT FROM $2::text
  ) x ON true
  WHERE p.id = $1 ORDER BY x.id`);

type NameRow = { version: string; id: string | null; name: string | null; aliases: string[] | null; pending: boolean };
const namedEntities = (found: NameRow[]): NamedEntity[] =>
  found.filter((e): e is NameRow & { id: string; name: string } => e.id !== null).map((e) => ({ id: e.id, name: e.name, aliases: e.aliases ?? [] }));

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

/**
 * The project's names now, undefined for no such project. `version`: the project's names version as the caller just
 * read it; the kept names answer without a read when they are at it. Otherwise one statement reads the version, and the
 * names only when they are not the ones kept.
 */
export async function projectNames(sql: SqlClient, projectId: string, version?: string): Promise<ProjectNames | undefined> {
  const known = kept.get(projectId);
  if (known && version !== undefined && known.version === version) {
    keepNames(projectId, known);
    return known;
  }
  let found = await rows<NameRow>(sql, namesRead, [projectId, known?.version ?? null]);
  if (found.length === 0) return undefined;
  const now = found[0].version;
  if (found[0].pending) {
    // The names this transaction sees, not those kept at the version it has not raised yet.
    if (known?.version === now) found = await rows<NameRow>(sql, namesRead, [projectId, null]);
    return new ProjectNames(now, namedEntities(found));
  }
  if (known?.version === now) {
    keepNames(projectId, known);
    return known;
  }
  // Names kept meanwhile at the same version are the same names.
  const current = kept.get(projectId);
  if (current?.version === now) return current;
  const names = new ProjectNames(now, namedEntities(found));
  keepNames(projectId, names);
  return names;
}
