// Recall and search pages, kept in this process with the canon version of their project they were read at, which
// database triggers raise on every change to what those pages show (prisma/migrations/…_hot_paths). A request reads
// the version (one indexed row, which also proves the project is the caller's) and is served from memory while the
// canon is unchanged. When the version has moved, the page is still served if no change since could have touched it
// (canonChanges.ts: no entity removed or renamed, none added that the page could show, none of the page's entities
// changed, and for a search page no ranking moved); when the only changes since touched entities the page shows, without
// moving which entities it holds or their order, those entities alone are read again (in one statement, at the version
// it answers) and the page keeps the rest; otherwise it is read again. Any write, from any process, moves the version
// and logs what it changed, so no page outlives the canon it was read from.
import { writeFileSync } from 'node:fs';
import { LRUCache } from 'lru-cache';
import type { Admits, CanonChanges, PageKind } from './canonChanges.ts';

type Entry = { page: object; version: number; stamp: string; ids: ReadonlySet<string>; admits?: Admits };
/** A page, and a stamp naming this very page (the same stamp, the same content): a cache of answers keys on it. */
export type Stamped<T> = { page: T; stamp: string | undefined };
/**
 * `page` with the entities `ids` read again (in one statement, at the canon version it answers with), the rest and their
 * order as they were; undefined when it cannot (an entity gone).
 */
export type Refresh<T> = (page: T, ids: string[]) => Promise<{ page: T; version: number } | undefined>;

let loads = 0;

/**
 * How each request for a page was answered, by kind: 'current' (kept at the version asked), 'kept' (no change since
 * touched it), else why it was read: 'absent', 'pruned' or the scope of the change that may have touched it
 * (canonChanges.ts), with ', shared' when it joined another request's read. Written to `file` every second.
 */
export class ReadCacheStats {
  private readonly counts: Record<string, Record<string, number>> = {};

  constructor(file: string) {
    setInterval(() => writeFileSync(file, JSON.stringify(this.counts)), 1_000).unref();
  }

  count(kind: PageKind, outcome: string): void {
    const counts = (this.counts[kind] ??= {});
    counts[outcome] = (counts[outcome] ?? 0) + 1;
  }
}

export class ReadCache {
  private readonly pages?: LRUCache<string, Entry>;
  private readonly loading = new Map<string, Promise<Stamped<object> | undefined>>();

  /** `megabytes`: the budget, measured as the pages' JSON length (a page of 100 entities is about 100 kB); 0: off */
  constructor(
    megabytes: number,
    private readonly changes?: CanonChanges,
    /** counts how each request for a page was answered (LORE_READ_CACHE_STATS, for the benches) */
    private readonly stats?: ReadCacheStats,
  ) {
    this.pages =
      megabytes > 0
        ? new LRUCache({ maxSize: megabytes * 1024 * 1024, sizeCalculation: (entry, key) => JSON.stringify(entry.page).length + key.length })
        : undefined;
  }

  get enabled(): boolean {
    return this.pages !== undefined;
  }

  /**
   * The page stored under `key` when it is as new as `version` or unchanged since, else `load`'s answer, stored when it
   * is defined and `keep` accepts it (a page not kept has no stamp). `ids`: the entities the page shows; `admits`:
   * which new entities it could show, when not any (a recall page's filter). Requests that
   * miss the same key at the same version share one load: after a write, the readers of a page wait for one statement
   * instead of each running their own.
   */
  async through<T extends object>(
    projectId: string,
    version: number,
    kind: PageKind,
    key: string,
    load: () => Promise<T | undefined>,
    ids: (page: T) => Iterable<string>,
    keep: (page: T) => boolean = () => true,
    admits?: Admits,
    refresh?: Refresh<T>,
  ): Promise<Stamped<T> | undefined> {
    if (!this.pages) {
      const page = await load();
      return page && { page, stamp: undefined };
    }
    const pageKey = `${projectId}\0${kind}\0${key}`;
    const entry = this.pages.get(pageKey);
    // With `refresh`, a page whose own entities alone changed reads those entities again, not the whole page.
    const touched = refresh && this.changes ? new Set<string>() : undefined;
    const dropped = !entry ? 'absent' : entry.version >= version ? undefined
      : this.changes ? await this.changes.droppedBy(projectId, entry.version, version, kind, entry.ids, entry.admits, touched) : 'all';
    if (entry && !dropped && !touched?.size) {
      this.stats?.count(kind, entry.version >= version ? 'current' : 'kept');
      if (entry.version < version) entry.version = version;
      return { page: entry.page as T, stamp: entry.stamp };
    }
    const loadKey = `${pageKey}\0${version}`;
    const pending = this.loading.get(loadKey) as Promise<Stamped<T> | undefined> | undefined;
    const outcome = dropped ?? 'refreshed';
    this.stats?.count(kind, pending ? `${outcome}, shared` : outcome);
    if (pending) return pending;
    const store = (page: T, at: number): Stamped<T> => {
      if (!keep(page)) return { page, stamp: undefined };
      const stored: Entry = { page, version: at, stamp: `${projectId}@${at}.${++loads}`, ids: new Set(ids(page)), admits };
      const current = this.pages!.get(pageKey);
      if (!current || current.version <= at) this.pages!.set(pageKey, stored);
      return { page, stamp: stored.stamp };
    };
    const reload = () => load().then((page) => page && store(page, version));
    const loading = entry && !dropped
      ? this.refreshed(projectId, version, kind, entry, touched!, refresh!).then((fresh) => (fresh ? store(fresh.page as T, fresh.version) : reload()))
      : reload();
    this.loading.set(loadKey, loading);
    try {
      return await loading;
    } finally {
      this.loading.delete(loadKey);
    }
  }

  /**
   * `entry`'s page with its `touched` entities read again, as it stands at the version that read answered with (at
   * least `version`): undefined when a change after `version`, up to that one, touched more of the page than was read.
   */
  private async refreshed<T extends object>(
    projectId: string, version: number, kind: PageKind, entry: Entry, touched: Set<string>, refresh: Refresh<T>,
  ): Promise<{ page: T; version: number } | undefined> {
    const fresh = await refresh(entry.page as T, [...touched]);
    if (!fresh || fresh.version < version) return undefined;
    if (fresh.version === version) return fresh;
    const since = new Set<string>();
    const dropped = await this.changes!.droppedBy(projectId, version, fresh.version, kind, entry.ids, entry.admits, since);
    return !dropped && [...since].every((id) => touched.has(id)) ? fresh : undefined;
  }
}
