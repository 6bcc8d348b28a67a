// Recall and search pages, kept in this process under their project's canonVersion, which database triggers raise on
// every change to what those pages show (prisma/migrations/…_hot_paths). A request reads the version (one indexed
// row, which also proves the project is the caller's) and is served from memory while the canon is unchanged; any
// write, from any process, moves the version, so no page outlives the canon it was read from.
import { LRUCache } from 'lru-cache';

export class ReadCache {
  private readonly pages?: LRUCache<string, object>;
  private readonly loading = new Map<string, Promise<object | undefined>>();

  /** `megabytes`: the budget, measured as the pages' JSON length (a page of 100 entities is about 100 kB); 0: off */
  constructor(megabytes: number) {
    this.pages =
      megabytes > 0
        ? new LRUCache({ maxSize: megabytes * 1024 * 1024, sizeCalculation: (page, key) => JSON.stringify(page).length + key.length })
        : undefined;
  }

  get enabled(): boolean {
    return this.pages !== undefined;
  }

  /**
   * The page stored under `key`, or `load`'s answer, stored when it is defined and `keep` accepts it. Requests that miss
   * the same key at the same time share one load: after a write moves the version, the readers of a page wait for one
   * statement instead of each running their own.
   */
  async through<T extends object>(key: string, load: () => Promise<T | undefined>, keep: (page: T) => boolean = () => true): Promise<T | undefined> {
    if (!this.pages) return load();
    const cached = this.pages.get(key) as T | undefined;
    if (cached) return cached;
    const pending = this.loading.get(key) as Promise<T | undefined> | undefined;
    if (pending) return pending;
    const loading = load().then((loaded) => {
      if (loaded && keep(loaded)) this.pages!.set(key, loaded);
      return loaded;
    });
    this.loading.set(key, loading);
    try {
      return await loading;
    } finally {
      this.loading.delete(key);
    }
  }
}
