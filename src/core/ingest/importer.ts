// Imports a canon bundle in one transaction: idempotent by entity key and chapter id, so importing the same bundle
// twice changes nothing; a bundle with any error is rejected whole with the paths of its errors.
import { Prisma, type PrismaClient } from '../../generated/prisma/client.ts';
import { newId } from '../../ids.ts';
import { bundleSchema, type CanonBundle } from './bundle.ts';
import { holdProject, holdUntilCommit, nameText, refreshSearchText, type TxClient } from '../canon/canon.ts';
import { LoreError } from '../errors.ts';
import type { GraphEdgeChange, GraphNodeChange, GraphOutbox } from '../relationships/outbox.ts';
import { stableStringify } from '../json.ts';
import { chunk, recordChapterMentions, rowsPerInsert, sha256 } from './mentions.ts';
import { parseOrFail, type FieldError } from '../validation.ts';

export type ImportCounts = {
  entitiesCreated: number;
  entitiesUpdated: number;
  factsCreated: number;
  relationshipsCreated: number;
  relationshipsUpdated: number;
  chaptersCreated: number;
  chaptersUpdated: number;
  mentionsRecorded: number;
  beatsRecorded: number;
};
export type ImportResult = { projectId: string; projectCreated: boolean; changed: boolean; counts: ImportCounts };

const sameJson = (a: unknown, b: unknown) => stableStringify(a) === stableStringify(b);

export class Importer {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly graphOutbox: GraphOutbox,
  ) {}

  async import(input: { accountId: string; principalKeyId: string; bundle: unknown; projectId?: string }): Promise<ImportResult> {
    const bundle = parseOrFail(bundleSchema, input.bundle, 'invalid_bundle');
    return this.prisma.$transaction((tx) => this.write(tx, input.accountId, input.principalKeyId, bundle, input.projectId), {
      timeout: 300_000,
      maxWait: 30_000,
    });
  }

  private async write(tx: TxClient, accountId: string, keyId: string, bundle: CanonBundle, projectId?: string): Promise<ImportResult> {
    const counts: ImportCounts = {
      entitiesCreated: 0, entitiesUpdated: 0, factsCreated: 0, relationshipsCreated: 0, relationshipsUpdated: 0,
      chaptersCreated: 0, chaptersUpdated: 0, mentionsRecorded: 0, beatsRecorded: 0,
    };
    const project = await this.resolveProject(tx, accountId, bundle, projectId);

    // Entities, matched by key.
    const existing = await tx.entity.findMany({ where: { projectId: project.id } });
    const byKey = new Map(existing.map((e) => [e.key, e]));
    this.checkReferences(bundle, new Set([...byKey.keys(), ...bundle.entities.map((e) => e.key)]), await this.chapterIds(tx, project.id));

    const touched = new Set<string>();
    const creates: Prisma.EntityCreateManyInput[] = [];
    const renamed: GraphNodeChange[] = [];
    for (const e of bundle.entities) {
      const current = byKey.get(e.key);
      const fields = {
        type: e.type, name: e.name, aliases: e.aliases, state: e.state as Prisma.InputJsonValue, baseState: e.state as Prisma.InputJsonValue, status: e.status,
        confidence: e.confidence ?? null, nameText: nameText(e.name, e.aliases),
      };
      if (!current) {
        const id = newId('ent');
        creates.push({ id, projectId: project.id, key: e.key, ...fields, searchText: fields.nameText });
        byKey.set(e.key, { ...fields, id, key: e.key } as (typeof existing)[number]);
        touched.add(id);
      } else if (
        current.type !== fields.type || current.name !== fields.name || !sameJson(current.aliases, fields.aliases) ||
        !sameJson(current.baseState, fields.baseState) || current.status !== fields.status || current.confidence !== fields.confidence
      ) {
        await tx.entity.update({ where: { id: current.id }, data: fields });
        if (current.name !== fields.name || current.type !== fields.type) renamed.push({ id: current.id, label: fields.name, type: fields.type });
        touched.add(current.id);
        counts.entitiesUpdated++;
      }
    }
    for (const part of chunk(creates, rowsPerInsert)) await tx.entity.createMany({ data: part });
    counts.entitiesCreated = creates.length;
    const idOf = (key: string) => byKey.get(key)!.id;

    // Facts, matched by text; approved ones carry their provenance (candidate and decision by the importing key).
    const knownFacts = new Set(
      (await tx.fact.findMany({ where: { projectId: project.id, retiredAt: null }, select: { entityId: true, text: true } })).map((f) => `${f.entityId}\u0000${f.text}`),
    );
    const facts: Prisma.FactCreateManyInput[] = [];
    const candidates: Prisma.CandidateCreateManyInput[] = [];
    const decisions: Prisma.DecisionCreateManyInput[] = [];
    for (const e of bundle.entities) {
      const entityId = idOf(e.key);
      for (const text of new Set(e.facts)) {
        if (knownFacts.has(`${entityId}\u0000${text}`)) continue;
        const candidateId = newId('cnd');
        candidates.push({ id: candidateId, projectId: project.id, entityId, fact: text, source: 'import', proposedBy: keyId, status: e.status === 'approved' ? 'approved' : 'pending' });
        if (e.status === 'approved') decisions.push({ id: newId('dec'), candidateId, status: 'approved', decidedBy: keyId });
        facts.push({ id: newId('fct'), projectId: project.id, entityId, text, status: e.status, source: 'import', candidateId, createdBy: keyId });
        touched.add(entityId);
      }
    }
    for (const part of chunk(candidates, rowsPerInsert)) await tx.candidate.createMany({ data: part });
    for (const part of chunk(decisions, rowsPerInsert)) await tx.decision.createMany({ data: part });
    for (const part of chunk(facts, rowsPerInsert)) await tx.fact.createMany({ data: part });
    counts.factsCreated = facts.length;
    await refreshSearchText(tx, [...touched]);

    // Relationships, matched by their two ends and kind.
    const relationships = await tx.relationship.findMany({ where: { projectId: project.id } });
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
    for (const part of chunk(newRelationships, rowsPerInsert)) await tx.relationship.createMany({ data: part });
    counts.relationshipsCreated = newRelationships.length;
    // The graph's share of this import, for Neo4j, committed or rolled back with it.
    await this.graphOutbox.record(tx, project.id, {
      nodes: [...creates.map((e) => ({ id: e.id!, label: e.name, type: e.type })), ...renamed],
      edges: [...newRelationships.map((r) => ({ id: r.id!, from: r.fromId, to: r.toId, kind: r.kind, weight: r.weight ?? 1 })), ...reweighted],
    });

    // Chapters, matched by id.
    const chapters = await tx.chapter.findMany({ where: { projectId: project.id }, select: { id: true, externalId: true, contentHash: true, title: true, ordinal: true } });
    const chapterByExternal = new Map(chapters.map((c) => [c.externalId, c]));
    for (const c of bundle.chapters) {
      const contentHash = sha256(c.text);
      const current = chapterByExternal.get(c.id);
      if (!current) {
        const row = { id: newId('chp'), projectId: project.id, externalId: c.id, title: c.title, ordinal: c.ordinal, text: c.text, contentHash };
        await tx.chapter.create({ data: row });
        chapterByExternal.set(c.id, row);
        counts.chaptersCreated++;
      } else if (current.contentHash !== contentHash || current.title !== c.title || current.ordinal !== c.ordinal) {
        await tx.chapter.update({ where: { id: current.id }, data: { title: c.title, ordinal: c.ordinal, text: c.text, contentHash } });
        counts.chaptersUpdated++;
      }
    }

    counts.mentionsRecorded = await recordChapterMentions(tx, project.id);
    counts.beatsRecorded = await this.recordBeats(tx, project.id, bundle, idOf, chapterByExternal);

    const changed = project.created || Object.values(counts).some((n) => n > 0) || project.descriptionChanged;
    if (changed) await tx.project.update({ where: { id: project.id }, data: { updatedAt: new Date() } });
    return { projectId: project.id, projectCreated: project.created, changed, counts };
  }

  /**
   * The target project, held for this transaction: imports into one project run one after the other, so each sees what
   * the one before it wrote, and two racing imports of a new bundle create one project, not two.
   */
  private async resolveProject(tx: TxClient, accountId: string, bundle: CanonBundle, projectId?: string) {
    const description = bundle.project.description;
    // Without an explicit project, the account's project of the same name is the target, so a re-import lands where the first did.
    if (!projectId) await holdUntilCommit(tx, JSON.stringify(['import by name', accountId, bundle.project.name]));
    const found = projectId
      ? await tx.project.findFirst({ where: { id: projectId, accountId } })
      : await tx.project.findFirst({ where: { accountId, name: bundle.project.name }, orderBy: { id: 'asc' } });
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

  private async chapterIds(tx: TxClient, projectId: string): Promise<Set<string>> {
    return new Set((await tx.chapter.findMany({ where: { projectId }, select: { externalId: true } })).map((c) => c.externalId));
  }

  private checkReferences(bundle: CanonBundle, entityKeys: Set<string>, storedChapters: Set<string>) {
    const errors: FieldError[] = [];
    bundle.relationships.forEach((r, i) => {
      if (!entityKeys.has(r.from)) errors.push({ path: `relationships.${i}.from`, message: `unknown entity key ${r.from}` });
      if (!entityKeys.has(r.to)) errors.push({ path: `relationships.${i}.to`, message: `unknown entity key ${r.to}` });
    });
    const chapterKeys = new Set([...storedChapters, ...bundle.chapters.map((c) => c.id)]);
    bundle.timeline.forEach((t, i) => {
      if (!chapterKeys.has(t.chapter)) errors.push({ path: `timeline.${i}.chapter`, message: `unknown chapter ${t.chapter}` });
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
