// A bundle into a new project, written in short slices instead of one long transaction. PGlite runs one statement at a
// time for every tenant, so one transaction for a large bundle held everyone else's requests for its whole length.
// Here the new project is written while it belongs to an account of its own that no key belongs to, so no client sees
// it half written, each slice in a transaction of its own that takes tens of milliseconds; one short transaction then
// hands the finished project to the importing account. An import that fails removes what it wrote, in slices too, and
// what a crashed process left behind is removed by a later import. On PGlite each slice is followed by a pause in which
// the requests that queued behind it run all their statements (Database.yieldStore).
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { newId } from '../../ids.ts';
import { holdProjectName } from '../canon/projects.ts';
import { removeAccountProjects, Slices } from '../canon/slices.ts';
import type { TxClient } from '../canon/canon.ts';
import { recomputeLatestState } from '../canon/storyTime.ts';
import type { GraphOutbox } from '../relationships/outbox.ts';
import { knowingEntities, type CanonBundle } from './bundle.ts';
import { bundleKnowledge, recordKnowledge } from '../knowledge/knowledge.ts';
import type { ImportCounts, ImportResult } from './importer.ts';
import { MentionFinder } from './mentionFinder.ts';
import { recordPromiseLines } from '../promises/ledger.ts';
import { newEntityRows, type BundleEntity, type NewEntityRows } from './newEntities.ts';
import { chapterWordRows } from './chapterWords.ts';
import { mentionHash, mentionRows, sha256, termsOf } from './mentions.ts';
import { insertRows, type Row, type Table } from './rows.ts';

/** The owner of projects being written: accounts of this name hold no keys, and exist only while an import runs. */
export const stagingAccountName = 'lore: import in progress';
/** Staged projects older than this were left by a process that died mid-import. */
const abandonedAfterMs = 60 * 60_000;

const waiting = new Map<string, Promise<unknown>>();
/** Staged imports of one account's project name run one after the other in a process. */
async function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
  const run = (waiting.get(key) ?? Promise.resolve()).then(work);
  const settled = run.catch(() => undefined);
  waiting.set(key, settled);
  try {
    return await run;
  } finally {
    if (waiting.get(key) === settled) waiting.delete(key);
  }
}

// Building the rows of tens of thousands of entities takes a while: the loops give the event loop back every few hundred
// items (a few milliseconds), so the requests of others are not held behind them for 100 ms at a time.
const itemsPerTurn = 500;
async function newRowsInTurns(projectId: string, keyId: string, entities: BundleEntity[], chapterId: (externalId: string | undefined) => string | null): Promise<NewEntityRows> {
  const parts: NewEntityRows[] = [];
  for (let at = 0; at < entities.length; at += itemsPerTurn) {
    await nextTurn();
    parts.push(newEntityRows(projectId, keyId, entities.slice(at, at + itemsPerTurn), chapterId));
  }
  return {
    entities: parts.flatMap((p) => p.entities), candidates: parts.flatMap((p) => p.candidates), decisions: parts.flatMap((p) => p.decisions),
    facts: parts.flatMap((p) => p.facts), values: parts.flatMap((p) => p.values), timed: parts.flatMap((p) => p.timed),
  };
}

const nameTaken = async (db: Pick<TxClient, 'project'>, accountId: string, name: string) =>
  (await db.project.findFirst({ where: { accountId, name }, select: { id: true } })) !== null;

export class StagedImport {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly graphOutbox: GraphOutbox,
    private readonly yieldStore?: (sliceMs: number) => Promise<void>,
  ) {}

  /**
   * Imports `bundle` as a new project of its name, or answers undefined when the account has a project of that name
   * (then the bundle goes into it, as the importer writes into an existing project). `checkReferences` runs before anything is written.
   */
  async importNew(accountId: string, keyId: string, bundle: CanonBundle, chapterSource: string, checkReferences: () => void): Promise<ImportResult | undefined> {
    const name = bundle.project.name;
    return oneAtATime(`${accountId}\u0000${name}`, async () => {
      if (await nameTaken(this.prisma, accountId, name)) return undefined;
      checkReferences();
      const slices = new Slices(this.prisma, this.yieldStore);
      await this.removeAbandoned(slices);
      const stagingAccount = newId('acc');
      const projectId = newId('prj');
      await slices.one((prisma) =>
        prisma.$transaction([
          prisma.account.create({ data: { id: stagingAccount, name: stagingAccountName } }),
          prisma.project.create({ data: { id: projectId, accountId: stagingAccount, name, description: bundle.project.description ?? '' } }),
        ]),
      );
      try {
        const { counts, graphChanged } = await this.write(slices, projectId, keyId, bundle, chapterSource);
        // Another process may have created a project of this name meanwhile: then the bundle goes into that one.
        const live = await slices.one((prisma) =>
          prisma.$transaction(async (tx) => {
            await holdProjectName(tx, accountId, name);
            if (await nameTaken(tx, accountId, name)) return false;
            await tx.project.update({ where: { id: projectId }, data: { accountId } });
            await tx.account.delete({ where: { id: stagingAccount } });
            if (graphChanged) await this.graphOutbox.markForRebuild(tx, projectId);
            return true;
          }),
        );
        if (live) return { projectId, projectCreated: true, changed: true, counts, retiredFactsSkipped: [] };
      } catch (error) {
        await removeAccountProjects(this.prisma, slices, stagingAccount).catch(() => undefined);
        throw error;
      }
      await removeAccountProjects(this.prisma, slices, stagingAccount);
      return undefined;
    });
  }

  /** Writes the whole bundle into the staged project, table by table, parents first. */
  private async write(slices: Slices, projectId: string, keyId: string, bundle: CanonBundle, chapterSource: string): Promise<{ counts: ImportCounts; graphChanged: boolean }> {
    const counts: ImportCounts = {
      entitiesCreated: 0, entitiesUpdated: 0, factsCreated: 0, factsUpdated: 0, relationshipsCreated: 0, relationshipsUpdated: 0,
      chaptersCreated: 0, chaptersUpdated: 0, mentionsRecorded: 0, beatsRecorded: 0,
    };
    const insert = <T extends Table>(table: T, rows: Row<T>[], first?: number) => slices.each(rows, (prisma, part) => insertRows(prisma, table, part), first);

    const chapters = bundle.chapters.map((c) => ({ id: newId('chp'), projectId, externalId: c.id, title: c.title, ordinal: c.ordinal, text: c.text, contentHash: sha256(c.text), source: chapterSource }));
    const chapterId = new Map(chapters.map((c) => [c.externalId, c.id]));
    const rows = await newRowsInTurns(projectId, keyId, bundle.entities, (externalId) => (externalId ? chapterId.get(externalId)! : null));
    const idOf = new Map(rows.entities.map((e) => [e.key, e.id]));
    // Names in id order, as mentions.ts reads them, so the chapters' mention hashes say they are up to date.
    const { terms, namesHash } = termsOf([...rows.entities].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
    const stored = chapters.map((c) => ({ ...c, mentionHash: mentionHash(c, namesHash), wordsHash: c.contentHash }));
    await insert('Chapter', stored, 5);
    counts.chaptersCreated = chapters.length;
    // A chapter's words at a time, as its mentions below: the event loop serves requests in between.
    for (const c of chapters) await insert('ChapterWordBucket', chapterWordRows(projectId, c.id, c.text), 64);

    await insert('Entity', rows.entities);
    counts.entitiesCreated = rows.entities.length;
    await insert('Candidate', rows.candidates);
    await insert('Decision', rows.decisions);
    await insert('Fact', rows.facts);
    counts.factsCreated = rows.facts.length;
    await insert('StateValue', rows.values);
    await slices.each(rows.timed, (prisma, part) => recomputeLatestState(prisma, part));

    // Relationships by their two ends and kind: a repeated one with another weight changes the weight, as in turn.
    const relationships = new Map<string, Row<'Relationship'>>();
    for (const [i, r] of bundle.relationships.entries()) {
      if (i % itemsPerTurn === 0) await nextTurn();
      const fromId = idOf.get(r.from)!;
      const toId = idOf.get(r.to)!;
      const known = relationships.get(`${fromId}|${toId}|${r.kind}`);
      if (!known) relationships.set(`${fromId}|${toId}|${r.kind}`, { id: newId('rel'), projectId, fromId, toId, kind: r.kind, weight: r.weight });
      else if (known.weight !== r.weight) {
        known.weight = r.weight;
        counts.relationshipsUpdated++;
      }
    }
    await insert('Relationship', [...relationships.values()]);
    counts.relationshipsCreated = relationships.size;

    const finder = new MentionFinder(terms);
    for (const [i, c] of chapters.entries()) {
      // One chapter's search at a time: a long chapter takes a while, and the event loop serves requests in between.
      const mentions = mentionRows(projectId, c.id, c.ordinal, finder.find(bundle.chapters[i].text));
      await insert('Mention', mentions, 500);
      counts.mentionsRecorded += mentions.length;
    }

    const beats = bundle.timeline.flatMap((entry) =>
      entry.beats.map((b, position) => ({ id: newId('bt'), projectId, chapterId: chapterId.get(entry.chapter)!, position, summary: b.summary, entityIds: b.entities.map((key) => idOf.get(key)!), source: 'import' })),
    );
    await insert('Beat', beats);
    counts.beatsRecorded = beats.length;
    const promises = bundle.entities.filter((e) => e.promise);
    await slices.eachInTransaction(promises, (tx, part) => recordPromiseLines(tx, projectId, part, (key) => idOf.get(key)!, (c) => chapterId.get(c)!));
    const knowing = knowingEntities(bundle);
    await slices.eachInTransaction(knowing, (tx, part) => recordKnowledge(tx, projectId, bundleKnowledge(part, (key) => idOf.get(key)!, (c) => chapterId.get(c)!)));
    return { counts, graphChanged: rows.entities.length > 0 };
  }

  /** What imports in processes that died left behind. */
  private async removeAbandoned(slices: Slices): Promise<void> {
    const abandoned = await this.prisma.account.findMany({
      where: { name: stagingAccountName, createdAt: { lt: new Date(Date.now() - abandonedAfterMs) } },
      select: { id: true },
    });
    for (const { id } of abandoned) await removeAccountProjects(this.prisma, slices, id);
  }
}
