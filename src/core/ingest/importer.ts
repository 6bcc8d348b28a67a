// Imports a canon bundle: idempotent by entity key and chapter id, so importing the same bundle twice changes nothing;
// a bundle with any error is rejected whole with the paths of its errors, before anything is written. A new project is
// written in short slices and appears whole (stagedImport.ts). Into an existing project, in one transaction; except a
// large bundle on the embedded store, where one transaction would hold every tenant's requests for its length: that is
// written in pieces, each a transaction of its own (chapters, then entities with their facts and state, relationships,
// beats, and last the mentions a chapter at a time), so others see it land piece by piece, each entity whole; merging
// by key makes a piecewise import end as the whole one would, and an import that a crash cut short is completed by
// running it again. The entities the project does not have yet need no merge: their rows are built from the bundle
// alone and written in few statements (newEntities.ts), so a slice of the same length holds several times as many.
import { Prisma, type PrismaClient } from '../../generated/prisma/client.ts';
import { newId } from '../../ids.ts';
import { bundleFactOf, knowerKeys, knowingEntities, parseBundle, type CanonBundle } from './bundle.ts';
import { recordPromiseLines } from '../promises/ledger.ts';
import { bundleKnowledge, recordKnowledge } from '../knowledge/knowledge.ts';
import { holdProject, nameText, refreshSearchText, type TxClient } from '../canon/canon.ts';
import { holdProjectName, newProjectRefused } from '../canon/projects.ts';
import { recomputeLatestState, spanErrors } from '../canon/storyTime.ts';
import { LoreError } from '../errors.ts';
import type { GraphEdgeChange, GraphNodeChange, GraphOutbox } from '../relationships/outbox.ts';
import { stableStringify } from '../json.ts';
import { recordChapterMentions, recordStaleMentions, sha256 } from './mentions.ts';
import { insertNewEntities, newEntityRows } from './newEntities.ts';
import { chunk, insertRows, rowsPerInsert, type Row } from './rows.ts';
import { Slices } from '../canon/slices.ts';
import { StagedImport } from './stagedImport.ts';
import { invalid, type FieldError } from '../validation.ts';

export type ImportCounts = {
  entitiesCreated: number;
  entitiesUpdated: number;
  factsCreated: number;
  /** live facts whose story time (from, until) the bundle changed */
  factsUpdated: number;
  relationshipsCreated: number;
  relationshipsUpdated: number;
  chaptersCreated: number;
  chaptersUpdated: number;
  mentionsRecorded: number;
  beatsRecorded: number;
};
/** A bundle fact left out because the project retired it since (a retcon or a retirement): history is not undone. */
export type SkippedRetiredFact = { entity: string; text: string; retiredFactId: string; retiredAt: Date; replacedBy: { id: string; text: string } | null };
export type ImportResult = { projectId: string; projectCreated: boolean; changed: boolean; counts: ImportCounts; retiredFactsSkipped: SkippedRetiredFact[] };

/** How an import treats what the project has. */
export type ImportHow = {
  /** recorded on the chapters it creates (Chapter.source): "bundle" unless a manuscript says which */
  chapterSource: string;
  /** existing chapters it writes become its own (a manuscript takes on the chapters of its ids) */
  claimChapters: boolean;
  /** ordinals for chapters the bundle does not hold, moved in the same transaction (a manuscript placed among others) */
  place: { externalId: string; ordinal: number }[];
  /** write again a fact the project retired since, instead of skipping it */
  reinstateRetired: boolean;
};
const defaultHow: ImportHow = { chapterSource: 'bundle', claimChapters: false, place: [], reinstateRetired: false };

const sameJson = (a: unknown, b: unknown) => stableStringify(a) === stableStringify(b);

type TimedRow = { key: string; value: unknown; fromChapterId: string | null; fromLine: number | null; fromAnchor: string | null; untilChapterId: string | null };
/**
 * Timed values in an order that keeps only what decides the state: values of one key starting at one chapter keep
 * theirs (the later wins a tie), the rest is sorted, so the same values listed in another order (as an export groups
 * them) are not a change.
 */
const meaningOf = (rows: TimedRow[]) => {
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...rows].sort((a, b) => order(a.key, b.key) || order(a.fromChapterId ?? '', b.fromChapterId ?? ''));
};

export const noCounts = (): ImportCounts => ({
  entitiesCreated: 0, entitiesUpdated: 0, factsCreated: 0, factsUpdated: 0, relationshipsCreated: 0, relationshipsUpdated: 0,
  chaptersCreated: 0, chaptersUpdated: 0, mentionsRecorded: 0, beatsRecorded: 0,
});

/**
 * About how many rows a bundle writes into a project; above `largeImportRows`, an import into an existing project on
 * the embedded store goes in pieces, as one transaction of it would hold the store past 200 ms. `known`: the entity keys
 * and unchanged chapters the project has, which cost a read but no write (a re-import, or a sync of one edited chapter,
 * stays one short transaction).
 */
const rowsOf = (bundle: CanonBundle, known?: { keys: Set<string>; chapters: Set<string> }) => {
  const isNew = (key: string) => !known?.keys.has(key);
  const fresh = known ? bundle.chapters.filter((c) => !known.chapters.has(`${c.id}\u0000${sha256(c.text)}\u0000${c.ordinal}\u0000${c.title}`)) : bundle.chapters;
  const freshIds = new Set(fresh.map((c) => c.id));
  return (
    bundle.entities.reduce((n, e) => n + (isNew(e.key) ? 1 + 3 * e.facts.length + (e.stateChanges?.length ?? 0) : 0), 0) +
    bundle.relationships.filter((r) => isNew(r.from) || isNew(r.to)).length +
    bundle.timeline.reduce((n, t) => n + (freshIds.has(t.chapter) ? t.beats.length : 0), 0) +
    50 * fresh.length
  );
};
const largeImportRows = 2_000;

/** The ordinal each chapter is to have: the bundle's chapters', and those `how` moves. */
const wantedOrdinals = (bundle: CanonBundle, how: ImportHow) =>
  new Map([...how.place.map((p) => [p.externalId, p.ordinal] as const), ...bundle.chapters.map((c) => [c.id, c.ordinal] as const)]);

/** Every chapter id the project will have after the import, with its ordinal. */
const finalOrdinals = (bundle: CanonBundle, stored: { externalId: string; ordinal: number }[], how: ImportHow) =>
  new Map([...stored.map((c) => [c.externalId, c.ordinal] as const), ...wantedOrdinals(bundle, how)]);

/**
 * Moves the project's chapters (`stored`, updated in place) to the ordinals `wanted` gives them, after checking that no
 * two chapters would share one (400 invalid_bundle, naming both). A unique index is checked row by row, so chapters
 * trading places pass through negative ordinals, which no chapter has. Answers the chapters that moved.
 */
async function placeChapters<C extends { id: string; externalId: string; ordinal: number }>(tx: TxClient, stored: C[], wanted: Map<string, number>): Promise<C[]> {
  const holder = new Map<number, string>();
  const errors: FieldError[] = [];
  const final = new Map([...stored.map((c) => [c.externalId, c.ordinal] as const), ...wanted]);
  for (const [chapter, ordinal] of final) {
    const other = holder.get(ordinal);
    if (other !== undefined) errors.push({ path: 'chapters', message: `chapters ${other} and ${chapter} would both have ordinal ${ordinal}; each place in the reading order holds one chapter` });
    holder.set(ordinal, chapter);
  }
  if (errors.length > 0) throw new LoreError('invalid_bundle', errors.slice(0, 5).map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
  const moved = stored.filter((c) => final.get(c.externalId) !== c.ordinal);
  if (moved.length === 0) return moved;
  for (const part of chunk(moved, rowsPerInsert)) {
    await tx.$executeRaw`
      UPDATE "Chapter" c SET ordinal = -1 - x.ordinal FROM unnest(${part.map((c) => c.id)}::text[], ${part.map((c) => final.get(c.externalId)!)}::int[]) AS x(id, ordinal)
      WHERE c.id = x.id`;
  }
  for (const part of chunk(moved, rowsPerInsert)) await tx.$executeRaw`UPDATE "Chapter" SET ordinal = -1 - ordinal WHERE id = ANY(${part.map((c) => c.id)}::text[])`;
  for (const c of moved) c.ordinal = final.get(c.externalId)!;
  return moved;
}

type RetiredFact = { id: string; retiredAt: Date; replacedBy: { id: string; text: string } | null };
/**
 * The bundle's facts that the project retired since (by entity and text) and has no live fact of: a re-import of an
 * older bundle would otherwise write them again. The newest retirement of a text names the retcon that replaced it.
 */
async function retiredFacts(
  tx: TxClient,
  projectId: string,
  bundle: CanonBundle,
  entityIds: string[],
  idOf: (key: string) => string,
  live: Map<string, unknown>,
): Promise<Map<string, RetiredFact>> {
  const had = new Set(entityIds);
  const texts = new Set<string>();
  for (const e of bundle.entities) {
    if (!had.has(idOf(e.key))) continue;
    for (const item of e.facts) {
      const text = typeof item === 'string' ? item : item.text;
      if (!live.has(`${idOf(e.key)}\u0000${text}`)) texts.add(text);
    }
  }
  const found = new Map<string, RetiredFact>();
  if (texts.size === 0) return found;
  const rows = await tx.fact.findMany({
    where: { projectId, entityId: { in: entityIds }, text: { in: [...texts] }, retiredAt: { not: null } },
    select: { id: true, entityId: true, text: true, retiredAt: true, replacedById: true },
    orderBy: [{ retiredAt: 'asc' }, { id: 'asc' }],
  });
  const replacements = await tx.fact.findMany({ where: { id: { in: rows.flatMap((r) => (r.replacedById ? [r.replacedById] : [])) } }, select: { id: true, text: true } });
  const replacement = new Map(replacements.map((r) => [r.id, r]));
  for (const r of rows) found.set(`${r.entityId}\u0000${r.text}`, { id: r.id, retiredAt: r.retiredAt!, replacedBy: (r.replacedById && replacement.get(r.replacedById)) || null });
  return found;
}

/** Which of `keys` the project's entities have. One array parameter, however many keys. */
async function keysIn(db: Pick<TxClient, '$queryRaw'>, projectId: string, keys: string[]): Promise<Set<string>> {
  const found = await db.$queryRaw<{ key: string }[]>`SELECT key FROM "Entity" WHERE "projectId" = ${projectId} AND key = ANY(${keys}::text[])`;
  return new Set(found.map((e) => e.key));
}

/** A bundle's piece: the project part of `bundle`, with `part` of its lists. */
const pieceOf = (bundle: CanonBundle, part: Partial<Pick<CanonBundle, 'entities' | 'chapters' | 'relationships' | 'timeline'>>): CanonBundle => ({
  ...bundle, entities: [], chapters: [], relationships: [], timeline: [], ...part,
});

/**
 * `scoped`: read only the rows of the project that the bundle names (its entities and the entities it refers to), as a
 * piece of a large import does, instead of every row of the project; `mentions`: re-record stale chapters' mentions.
 */
type WriteOptions = { scoped: boolean; mentions: boolean };

/** Names are unique per account since projects are created through one check; older accounts may hold two. */
function sameNamedProjects(named: { id: string }[], name: string): LoreError {
  const message = `${named.length} projects of this account are named "${name}" (${named.map((p) => p.id).join(', ')}); choose one with projectId (lore import --project)`;
  return new LoreError('name_taken', `project.name: ${message}.`, { errors: [{ path: 'project.name', message }] });
}

export class Importer {
  private readonly staged: StagedImport;

  /** `yieldStore`: on PGlite, where every tenant's statements run one at a time, a large import yields between slices. */
  constructor(
    private readonly prisma: PrismaClient,
    private readonly graphOutbox: GraphOutbox,
    private readonly yieldStore?: (sliceMs: number) => Promise<void>,
  ) {
    this.staged = new StagedImport(prisma, graphOutbox, yieldStore);
  }

  /**
   * `projectId` absent: the account's project of the bundle's name, created if there is none and `mayCreateProject`
   * (the key has newProjectScope); without it, a bundle naming no existing project is refused before anything is read.
   */
  async import(input: { accountId: string; principalKeyId: string; bundle: unknown; projectId?: string; mayCreateProject: boolean; how?: Partial<ImportHow> }): Promise<ImportResult> {
    const parsed = await parseBundle(input.bundle);
    if (!parsed.success) throw invalid(parsed.error, 'invalid_bundle');
    const bundle = parsed.data;
    const how = { ...defaultHow, ...input.how };
    // Named by its id from here on, the project cannot be created further down.
    if (!input.projectId && !input.mayCreateProject) input = { ...input, projectId: await this.existingProject(input.accountId, bundle.project.name) };
    // A bundle for a new project is written in short slices (stagedImport.ts); into an existing project, in one
    // transaction, unless it is large and the store is shared.
    if (!input.projectId) {
      const ordinals = new Map(bundle.chapters.map((c) => [c.id, c.ordinal] as const));
      const created = await this.staged.importNew(input.accountId, input.principalKeyId, bundle, how.chapterSource, () =>
        this.checkReferences(bundle, new Set(bundle.entities.map((e) => e.key)), ordinals),
      );
      if (created) return created;
    }
    if (this.yieldStore && rowsOf(bundle) > largeImportRows && (await this.isLargeChange(input.accountId, bundle, input.projectId))) {
      return this.importInPieces(input.accountId, input.principalKeyId, bundle, how, input.projectId);
    }
    return this.prisma.$transaction((tx) => this.write(tx, input.accountId, input.principalKeyId, bundle, how, input.projectId), {
      timeout: 300_000,
      maxWait: 30_000,
    });
  }

  /** A large bundle into an existing project, in pieces of about one slice each (see the top of this file). */
  private async importInPieces(accountId: string, keyId: string, bundle: CanonBundle, how: ImportHow, projectId?: string): Promise<ImportResult> {
    const slices = new Slices(this.prisma, this.yieldStore);
    const counts = noCounts();
    let changed = false;
    const retiredFactsSkipped: SkippedRetiredFact[] = [];
    const add = (result: ImportResult) => {
      for (const field of Object.keys(counts) as (keyof ImportCounts)[]) counts[field] += result.counts[field];
      changed ||= result.changed;
      retiredFactsSkipped.push(...result.retiredFactsSkipped);
      return result;
    };
    const options: WriteOptions = { scoped: true, mentions: false };

    // The project (found by id or name, its description), and the whole bundle's references checked before any write;
    // the chapters it has are put at their new places at once, so no piece finds another chapter on its ordinal.
    const first = add(
      await slices.one((prisma) =>
        prisma.$transaction(async (tx) => {
          const result = await this.write(tx, accountId, keyId, pieceOf(bundle, {}), how, projectId, options);
          await this.checkWholeBundle(tx, result.projectId, bundle, how);
          const stored = await tx.chapter.findMany({ where: { projectId: result.projectId }, select: { id: true, externalId: true, ordinal: true, contentHash: true, title: true } });
          const moved = await placeChapters(tx, stored, wantedOrdinals(bundle, how));
          result.changed ||= moved.length > 0;
          // The latest state depends on the order of the chapters its timed values start at.
          if (moved.length > 0) {
            const timed = await tx.stateValue.findMany({ where: { projectId: result.projectId }, select: { entityId: true }, distinct: ['entityId'] });
            await recomputeLatestState(tx, timed.map((v) => v.entityId));
          }
          // A moved chapter whose text and title stay is counted here; its piece finds nothing left to write.
          const inBundle = new Map(bundle.chapters.map((c) => [c.id, c]));
          result.counts.chaptersUpdated += moved.filter((c) => {
            const wanted = inBundle.get(c.externalId);
            return wanted && wanted.title === c.title && sha256(wanted.text) === c.contentHash;
          }).length;
          return result;
        }),
      ),
    );
    const target = first.projectId;
    const piece = (tx: TxClient, part: Parameters<typeof pieceOf>[1]) => this.write(tx, accountId, keyId, pieceOf(bundle, part), how, target, options).then(add);
    await slices.eachInTransaction(bundle.chapters, (tx, chapters) => piece(tx, { chapters }), 5);
    // Entities the project has are merged piece by piece; those it has not are written from the bundle alone, with no
    // read of the project's rows, in slices of many more entities for the same time.
    const had = await keysIn(this.prisma, target, bundle.entities.map((e) => e.key));
    await slices.eachInTransaction(bundle.entities.filter((e) => had.has(e.key)), (tx, entities) => piece(tx, { entities }), 50);
    await slices.eachInTransaction(
      bundle.entities.filter((e) => !had.has(e.key)),
      (tx, entities) => this.writeNewEntities(tx, accountId, keyId, bundle, entities, how, target, options).then(add),
    );
    await slices.eachInTransaction(bundle.relationships, (tx, relationships) => piece(tx, { relationships }), 200);
    await slices.eachInTransaction(bundle.timeline, (tx, timeline) => piece(tx, { timeline }), 20);
    const promises = bundle.entities.filter((e) => e.promise);
    const knowing = knowingEntities(bundle);
    if (promises.length > 0 || knowing.length > 0) {
      await slices.one((prisma) =>
        prisma.$transaction(async (tx) => {
          const keys = [...new Set([...promises.flatMap((e) => [e.key, ...e.promise!.involves]), ...knowing.map((e) => e.key), ...knowerKeys(bundle)])];
          const ids = new Map((await tx.entity.findMany({ where: { projectId: target, key: { in: keys } }, select: { id: true, key: true } })).map((e) => [e.key, e.id]));
          const chapterIds = new Map((await tx.chapter.findMany({ where: { projectId: target }, select: { id: true, externalId: true } })).map((c) => [c.externalId, c.id]));
          await recordPromiseLines(tx, target, promises, (k) => ids.get(k)!, (c) => chapterIds.get(c)!);
          await recordKnowledge(tx, target, bundleKnowledge(knowing, (k) => ids.get(k)!, (c) => chapterIds.get(c)!));
        }),
      );
    }
    const mentions = await recordStaleMentions(this.prisma, target, slices);
    counts.mentionsRecorded += mentions;
    changed ||= mentions > 0;
    return { projectId: target, projectCreated: first.projectCreated, changed, counts, retiredFactsSkipped };
  }

  /**
   * A slice of a large import's entities that the project did not have when the import began. Another writer may have
   * created some of their keys since, or removed a chapter their spans name: then the slice is merged as any piece is.
   */
  private async writeNewEntities(
    tx: TxClient,
    accountId: string,
    keyId: string,
    bundle: CanonBundle,
    entities: CanonBundle['entities'],
    how: ImportHow,
    projectId: string,
    options: WriteOptions,
  ): Promise<ImportResult> {
    await holdProject(tx, projectId);
    const spans = new Set(
      entities.flatMap((e) => [
        ...e.facts.flatMap((item) => (typeof item === 'string' ? [] : [item.from, item.until])),
        ...(e.stateChanges ?? []).flatMap((change) => [change.from, change.until]),
      ]).filter((id) => id !== undefined),
    );
    const chapters = spans.size === 0 ? [] : await tx.chapter.findMany({ where: { projectId, externalId: { in: [...spans] } }, select: { id: true, externalId: true } });
    const taken = await keysIn(tx, projectId, entities.map((e) => e.key));
    if (taken.size > 0 || chapters.length < spans.size) return this.write(tx, accountId, keyId, pieceOf(bundle, { entities }), how, projectId, options);

    const chapterId = new Map(chapters.map((c) => [c.externalId, c.id]));
    const rows = newEntityRows(projectId, keyId, entities, (externalId) => (externalId ? chapterId.get(externalId)! : null));
    await insertNewEntities(tx, rows);
    await this.graphOutbox.record(tx, projectId, { nodes: rows.entities.map((e) => ({ id: e.id, label: e.name, type: e.type })), edges: [] });
    await tx.project.update({ where: { id: projectId }, data: { updatedAt: new Date() } });
    const counts = { ...noCounts(), entitiesCreated: rows.entities.length, factsCreated: rows.facts.length };
    return { projectId, projectCreated: false, changed: true, counts, retiredFactsSkipped: [] };
  }

  /** Whether the bundle writes more than `largeImportRows` into the project it goes into, judged on what the project has. */
  private async isLargeChange(accountId: string, bundle: CanonBundle, projectId?: string): Promise<boolean> {
    const project = await this.prisma.project.findFirst({ where: { accountId, ...(projectId ? { id: projectId } : { name: bundle.project.name }) }, select: { id: true } });
    // None: the write fails or creates it, in its first short piece.
    if (!project) return true;
    const keys = await keysIn(this.prisma, project.id, bundle.entities.map((e) => e.key));
    const chapters = await this.prisma.chapter.findMany({ where: { projectId: project.id }, select: { externalId: true, contentHash: true, ordinal: true, title: true } });
    const known = {
      keys,
      chapters: new Set(chapters.map((c) => `${c.externalId}\u0000${c.contentHash}\u0000${c.ordinal}\u0000${c.title}`)),
    };
    return rowsOf(bundle, known) > largeImportRows;
  }

  /** Checks the references of the whole bundle against the project's chapters and the entities it names. */
  private async checkWholeBundle(tx: TxClient, projectId: string, bundle: CanonBundle, how: ImportHow) {
    const own = new Set(bundle.entities.map((e) => e.key));
    const named = [
      ...new Set([
        ...bundle.relationships.flatMap((r) => [r.from, r.to]), ...bundle.timeline.flatMap((t) => t.beats.flatMap((b) => b.entities)),
        ...bundle.entities.flatMap((e) => e.promise?.involves ?? []), ...knowerKeys(bundle),
      ]),
    ];
    const known = await keysIn(tx, projectId, named.filter((key) => !own.has(key)));
    const chapters = await tx.chapter.findMany({ where: { projectId }, select: { externalId: true, ordinal: true } });
    this.checkReferences(bundle, new Set([...known, ...own]), finalOrdinals(bundle, chapters, how));
  }

  private async write(
    tx: TxClient,
    accountId: string,
    keyId: string,
    bundle: CanonBundle,
    how: ImportHow,
    projectId?: string,
    options: WriteOptions = { scoped: false, mentions: true },
  ): Promise<ImportResult> {
    const counts = noCounts();
    const project = await this.resolveProject(tx, accountId, bundle, projectId);
    const scope = <T extends object>(filter: () => T) => (options.scoped ? filter() : {});

    // Entities, matched by key.
    const referenced = () => [
      ...new Set([
        ...bundle.entities.map((e) => e.key), ...bundle.relationships.flatMap((r) => [r.from, r.to]), ...bundle.timeline.flatMap((t) => t.beats.flatMap((b) => b.entities)),
        ...bundle.entities.flatMap((e) => e.promise?.involves ?? []), ...knowerKeys(bundle),
      ]),
    ];
    const existing = await tx.entity.findMany({ where: { projectId: project.id, ...scope(() => ({ key: { in: referenced() } })) } });
    const byKey = new Map(existing.map((e) => [e.key, e]));
    const chapters = await tx.chapter.findMany({ where: { projectId: project.id }, select: { id: true, externalId: true, contentHash: true, title: true, ordinal: true, source: true } });
    // Story time is judged on the chapters as they will stand after this import: the bundle's ordinals win.
    this.checkReferences(bundle, new Set([...byKey.keys(), ...bundle.entities.map((e) => e.key)]), finalOrdinals(bundle, chapters, how));

    const touched = new Set<string>();
    // entities whose latest state (Entity.state) may have to be derived again
    const restate = new Set<string>();
    const creates: Prisma.EntityCreateManyInput[] = [];
    const renamed: GraphNodeChange[] = [];
    for (const e of bundle.entities) {
      const current = byKey.get(e.key);
      const fields = {
        type: e.type, name: e.name, aliases: e.aliases, baseState: e.state as Prisma.InputJsonValue, status: e.status,
        confidence: e.confidence ?? null, nameText: nameText(e.name, e.aliases),
      };
      if (!current) {
        const id = newId('ent');
        creates.push({ id, projectId: project.id, key: e.key, ...fields, state: fields.baseState, searchText: fields.nameText });
        byKey.set(e.key, { ...fields, id, key: e.key } as (typeof existing)[number]);
        touched.add(id);
        if (e.stateChanges?.length) restate.add(id);
      } else if (
        current.type !== fields.type || current.name !== fields.name || !sameJson(current.aliases, fields.aliases) ||
        !sameJson(current.baseState, fields.baseState) || current.status !== fields.status || current.confidence !== fields.confidence
      ) {
        await tx.entity.update({ where: { id: current.id }, data: { ...fields, version: { increment: 1 } } });
        if (current.name !== fields.name || current.type !== fields.type) renamed.push({ id: current.id, label: fields.name, type: fields.type });
        touched.add(current.id);
        restate.add(current.id);
        counts.entitiesUpdated++;
      }
    }
    for (const part of chunk(creates, rowsPerInsert)) await insertRows(tx, 'Entity', part);
    counts.entitiesCreated = creates.length;
    const idOf = (key: string) => byKey.get(key)!.id;

    // Chapters, matched by id: written before the facts and state values whose spans point at them. The ones the
    // project has go to their new places first, so a new chapter never lands on an ordinal that is still taken.
    const ordinalBefore = new Map(chapters.map((c) => [c.id, c.ordinal]));
    const reordered = (await placeChapters(tx, chapters, wantedOrdinals(bundle, how))).length > 0;
    const chapterByExternal = new Map(chapters.map((c) => [c.externalId, c]));
    for (const c of bundle.chapters) {
      const contentHash = sha256(c.text);
      const current = chapterByExternal.get(c.id);
      if (!current) {
        const row = { id: newId('chp'), projectId: project.id, externalId: c.id, title: c.title, ordinal: c.ordinal, text: c.text, contentHash, source: how.chapterSource };
        await tx.chapter.create({ data: row });
        chapterByExternal.set(c.id, row);
        counts.chaptersCreated++;
        continue;
      }
      const source = how.claimChapters ? how.chapterSource : current.source;
      if (current.contentHash !== contentHash || current.title !== c.title || current.source !== source) {
        await tx.chapter.update({ where: { id: current.id }, data: { title: c.title, text: c.text, contentHash, source } });
      }
      if (current.contentHash !== contentHash || current.title !== c.title || ordinalBefore.get(current.id) !== c.ordinal) counts.chaptersUpdated++;
    }
    const chapterId = (externalId: string | undefined) => (externalId ? chapterByExternal.get(externalId)!.id : null);

    // Facts, matched by text; approved ones carry their provenance (candidate and decision by the importing key). A
    // known text keeps its row and status; only its story time follows the bundle.
    // Facts of the bundle's entities that were there before; a piece of new entities has none to read.
    const own = new Set(bundle.entities.map((e) => e.key));
    const before = existing.filter((e) => own.has(e.key)).map((e) => e.id);
    const live = options.scoped && before.length === 0 ? [] : await tx.fact.findMany({
      where: { projectId: project.id, retiredAt: null, ...scope(() => ({ entityId: { in: before } })) },
      select: { id: true, entityId: true, text: true, fromChapterId: true, untilChapterId: true },
    });
    const knownFacts = new Map(live.map((f) => [`${f.entityId}\u0000${f.text}`, f]));
    const retired = how.reinstateRetired ? new Map() : await retiredFacts(tx, project.id, bundle, before, idOf, knownFacts);
    const retiredFactsSkipped: SkippedRetiredFact[] = [];
    const facts: Prisma.FactCreateManyInput[] = [];
    const candidates: Prisma.CandidateCreateManyInput[] = [];
    const decisions: Prisma.DecisionCreateManyInput[] = [];
    const respanned: { id: string; fromChapterId: string | null; untilChapterId: string | null }[] = [];
    for (const e of bundle.entities) {
      const entityId = idOf(e.key);
      for (const item of e.facts) {
        const { text, from, until, status } = bundleFactOf(item, e.status);
        const span = { fromChapterId: chapterId(from), untilChapterId: chapterId(until) };
        const known = knownFacts.get(`${entityId}\u0000${text}`);
        if (known) {
          if (known.fromChapterId !== span.fromChapterId || known.untilChapterId !== span.untilChapterId) {
            respanned.push({ id: known.id, ...span });
            Object.assign(known, span);
          }
          continue;
        }
        const gone = retired.get(`${entityId}\u0000${text}`);
        if (gone) {
          retiredFactsSkipped.push({ entity: e.key, text, retiredFactId: gone.id, retiredAt: gone.retiredAt, replacedBy: gone.replacedBy });
          continue;
        }
        const id = newId('fct');
        const candidateId = newId('cnd');
        candidates.push({ id: candidateId, projectId: project.id, entityId, fact: text, source: 'import', proposedBy: keyId, status: status === 'approved' ? 'approved' : 'pending' });
        if (status === 'approved') decisions.push({ id: newId('dec'), candidateId, status: 'approved', decidedBy: keyId });
        facts.push({ id, projectId: project.id, entityId, text, status, source: 'import', candidateId, createdBy: keyId, ...span });
        knownFacts.set(`${entityId}\u0000${text}`, { id, entityId, text, ...span });
        touched.add(entityId);
      }
    }
    for (const part of chunk(candidates, rowsPerInsert)) await insertRows(tx, 'Candidate', part);
    for (const part of chunk(decisions, rowsPerInsert)) await insertRows(tx, 'Decision', part);
    for (const part of chunk(facts, rowsPerInsert)) await insertRows(tx, 'Fact', part);
    for (const part of chunk(respanned, rowsPerInsert)) {
      await tx.$executeRaw`
        UPDATE "Fact" f SET "fromChapterId" = x.from_id, "untilChapterId" = x.until_id
        FROM unnest(${part.map((f) => f.id)}::text[], ${part.map((f) => f.fromChapterId)}::text[], ${part.map((f) => f.untilChapterId)}::text[]) AS x(id, from_id, until_id)
        WHERE f.id = x.id`;
    }
    counts.factsCreated = facts.length;
    counts.factsUpdated = respanned.length;
    await refreshSearchText(tx, [...touched]);

    // Timed state values: an entity that lists stateChanges has exactly those, replaced only when they differ.
    const retimed = await this.recordStateChanges(tx, project.id, bundle, idOf, chapterId, options.scoped);
    const newIds = new Set(creates.map((e) => e.id));
    const retimedExisting = retimed.filter((id) => !newIds.has(id) && !restate.has(id));
    for (const part of chunk(retimedExisting, rowsPerInsert)) await tx.entity.updateMany({ where: { id: { in: part } }, data: { version: { increment: 1 } } });
    counts.entitiesUpdated += retimedExisting.length;
    for (const id of retimed) restate.add(id);
    // The latest state depends on the order of the chapters its timed values start at.
    if (reordered) {
      for (const { entityId } of await tx.stateValue.findMany({ where: { projectId: project.id }, select: { entityId: true }, distinct: ['entityId'] })) restate.add(entityId);
    }
    await recomputeLatestState(tx, [...restate]);

    // Relationships, matched by their two ends and kind.
    const relationships = options.scoped && bundle.relationships.length === 0 ? [] : await tx.relationship.findMany({
      where: { projectId: project.id, ...scope(() => ({ fromId: { in: [...new Set(bundle.relationships.map((r) => idOf(r.from)))] } })) },
    });
    const relByKey = new Map(relationships.map((r) => [`${r.fromId}|${r.toId}|${r.kind}`, r]));
    const newRelationships: Prisma.RelationshipCreateManyInput[] = [];
    const reweighted: GraphEdgeChange[] = [];
    for (const r of bundle.relationships) {
      const fromId = idOf(r.from);
      const toId = idOf(r.to);
      const current = relByKey.get(`${fromId}|${toId}|${r.kind}`);
      if (!current) {
        const row = { id: newId('rel'), projectId: project.id, fromId, toId, kind: r.kind, weight: r.weight };
        newRelationships.push(row);
        relByKey.set(`${fromId}|${toId}|${r.kind}`, row as (typeof relationships)[number]);
      } else if (current.weight !== r.weight) {
        await tx.relationship.update({ where: { id: current.id }, data: { weight: r.weight } });
        reweighted.push({ id: current.id, from: fromId, to: toId, kind: r.kind, weight: r.weight });
        counts.relationshipsUpdated++;
      }
    }
    for (const part of chunk(newRelationships, rowsPerInsert)) await insertRows(tx, 'Relationship', part);
    counts.relationshipsCreated = newRelationships.length;
    // The graph's share of this import, for Neo4j, committed or rolled back with it.
    await this.graphOutbox.record(tx, project.id, {
      nodes: [...creates.map((e) => ({ id: e.id!, label: e.name, type: e.type })), ...renamed],
      edges: [...newRelationships.map((r) => ({ id: r.id!, from: r.fromId, to: r.toId, kind: r.kind, weight: r.weight ?? 1 })), ...reweighted],
    });

    if (options.mentions) counts.mentionsRecorded = await recordChapterMentions(tx, project.id);
    counts.beatsRecorded = await this.recordBeats(tx, project.id, bundle, idOf, chapterByExternal);
    // A large import's pieces may hold a promise without the entities it involves: its lines are written at the end.
    if (!options.scoped) {
      await recordPromiseLines(tx, project.id, bundle.entities, idOf, (c) => chapterByExternal.get(c)!.id);
      await recordKnowledge(tx, project.id, bundleKnowledge(knowingEntities(bundle), idOf, (c) => chapterByExternal.get(c)!.id));
    }

    const changed = project.created || Object.values(counts).some((n) => n > 0) || project.descriptionChanged || reordered;
    if (changed) await tx.project.update({ where: { id: project.id }, data: { updatedAt: new Date() } });
    return { projectId: project.id, projectCreated: project.created, changed, counts, retiredFactsSkipped };
  }

  /**
   * The target project, held for this transaction: imports into one project run one after the other, so each sees what
   * the one before it wrote, and two racing imports of a new bundle create one project, not two.
   */
  /** The account's one project named `name`; none: the key may not create it. */
  private async existingProject(accountId: string, name: string): Promise<string> {
    const named = await this.prisma.project.findMany({ where: { accountId, name }, select: { id: true }, orderBy: { id: 'asc' }, take: 10 });
    if (named.length === 0) throw newProjectRefused(name);
    if (named.length > 1) throw sameNamedProjects(named, name);
    return named[0].id;
  }

  private async resolveProject(tx: TxClient, accountId: string, bundle: CanonBundle, projectId?: string) {
    const description = bundle.project.description;
    // Without an explicit project, the account's project of the same name is the target, so a re-import lands where the first did.
    if (!projectId) await holdProjectName(tx, accountId, bundle.project.name);
    const named = projectId ? [] : await tx.project.findMany({ where: { accountId, name: bundle.project.name }, orderBy: { id: 'asc' }, take: 10 });
    if (named.length > 1) throw sameNamedProjects(named, bundle.project.name);
    const found = projectId ? await tx.project.findFirst({ where: { id: projectId, accountId } }) : named[0];
    if (projectId && !found) throw new LoreError('not_found', `Project ${projectId} not found.`);
    if (found) {
      await holdProject(tx, found.id);
      const descriptionChanged = description !== undefined && description !== found.description;
      if (descriptionChanged) await tx.project.update({ where: { id: found.id }, data: { description } });
      return { id: found.id, created: false, descriptionChanged };
    }
    const created = await tx.project.create({
      data: { id: newId('prj'), accountId, name: bundle.project.name, description: description ?? '' },
    });
    return { id: created.id, created: true, descriptionChanged: false };
  }

  /** `ordinals`: every chapter id the project will have after the import, with its ordinal. */
  private checkReferences(bundle: CanonBundle, entityKeys: Set<string>, ordinals: Map<string, number>) {
    const errors: FieldError[] = [];
    bundle.relationships.forEach((r, i) => {
      if (!entityKeys.has(r.from)) errors.push({ path: `relationships.${i}.from`, message: `unknown entity key ${r.from}` });
      if (!entityKeys.has(r.to)) errors.push({ path: `relationships.${i}.to`, message: `unknown entity key ${r.to}` });
    });
    const ordinalOf = (chapter: string) => ordinals.get(chapter);
    bundle.entities.forEach((e, i) => {
      e.facts.forEach((item, j) => {
        if (typeof item === 'string') return;
        errors.push(...spanErrors(item, ordinalOf, `entities.${i}.facts.${j}`));
        item.known_by?.forEach((k, n) => {
          const at = `entities.${i}.facts.${j}.known_by.${n}`;
          if (!entityKeys.has(k.entity)) errors.push({ path: `${at}.entity`, message: `unknown entity key ${k.entity}` });
          if (k.from && !ordinals.has(k.from)) errors.push({ path: `${at}.from`, message: `${k.from} is not a chapter of this project` });
        });
      });
      e.stateChanges?.forEach((change, j) => errors.push(...spanErrors(change, ordinalOf, `entities.${i}.stateChanges.${j}`)));
      if (e.promise) {
        for (const end of ['set_up_in', 'paid_off_in'] as const) {
          const chapter = e.promise[end];
          if (chapter && !ordinals.has(chapter)) errors.push({ path: `entities.${i}.promise.${end}`, message: `unknown chapter ${chapter}` });
        }
        e.promise.involves.forEach((key, k) => {
          if (!entityKeys.has(key)) errors.push({ path: `entities.${i}.promise.involves.${k}`, message: `unknown entity key ${key}` });
        });
      }
    });
    bundle.timeline.forEach((t, i) => {
      if (!ordinals.has(t.chapter)) errors.push({ path: `timeline.${i}.chapter`, message: `unknown chapter ${t.chapter}` });
      t.beats.forEach((b, j) =>
        b.entities.forEach((key, k) => {
          if (!entityKeys.has(key)) errors.push({ path: `timeline.${i}.beats.${j}.entities.${k}`, message: `unknown entity key ${key}` });
        }),
      );
    });
    if (errors.length > 0) {
      throw new LoreError('invalid_bundle', errors.slice(0, 5).map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
    }
  }

  /**
   * Writes the timed state values of the entities that list stateChanges (one row per key of each change) where they
   * differ from the stored ones, in set statements; returns the ids of the entities whose values were replaced.
   */
  private async recordStateChanges(
    tx: TxClient,
    projectId: string,
    bundle: CanonBundle,
    idOf: (key: string) => string,
    chapterId: (externalId: string | undefined) => string | null,
    scoped: boolean,
  ): Promise<string[]> {
    const listed = bundle.entities.filter((e) => e.stateChanges !== undefined);
    if (listed.length === 0) return [];
    const stored = new Map<string, TimedRow[]>();
    const rows = await tx.stateValue.findMany({
      where: { projectId, ...(scoped ? { entityId: { in: listed.map((e) => idOf(e.key)) } } : {}) },
      select: { entityId: true, key: true, value: true, fromChapterId: true, fromLine: true, fromAnchor: true, untilChapterId: true },
      orderBy: { id: 'asc' },
    });
    for (const { entityId, ...value } of rows) stored.set(entityId, [...(stored.get(entityId) ?? []), value]);
    const replaced: string[] = [];
    const values: Row<'StateValue'>[] = [];
    for (const e of listed) {
      const entityId = idOf(e.key);
      // In the bundle's order, which stateAt keeps for values of one key starting at the same chapter.
      const wanted = e.stateChanges!.flatMap((change) =>
        Object.entries(change.state).map(([key, value]) => ({
          key, value, fromChapterId: chapterId(change.from), fromLine: change.line ?? null, fromAnchor: change.anchor ?? null, untilChapterId: chapterId(change.until),
        })),
      );
      if (sameJson(meaningOf(wanted), meaningOf(stored.get(entityId) ?? []))) continue;
      replaced.push(entityId);
      for (const v of wanted) {
        values.push({ id: newId('stv'), projectId, entityId, ...v });
      }
    }
    for (const part of chunk(replaced, rowsPerInsert)) await tx.stateValue.deleteMany({ where: { entityId: { in: part } } });
    for (const part of chunk(values, rowsPerInsert)) await insertRows(tx, 'StateValue', part);
    return replaced;
  }

  /** Imported beats replace a chapter's beats only when they differ. */
  private async recordBeats(
    tx: TxClient,
    projectId: string,
    bundle: CanonBundle,
    idOf: (key: string) => string,
    chapters: Map<string, { id: string }>,
  ): Promise<number> {
    let recorded = 0;
    for (const entry of bundle.timeline) {
      const chapterId = chapters.get(entry.chapter)!.id;
      const wanted = entry.beats.map((b, position) => ({ position, summary: b.summary, entityIds: b.entities.map(idOf) }));
      const current = await tx.beat.findMany({ where: { chapterId }, orderBy: { position: 'asc' }, select: { position: true, summary: true, entityIds: true, source: true } });
      if (sameJson(current.map(({ position, summary, entityIds }) => ({ position, summary, entityIds })), wanted) && current.every((b) => b.source === 'import')) continue;
      await tx.beat.deleteMany({ where: { chapterId } });
      await tx.beat.createMany({ data: wanted.map((b) => ({ id: newId('bt'), projectId, chapterId, source: 'import', ...b })) });
      recorded += wanted.length;
    }
    return recorded;
  }
}
