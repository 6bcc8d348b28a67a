// What moved a project's canon version, read from the CanonChange log that the canon tables' triggers write
// (prisma/migrations/…_writes_canon_changes, …_mixload_added_entities, …_writelock_appended_facts,
// …_mixes28c_added_words): a cached page read at an older version is still exact when no change since could have
// touched it, so a write to one entity leaves the pages of the others in the cache, a new entity leaves the recall
// pages whose filter none of its names contains and the search pages it could not match, and a new fact leaves the
// search pages whose query has none of its words. The log of each project is kept here as far as it was read, and
// only what is newer is asked for, mostly beside the canon version itself (EntityReader's canon_versions).
import { LRUCache } from 'lru-cache';
import { rows, statement, type SqlClient } from '../../db/sql.ts';
import { firstIndex } from '../sorted.ts';

export type PageKind = 'recall' | 'search';
// `names`: for 'added', the new entities' names; for 'appended' (words appended to the entities' search texts, the
// writelock_appended_facts migration), those words. `words`: for 'added', the words of the new entities' search vectors.
export type Change = {
  version: number; scope: 'all' | 'search' | 'entities' | 'added' | 'appended' | 'none'; entityIds: string[]; names: string[]; words: string[];
};
/**
 * Which new entities and words a page could show, when not any. `name`: whether an entity of these names (its
 * "nameText": name and aliases, one a line) could show on it (a recall page's filter, a search page's trigrams);
 * `word` (search pages): whether this word (as to_tsvector('simple') makes it) could match its query.
 */
export type Admits = { name: (nameText: string) => boolean; word?: (word: string) => boolean };
/** Changes of versions in (from, to], in version order. */
type Log = { from: number; to: number; changes: Change[] };

const changesBetween = statement(
  'canon_changes',
  `SELECT version::float8 AS version, scope, "entityIds", names, words FROM "CanonChange" WHERE "projectId" = $1 AND version > $2 AND version <= $3 ORDER BY version`,
);

/** Most changes kept per project; a page older than what is kept is read again. */
const keptChanges = 5_000;

export class CanonChanges {
  // Bounded by what the logs hold (a change and its entity ids), not by projects: an import logs thousands of ids.
  private readonly logs = new LRUCache<string, Log>({
    maxSize: 1_000_000,
    sizeCalculation: (log) => Math.min(1_000_000, log.changes.reduce((size, change) => size + 1 + change.entityIds.length + change.names.length, 1)),
  });
  private readonly reading = new Map<string, Promise<Log | undefined>>();

  constructor(private readonly sql: SqlClient) {}

  /**
   * What may have changed a `kind` page showing `ids`, read at version `from`, by version `to`: the scope of the first
   * change since that may have touched it, 'pruned' when the log no longer reaches back that far (the page is to be
   * read again), undefined when nothing did. `admits`: which new entities the page could show, when not any.
   * `touched`: when given, a change that touched only some of the page's entities themselves (their facts, states,
   * mentions: never which entities the page holds, nor their order) adds their ids to it instead of dropping the page.
   */
  async droppedBy(
    projectId: string, from: number, to: number, kind: PageKind, ids: ReadonlySet<string>, admits?: Admits, touched?: Set<string>,
  ): Promise<Change['scope'] | 'pruned' | undefined> {
    const log = await this.log(projectId, from, to);
    if (!log) return 'pruned';
    for (let i = firstAfter(log.changes, from); i < log.changes.length && log.changes[i].version <= to; i++) {
      const change = log.changes[i];
      if (change.scope === 'none') continue;
      if (change.scope === 'all' || (change.scope === 'search' && kind === 'search')) return change.scope;
      // A recall page shows a new entity whose names hold its filter; a search page one whose words match its query or
      // whose names are like it (lore_search).
      if (change.scope === 'added' && added(kind, change, admits)) return change.scope;
      // Words appended to a search text move a search ranking only for queries with one of them.
      if (change.scope === 'appended' && kind === 'search' && (!admits?.word || change.names.some(admits.word))) return change.scope;
      // What is left moved no page's membership or order: a recall page holds and orders entities by their names, which
      // change under 'all' alone; a search page ranks them by names and search text, which change under 'all', 'search'
      // and the 'appended' just ruled out.
      for (const id of change.entityIds) {
        if (!ids.has(id)) continue;
        if (!touched) return change.scope;
        touched.add(id);
      }
    }
    return undefined;
  }

  /**
   * Which of `ids`, read at version `from`, may show otherwise at version `to` (entity cards, entityCards.ts): all of
   * them when a change since touched every entity or the log no longer reaches back that far.
   */
  async touched(projectId: string, from: number, to: number, ids: readonly string[]): Promise<Set<string>> {
    const log = await this.log(projectId, from, to);
    if (!log) return new Set(ids);
    const touched = new Set<string>();
    for (let i = firstAfter(log.changes, from); i < log.changes.length && log.changes[i].version <= to; i++) {
      const change = log.changes[i];
      if (change.scope === 'none') continue;
      if (change.scope === 'all') return new Set(ids);
      for (const id of change.entityIds) touched.add(id);
    }
    return new Set(ids.filter((id) => touched.has(id)));
  }

  /**
   * The version this process has `projectId`'s log up to, for a read of the project's canon version to bring what is
   * newer (EntityReader: one round trip where a page kept across a write took two in turn); undefined when none is kept.
   */
  knownTo(projectId: string): number | undefined {
    return this.logs.get(projectId)?.to;
  }

  /** Changes of versions in (from, to] read beside a canon version (knownTo), joined to the kept log when complete. */
  learn(projectId: string, from: number, to: number, changes: Change[]): void {
    if (to > from && complete(changes, from, to)) this.keep(projectId, { from, to, changes });
  }

  /** The kept log, read further to `to` when it stops short; requests needing the same read share it. */
  private async log(projectId: string, from: number, to: number): Promise<Log | undefined> {
    let log = this.logs.get(projectId);
    if (log && log.from <= from && log.to >= to) return log;
    const key = `${projectId}\0${to}`;
    let pending = this.reading.get(key);
    if (!pending) {
      // Read on from what is kept when it reaches back far enough, else from `from`.
      const start = log && log.from <= from ? log.to : from;
      pending = this.read(projectId, start, to).finally(() => this.reading.delete(key));
      this.reading.set(key, pending);
    }
    const read = await pending;
    if (!read) return undefined;
    const joined = this.keep(projectId, read);
    return joined.from <= from && joined.to >= to ? joined : undefined;
  }

  /** `read` joined to the kept log when the two meet, else kept alone (the newer reads will read on from it). */
  private keep(projectId: string, read: Log): Log {
    const log = this.logs.get(projectId);
    let joined: Log = log && log.from <= read.from && log.to >= read.from ? { from: log.from, to: Math.max(log.to, read.to), changes: merge(log, read) } : read;
    if (joined.changes.length > keptChanges) {
      // Whole versions go: the log then starts after the newest one dropped.
      const start = joined.changes[joined.changes.length - keptChanges].version;
      joined = { from: start, to: joined.to, changes: joined.changes.filter((c) => c.version > start) };
    }
    if (!log || joined.to >= log.to) this.logs.set(projectId, joined);
    return joined;
  }

  /** The changes of (from, to], or undefined when some version in it has no row left (pruned). */
  private async read(projectId: string, from: number, to: number): Promise<Log | undefined> {
    if (to <= from) return { from, to, changes: [] };
    const changes = await rows<Change>(this.sql, changesBetween, [projectId, from, to]);
    return complete(changes, from, to) ? { from, to, changes } : undefined;
  }
}

/**
 * The index of the first of `changes` (in version order) after version `from`: a page's check walks the changes since
 * it was read, not the project's whole kept log (up to 5,000 changes, each skipped in turn on every read).
 */
function firstAfter(changes: readonly Change[], from: number): number {
  return firstIndex(changes.length, (i) => changes[i].version <= from);
}

/** Whether `changes` (in version order) has a row of every version in (from, to]: none pruned. */
function complete(changes: readonly Change[], from: number, to: number): boolean {
  let versions = 0;
  let last = from;
  for (const change of changes) {
    if (change.version !== last) versions++;
    last = change.version;
  }
  return versions === to - from;
}

/** Whether entities added by `change` could show on a `kind` page. */
function added(kind: PageKind, change: Change, admits: Admits | undefined): boolean {
  if (!admits || change.names.some(admits.name)) return true;
  // No words: logged before the words were (or a search text without any), so not known.
  return kind === 'search' && (!admits.word || change.words.length === 0 || change.words.some(admits.word));
}

function merge(kept: Log, read: Log): Change[] {
  return [...kept.changes, ...read.changes.filter((c) => c.version > kept.to)];
}
