// Entity cards: each entity as a search page shows it (its row, latest mentions, pending conflicts and live facts),
// kept in this process with the canon version of its project it was read at. The page's statement then ranks alone
// and reads the version beside the ids: a card still stands when no change logged since (canonChanges.ts, written by
// the canon tables' triggers in the writing transaction, by whichever process wrote) touched its entity, so a write
// shows in the next search on every gateway. Reading the cards cost the database a third of the ranking's time and
// the gateway most of its own (the rows' JSON parsed again on every page).
import { LRUCache } from 'lru-cache';
import type { CanonChanges } from './canonChanges.ts';
import type { EntityRecord } from './entities.ts';

type Card = { projectId: string; version: number; record: EntityRecord };

/** Cards of entities read at one canon version of their project (in the statement that read them). */
export type ReadCards = { version: number; records: EntityRecord[] };

/** A bound on memory, not a setting: a card is about 1 kB, a few tens with facts of their own. */
const budgetBytes = 32 * 1024 * 1024;

export class EntityCards {
  private readonly cards = new LRUCache<string, Card>({
    maxSize: budgetBytes,
    sizeCalculation: (card) => JSON.stringify(card.record).length + 100,
  });

  constructor(private readonly changes: CanonChanges) {}

  /**
   * The cards of `ids` (in their order) as they stand at `version` of the project, those not kept read by `read`;
   * undefined when `read` answered at another version (a write came in between: the caller reads the page in one
   * statement instead). An id `read` does not find is left out, as a join would leave it out.
   */
  async at(
    projectId: string,
    version: number,
    ids: readonly string[],
    read: (ids: string[]) => Promise<ReadCards | undefined>,
  ): Promise<EntityRecord[] | undefined> {
    const found = new Map<string, EntityRecord>();
    const stale: Card[] = [];
    for (const id of ids) {
      const card = this.cards.get(id);
      if (!card || card.projectId !== projectId) continue;
      if (card.version >= version) found.set(id, card.record);
      else stale.push(card);
    }
    if (stale.length > 0) {
      const from = Math.min(...stale.map((card) => card.version));
      const touched = await this.changes.touched(projectId, from, version, stale.map((card) => card.record.id));
      for (const card of stale) {
        if (touched.has(card.record.id)) continue;
        card.version = version;
        found.set(card.record.id, card.record);
      }
    }
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0) {
      const fresh = await read(missing);
      if (!fresh || fresh.version !== version) return undefined;
      for (const record of fresh.records) {
        found.set(record.id, record);
        this.cards.set(record.id, { projectId, version, record });
      }
    }
    return ids.flatMap((id) => found.get(id) ?? []);
  }
}
