// Writes that would hold the store too long in one transaction, cut into slices of about a target time each. PGlite
// runs one statement at a time for every tenant, so there a slice is followed by a pause in which the requests that
// queued behind it run (Database.yieldStore).
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { TxClient } from './canon.ts';

/**
 * How long one slice should hold the store: on PGlite, where a slice holds every other tenant's request (and, in the
 * process serving it, the event loop), short enough that a slice slowed a few times over by a busy machine stays well
 * under the 200 ms other requests may take at p99; on PostgreSQL, where others run beside it, longer.
 */
const sharedSliceMs = 20;
const sliceMs = 40;

/** Runs work in slices sized to take about a target time each, yielding the store between them when it is shared (PGlite). */
export class Slices {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly yieldStore?: (sliceMs: number) => Promise<void>,
  ) {
    this.target = yieldStore ? sharedSliceMs : sliceMs;
  }

  private readonly target: number;

  async one<T>(work: (prisma: PrismaClient) => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await work(this.prisma);
    await this.pause(performance.now() - started);
    return result;
  }

  /** Writes `items` a slice at a time; the slice grows (at most by half) or shrinks (at most by half) toward the target. */
  async each<T>(items: T[], write: (prisma: PrismaClient, part: T[]) => Promise<unknown>, first = 100): Promise<void> {
    await this.sized(items, first, async (part) => {
      const started = performance.now();
      await write(this.prisma, part);
      return performance.now() - started;
    });
  }

  /**
   * As `each`, with each slice a transaction of its own, sized by how long the transaction holds the store: on PGlite,
   * the wait for a turn before it begins (while other tenants' statements run) holds no one.
   */
  async eachInTransaction<T>(items: T[], write: (tx: TxClient, part: T[]) => Promise<unknown>, first = 100): Promise<void> {
    await this.sized(items, first, async (part) => {
      let held = 0;
      await this.prisma.$transaction(
        async (tx) => {
          const started = performance.now();
          await write(tx, part);
          held = performance.now() - started;
        },
        { timeout: 300_000, maxWait: 30_000 },
      );
      return held;
    });
  }

  /**
   * `write` writes a part and answers how long it held the store. A slice never shrinks below a quarter of the first:
   * each slice pays a fixed cost (the reads every piece makes) that does not shrink with it, so on a busy machine,
   * slices cut down to one item would each pay it, and a 20,000-item import would take 20,000 slices and their pauses.
   */
  private async sized<T>(items: T[], first: number, write: (part: T[]) => Promise<number>): Promise<void> {
    const least = Math.max(1, Math.ceil(first / 4));
    let size = first;
    for (let at = 0; at < items.length; ) {
      const part = items.slice(at, at + size);
      const held = await write(part);
      at += part.length;
      size = Math.max(least, Math.round(part.length * Math.min(1.5, Math.max(0.5, this.target / Math.max(held, 1)))));
      await this.pause(held);
    }
  }

  /** Deletes with `statement` (deleting at most $2 rows of project $1) until nothing is left. */
  async drain(projectId: string, statement: string): Promise<void> {
    let size = 200;
    for (;;) {
      const started = performance.now();
      const deleted = await this.prisma.$executeRawUnsafe(statement, projectId, size);
      const elapsed = performance.now() - started;
      if (deleted < size) return;
      size = Math.max(1, Math.round(size * Math.min(1.5, Math.max(0.5, this.target / Math.max(elapsed, 1)))));
      await this.pause(elapsed);
    }
  }

  private async pause(elapsed: number) {
    await this.yieldStore?.(elapsed);
  }
}

// A project's rows, children before parents, so that no slice cascades into more rows than it names.
const removals = [
  'DELETE FROM "Mention" WHERE id IN (SELECT id FROM "Mention" WHERE "projectId" = $1 LIMIT $2)',
  'DELETE FROM "Beat" WHERE id IN (SELECT id FROM "Beat" WHERE "projectId" = $1 LIMIT $2)',
  'DELETE FROM "Fact" WHERE id IN (SELECT id FROM "Fact" WHERE "projectId" = $1 LIMIT $2)',
  'DELETE FROM "Candidate" WHERE id IN (SELECT id FROM "Candidate" WHERE "projectId" = $1 LIMIT $2)',
  'DELETE FROM "Conflict" WHERE id IN (SELECT id FROM "Conflict" WHERE "projectId" = $1 LIMIT $2)',
  'DELETE FROM "StateValue" WHERE id IN (SELECT id FROM "StateValue" WHERE "projectId" = $1 LIMIT $2)',
  'DELETE FROM "Relationship" WHERE id IN (SELECT id FROM "Relationship" WHERE "projectId" = $1 LIMIT $2)',
  'DELETE FROM "Entity" WHERE id IN (SELECT id FROM "Entity" WHERE "projectId" = $1 LIMIT $2)',
  'DELETE FROM "ChapterWordBucket" WHERE ("chapterId", bucket) IN (SELECT "chapterId", bucket FROM "ChapterWordBucket" WHERE "projectId" = $1 LIMIT $2)',
  'DELETE FROM "Chapter" WHERE id IN (SELECT id FROM "Chapter" WHERE "projectId" = $1 LIMIT $2)',
  // The change logs hold no foreign key (a write logs before it commits); after the rows above, whose deletions log.
  'DELETE FROM "CanonChange" WHERE id IN (SELECT id FROM "CanonChange" WHERE "projectId" = $1 LIMIT $2)',
  'DELETE FROM "NameChange" WHERE id IN (SELECT id FROM "NameChange" WHERE "projectId" = $1 LIMIT $2)',
];

/** Removes the projects of an account that no key belongs to (a staged import's, a deletion's), then the account, in slices. */
export async function removeAccountProjects(prisma: PrismaClient, slices: Slices, accountId: string): Promise<void> {
  const projects = await prisma.project.findMany({ where: { accountId }, select: { id: true } });
  for (const { id } of projects) {
    for (const statement of removals) await slices.drain(id, statement);
    await slices.one((db) => db.project.deleteMany({ where: { id } }));
  }
  await slices.one((db) => db.account.deleteMany({ where: { id: accountId } }));
}
