// Recall and search pages, kept in this process with the canon version of their project they were read at, which
// database triggers raise on every change to what those pages show (prisma/migrations/…_hot_paths). A request reads
// the version (one indexed row, which also proves the project is the caller's) and is served from memory while the
// canon is unchanged. When the version has moved, the page is still served if no change since could have touched it
// (canonChanges.ts: no entity removed or renamed, none added that the page could show, none of the page's entities
// changed, and for a search page no ranking moved); otherwise it is read again. Any write, from any process, moves the version and logs what it changed,
// so no page outlives the canon it was read from.
import { writeFileSync } from 'node:fs';
import { LRUCache } from 'lru-cache';
import type { Admits, CanonChanges, PageKind } from './canonChanges.ts';

type Entry = { page: object; version: number; stamp: string; ids: ReadonlySet<string>; admits?: Admits };
/** A page, and a stamp naming this very page (the same stamp, the same content): a cache of answers keys on it. */
export type Stamped<T> = { page: T; stamp: string | undefined };

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
  ): Promise<Stamped<T> | undefined> {
    if (!this.pages) {
      const page = await load();
      return page && { page, stamp: undefined };
    }
    const pageKey = `${projectId}\0${kind}\0${key}`;
    const entry = this.pages.get(pageKey);
    const dropped = !entry ? 'absent' : entry.version >= version ? undefined
      : this.changes ? await this.changes.droppedBy(projectId, entry.version, version, kind, entry.ids, entry.admits) : 'all';
    if (entry && !dropped) {
      this.stats?.count(kind, entry.version >= version ? 'current' : 'kept');
      if (entry.version < version) entry.version = version;
      return { page: entry.page as T, stamp: entry.stamp };
    }
    const loadKey = `${pageKey}\0${version}`;
    const pending = this.loading.get(loadKey) as Promise<Stamped<T> | undefined> | undefined;
    this.stats?.count(kind, pending ? `${dropped}, shared` : dropped!);
    if (pending) return pending;
    const loading = load().then((page) => {
      if (!page) return undefined;
      if (!keep(page)) return { page, stamp: undefined };
      const stored: Entry = { page, version, stamp: `${projectId}@${version}.${++loads}`, ids: new Set(ids(page)), admits };
      const current = this.pages!.get(pageKey);
      if (!current || current.version <= version) this.pages!.set(pageKey, stored);
      return { page, stamp: stored.stamp };
    });
    this.loading.set(loadKey, loading);
    try {
      return await loading;
    } finally {
      this.loading.delete(loadKey);
    }
  }
}
