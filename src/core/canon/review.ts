// Review: canon that did not come from the author is suggested until someone decides. A proposal records suggested
// facts (each with its own pending candidate) about a known entity, or a suggested entity with its facts (one candidate
// of kind entity); a decision approves or rejects a candidate, recorded with the deciding key, the time and a reason.
// A proposed fact may say who knows it (its knowers and secret flag are written on the suggested fact, so approving
// it makes them canon). A promise's ledger line (setup, payoff, involved entities, status) is kept on its candidate, on a new
// promise's entity candidate or a known promise's candidate of kind promise, and written to the ledger on approval.
import { Prisma, type PrismaClient } from '../../generated/prisma/client.ts';
import { newId } from '../../ids.ts';
import { LoreError } from '../errors.ts';
import { currentNamesHash, recordEntityMentions } from '../ingest/mentions.ts';
import type { GraphOutbox } from '../relationships/outbox.ts';
import { holdProject, nameText, refreshSearchText, type Page, type TxClient } from './canon.ts';
import { freeEntityKey, requireNamesFree } from './names.ts';
import { recordKnowledge, resolveKnowerLists, type KnowerRow, type KnowerView } from '../knowledge/knowledge.ts';
import type { CandidateStatus, DecisionChoice, ProposedPromise, ProposeInput } from './reviewRules.ts';
import { resolveSpans } from './storyTime.ts';

/** A fact a candidate proposes; `id` while the fact exists, `status` what the review made of it. */
export type ProposedFact = {
  id: string | null;
  text: string;
  from: string | null;
  until: string | null;
  status: 'suggested' | 'approved' | 'rejected';
  /** as the fact holds it while it exists (a rejected one is removed: not secret, no knowers) */
  secret: boolean;
  knownBy: KnowerView[];
};
export type CandidateDecision = { id: string; status: 'approved' | 'rejected'; reason: string | null; decidedBy: string; decidedAt: Date };
export type CandidateRecord = {
  id: string;
  kind: 'fact' | 'entity' | 'promise';
  status: CandidateStatus;
  entityId: string | null;
  entityName: string | null;
  facts: ProposedFact[];
  proposal: EntityProposal | null;
  /** the ledger line it proposes (a new promise's, or a change to a known promise's), written on approval */
  promise: ProposedPromise | null;
  content: string | null;
  source: string;
  proposedBy: string;
  createdAt: Date;
  decision: CandidateDecision | null;
  /** what the decision just removed (a rejection's suggested entity and facts); empty in a listing */
  removedIds: string[];
};
/** As it was made; a fact's from and until only when given. */
export type EntityProposal = { name: string; type: string; aliases: string[]; facts: { text: string; from?: string; until?: string }[] };
export type ProposeResult = {
  entity: { id: string; name: string; status: 'approved' | 'suggested'; isNew: boolean };
  candidates: CandidateRecord[];
  /** live facts of the entity that already said what was proposed: nothing was recorded for them */
  alreadyCanon: string[];
};

/** What a candidate's proposal column holds: an entity proposal, with its ledger line when it is a promise; a promise candidate's line. */
type StoredProposal = (EntityProposal & { promise?: ProposedPromise }) | { promise: ProposedPromise };
type CandidateRow = Omit<CandidateRecord, 'facts' | 'decision' | 'removedIds' | 'proposal' | 'promise'> & {
  proposal: StoredProposal | null;
  fact: string | null;
  factRows: { id: string; text: string; from: string | null; until: string | null; secret: boolean; knownBy: KnowerView[] }[] | null;
  decisionId: string | null;
  decisionStatus: 'approved' | 'rejected' | null;
  decisionReason: string | null;
  decidedBy: string | null;
  decidedAt: Date | null;
};
type Known = { id: string; name: string; type: string; status: 'approved' | 'suggested' };
type PendingCandidate = { id: string; kind: 'fact' | 'entity' | 'promise'; entityId: string | null; fact: string | null; proposal: unknown };

const factStatus: Record<CandidateStatus, ProposedFact['status']> = { pending: 'suggested', approved: 'approved', rejected: 'rejected' };
const transaction = { timeout: 120_000, maxWait: 30_000 };

const invalid = (path: string, message: string) => new LoreError('validation_error', `${path}: ${message}`, { errors: [{ path, message }] });
const candidateNotFound = (projectId: string, candidateId: string) => new LoreError('not_found', `Candidate ${candidateId} not found in project ${projectId}.`);

export class ReviewService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly graphOutbox: GraphOutbox,
  ) {}

  /** Records a proposal; with `approve`, approves what it recorded at once (a decision by the same key). */
  async propose(projectId: string, keyId: string, input: ProposeInput): Promise<ProposeResult> {
    return this.prisma.$transaction(async (tx) => {
      await holdProject(tx, projectId);
      const known = input.entityId !== undefined ? await this.entityById(tx, projectId, input.entityId) : await this.entityByName(tx, projectId, input.name!);
      if (known) this.checkKnown(known, input);
      else if (!input.type) throw invalid('input.type', `required for a new entity: no entity of this project is named "${input.name}"`);

      // A text given twice is one fact (live facts are unique per entity and text).
      const facts = input.facts.map((f, i) => ({ ...f, path: `input.facts.${i}` })).filter((f, i, all) => all.findIndex((g) => g.text === f.text) === i);
      const spans = await resolveSpans(tx, projectId, facts.map((f) => ({ span: f, path: f.path })));
      const knowers = await resolveKnowerLists(tx, projectId, facts.map((f) => ({ knowers: f.knownBy ?? [], path: `${f.path}.knownBy` })));
      if (input.promise) await this.checkPromise(tx, projectId, input.promise);
      const created = known
        ? await this.proposeFacts(tx, projectId, keyId, known, input, facts.map((f, i) => ({ text: f.text, ...spans[i] })))
        : await this.proposeEntity(tx, projectId, keyId, input, facts.map((f, i) => ({ text: f.text, from: f.from, until: f.until, ...spans[i] })));
      await recordKnowledge(tx, projectId, facts.flatMap((f, i) => knowledgeLine(created.entity.id, f, knowers[i], created.recorded)));

      if (input.approve) {
        for (const id of created.candidateIds) await this.decideIn(tx, projectId, await this.pending(tx, projectId, id), 'approve', keyId);
      }
      const entity = await tx.entity.findUniqueOrThrow({ where: { id: created.entity.id }, select: { id: true, name: true, status: true } });
      return {
        entity: { ...entity, isNew: !known },
        candidates: await this.load(tx, projectId, { ids: created.candidateIds }),
        alreadyCanon: created.alreadyCanon,
      };
    }, transaction);
  }

  /** Candidates of a project with this status, oldest first (the queue), a page at a time. */
  async list(projectId: string, status: CandidateStatus, limit: number, startingAfter?: string): Promise<Page<CandidateRecord>> {
    if (startingAfter) {
      const cursor = await this.prisma.candidate.findFirst({ where: { id: startingAfter, projectId, status }, select: { id: true } });
      if (!cursor) throw new LoreError('invalid_cursor', `starting_after ${startingAfter} is not a ${status} candidate of this project.`);
    }
    const rows = await this.load(this.prisma, projectId, { status, after: startingAfter, take: limit + 1 });
    const page = rows.slice(0, limit);
    return { data: page, hasMore: rows.length > limit, nextStartingAfter: rows.length > limit ? page[page.length - 1].id : null };
  }

  /** Approves or rejects a pending candidate; a decided one is 409 already_decided. */
  async decide(projectId: string, candidateId: string, choice: DecisionChoice, keyId: string, reason?: string): Promise<CandidateRecord> {
    return this.prisma.$transaction(async (tx) => {
      await holdProject(tx, projectId);
      const candidate = await this.pending(tx, projectId, candidateId);
      const removedIds = await this.decideIn(tx, projectId, candidate, choice, keyId, reason);
      const [record] = await this.load(tx, projectId, { ids: [candidateId] });
      return { ...record, removedIds };
    }, transaction);
  }

  private async entityById(tx: TxClient, projectId: string, entityId: string): Promise<Known> {
    const found = await tx.entity.findFirst({ where: { id: entityId, projectId }, select: { id: true, name: true, type: true, status: true } });
    if (!found) throw new LoreError('not_found', `Entity ${entityId} not found in project ${projectId}.`);
    return found;
  }

  /** The entity whose name (else alias) is `name`, case-insensitive; none means a new entity. */
  private async entityByName(tx: TxClient, projectId: string, name: string): Promise<Known | undefined> {
    const rows = await tx.$queryRaw<(Known & { byName: boolean })[]>`
      SELECT id, name, type::text AS type, status::text AS status, lower(name) = lower(${name}) AS "byName"
      FROM "Entity"
      WHERE "projectId" = ${projectId} AND (lower(name) = lower(${name}) OR lower(${name}) = ANY(SELECT lower(a) FROM unnest(aliases) a))
      ORDER BY "byName" DESC, id`;
    const matches = rows.some((r) => r.byName) ? rows.filter((r) => r.byName) : rows;
    if (matches.length > 1) {
      throw invalid('input.name', `"${name}" names ${matches.length} entities: ${matches.map((e) => `${e.name} (${e.id})`).join(', ')}; give entityId instead`);
    }
    return matches[0] && { id: matches[0].id, name: matches[0].name, type: matches[0].type, status: matches[0].status };
  }

  private checkKnown(known: Known, input: ProposeInput) {
    if (input.type && input.type !== known.type) throw invalid('input.type', `${known.name} (${known.id}) is a ${known.type}, not a ${input.type}`);
    if (input.aliases?.length) throw invalid('input.aliases', `only for a new entity; ${known.name} (${known.id}) exists already`);
    if (input.promise && known.type !== 'promise') throw invalid('input.promise', `only for a promise; ${known.name} (${known.id}) is a ${known.type}`);
    if (input.facts.length === 0 && !input.promise) {
      throw invalid('input.facts', `must hold at least one fact about ${known.name} (${known.id}), which exists already`);
    }
  }

  /** A proposed ledger line names chapters and entities of the project (errors name input.promise's fields). */
  private async checkPromise(tx: TxClient, projectId: string, promise: ProposedPromise) {
    const chapters = [promise.setUpIn, promise.paidOffIn].filter((c): c is string => c !== undefined);
    const involves = promise.involves ?? [];
    const [foundChapters, foundEntities] = await Promise.all([
      chapters.length ? tx.chapter.findMany({ where: { projectId, externalId: { in: chapters } }, select: { externalId: true } }) : [],
      involves.length ? tx.entity.findMany({ where: { projectId, id: { in: involves } }, select: { id: true } }) : [],
    ]);
    const chapterIds = new Set(foundChapters.map((c) => c.externalId));
    const entityIds = new Set(foundEntities.map((e) => e.id));
    const errors = [
      ...(['setUpIn', 'paidOffIn'] as const).flatMap((field) => {
        const chapter = promise[field];
        return chapter !== undefined && !chapterIds.has(chapter) ? [{ path: `input.promise.${field}`, message: `${chapter} is not a chapter of this project` }] : [];
      }),
      ...involves.flatMap((id, i) => (entityIds.has(id) ? [] : [{ path: `input.promise.involves.${i}`, message: `${id} is not an entity of this project` }])),
    ];
    if (errors.length > 0) throw new LoreError('validation_error', errors.slice(0, 5).map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
  }

  /** A suggested fact and a pending candidate of kind fact for each text the entity does not have yet. */
  private async proposeFacts(
    tx: TxClient, projectId: string, keyId: string, entity: Known, input: ProposeInput,
    facts: { text: string; fromChapterId: string | null; untilChapterId: string | null }[],
  ) {
    const live = await tx.fact.findMany({ where: { entityId: entity.id, retiredAt: null, text: { in: facts.map((f) => f.text) } }, select: { id: true, text: true } });
    const liveByText = new Map(live.map((f) => [f.text, f.id]));
    const candidates: Prisma.CandidateCreateManyInput[] = [];
    const rows: Prisma.FactCreateManyInput[] = [];
    for (const fact of facts.filter((f) => !liveByText.has(f.text))) {
      const candidateId = newId('cnd');
      candidates.push({ id: candidateId, projectId, kind: 'fact', status: 'pending', entityId: entity.id, fact: fact.text, content: input.content, source: 'proposal', proposedBy: keyId });
      rows.push({ id: newId('fct'), projectId, entityId: entity.id, status: 'suggested', source: 'proposal', candidateId, createdBy: keyId, ...fact });
    }
    if (input.promise) {
      candidates.push({ id: newId('cnd'), projectId, kind: 'promise', status: 'pending', entityId: entity.id, proposal: { promise: input.promise }, content: input.content, source: 'proposal', proposedBy: keyId });
    }
    await tx.candidate.createMany({ data: candidates });
    await tx.fact.createMany({ data: rows });
    return {
      entity,
      candidateIds: candidates.map((c) => c.id!),
      alreadyCanon: facts.flatMap((f) => liveByText.get(f.text) ?? []),
      recorded: new Set(rows.map((r) => r.text)),
    };
  }

  /** A suggested entity with its suggested facts and one pending candidate of kind entity holding the proposal. */
  private async proposeEntity(
    tx: TxClient, projectId: string, keyId: string, input: ProposeInput,
    facts: { text: string; from?: string; until?: string; fromChapterId: string | null; untilChapterId: string | null }[],
  ) {
    const name = input.name!;
    const aliases = input.aliases ?? [];
    if (input.promise && input.type !== 'promise') throw invalid('input.promise', `only for a promise, not a ${input.type}`);
    await requireNamesFree(tx, projectId, [{ path: 'input.name', name }, ...aliases.map((alias, i) => ({ path: `input.aliases.${i}`, name: alias }))]);
    const previousNames = await currentNamesHash(tx, projectId);
    const entity = await tx.entity.create({
      data: { id: newId('ent'), projectId, key: await freeEntityKey(tx, projectId, name), type: input.type!, name, aliases, status: 'suggested', nameText: nameText(name, aliases) },
      select: { id: true, name: true, type: true, status: true },
    });
    const proposal: StoredProposal = {
      name, type: entity.type, aliases,
      facts: facts.map(({ text, from, until }) => ({ text, ...(from ? { from } : {}), ...(until ? { until } : {}) })),
      ...(input.promise ? { promise: input.promise } : {}),
    };
    const candidate = await tx.candidate.create({
      data: { id: newId('cnd'), projectId, kind: 'entity', status: 'pending', entityId: entity.id, proposal, content: input.content, source: 'proposal', proposedBy: keyId },
      select: { id: true },
    });
    // The entity candidate stands for its facts (Fact.candidateId is one fact's own candidate), so they carry none.
    await tx.fact.createMany({
      data: facts.map(({ text, fromChapterId, untilChapterId }) => ({
        id: newId('fct'), projectId, entityId: entity.id, text, status: 'suggested' as const, source: 'proposal', createdBy: keyId, fromChapterId, untilChapterId,
      })),
    });
    await recordEntityMentions(tx, projectId, [entity.id], previousNames);
    await refreshSearchText(tx, [entity.id]);
    await this.graphOutbox.record(tx, projectId, { nodes: [{ id: entity.id, label: entity.name, type: entity.type }], edges: [] });
    return { entity, candidateIds: [candidate.id], alreadyCanon: [] as string[], recorded: new Set(facts.map((f) => f.text)) };
  }

  /** The candidate, still pending; another project's is not found, a decided one is already_decided. */
  private async pending(tx: TxClient, projectId: string, candidateId: string): Promise<PendingCandidate> {
    const found = await tx.candidate.findFirst({
      where: { id: candidateId, projectId },
      select: { id: true, kind: true, status: true, entityId: true, fact: true, proposal: true, decisions: { orderBy: { decidedAt: 'desc' }, take: 1, select: { decidedBy: true, decidedAt: true } } },
    });
    if (!found) throw candidateNotFound(projectId, candidateId);
    if (found.status !== 'pending') {
      const last = found.decisions[0];
      throw new LoreError('already_decided', `Candidate ${candidateId} was already ${found.status}${last ? ` by ${last.decidedBy} at ${last.decidedAt.toISOString()}` : ''}.`);
    }
    return found;
  }

  /** Applies a decision and records it; returns the ids it removed. */
  private async decideIn(tx: TxClient, projectId: string, candidate: PendingCandidate, choice: DecisionChoice, keyId: string, reason?: string): Promise<string[]> {
    const removed = choice === 'approve' ? (await this.approve(tx, candidate), []) : await this.reject(tx, projectId, candidate, keyId, reason);
    const status = choice === 'approve' ? 'approved' : 'rejected';
    await tx.candidate.update({ where: { id: candidate.id }, data: { status } });
    await tx.decision.create({ data: { id: newId('dec'), candidateId: candidate.id, status, reason, decidedBy: keyId } });
    return removed;
  }

  private async approve(tx: TxClient, candidate: PendingCandidate): Promise<void> {
    const entityId = candidate.entityId;
    if (!entityId) throw new LoreError('not_found', `The entity candidate ${candidate.id} is about no longer exists; reject the candidate instead.`);
    const promise = (candidate.proposal as StoredProposal | null)?.promise;
    if (promise) await writeLedgerLine(tx, entityId, promise);
    if (candidate.kind === 'entity') {
      const texts = ((candidate.proposal as EntityProposal | null)?.facts ?? []).map((f) => f.text);
      await tx.entity.update({ where: { id: entityId }, data: { status: 'approved', version: { increment: 1 } } });
      await tx.fact.updateMany({ where: { entityId, candidateId: null, retiredAt: null, status: 'suggested', text: { in: texts } }, data: { status: 'approved' } });
    } else if (candidate.fact !== null) {
      // By text too: the contract's approveFact may have taken the fact over (its own candidate) meanwhile.
      const fact = await tx.fact.findFirst({ where: { entityId, retiredAt: null, OR: [{ candidateId: candidate.id }, { text: candidate.fact }] }, select: { id: true } });
      if (!fact) throw new LoreError('not_found', `The fact candidate ${candidate.id} proposes no longer exists; reject the candidate instead.`);
      await tx.fact.update({ where: { id: fact.id }, data: { status: 'approved' } });
    }
    await refreshSearchText(tx, [entityId]);
  }

  private async reject(tx: TxClient, projectId: string, candidate: PendingCandidate, keyId: string, reason?: string): Promise<string[]> {
    if (candidate.kind === 'fact') {
      const facts = await tx.fact.findMany({ where: { candidateId: candidate.id, status: 'suggested', retiredAt: null }, select: { id: true } });
      await tx.fact.deleteMany({ where: { id: { in: facts.map((f) => f.id) } } });
      return facts.map((f) => f.id);
    }
    // A ledger change is only kept on its candidate: rejecting it removes nothing.
    if (candidate.kind === 'promise' || !candidate.entityId) return [];
    const entity = await tx.entity.findUniqueOrThrow({ where: { id: candidate.entityId }, select: { id: true, name: true, status: true } });
    if (entity.status === 'approved') {
      throw new LoreError('in_use', `${entity.name} (${entity.id}) was approved into the canon since it was proposed; delete the entity instead of rejecting the proposal.`);
    }
    // Proposals of facts about the entity go with it, with the same decision, so none is left pending about nothing.
    const about = await tx.candidate.findMany({ where: { projectId, entityId: entity.id, status: 'pending', id: { not: candidate.id } }, select: { id: true } });
    await tx.candidate.updateMany({ where: { id: { in: about.map((c) => c.id) } }, data: { status: 'rejected' } });
    await tx.decision.createMany({ data: about.map((c) => ({ id: newId('dec'), candidateId: c.id, status: 'rejected' as const, reason, decidedBy: keyId })) });
    const facts = await tx.fact.findMany({ where: { entityId: entity.id }, select: { id: true } });
    // Its facts, mentions, relationships and conflict links go with it (foreign keys cascade); candidates keep their record.
    await tx.entity.delete({ where: { id: entity.id } });
    await this.graphOutbox.recordDeletes(tx, projectId, { nodes: [entity.id], edges: [] });
    return [entity.id, ...facts.map((f) => f.id)];
  }

  /** Candidates with their entity's name, the facts they propose and their latest decision, in one statement. */
  private async load(
    db: Pick<TxClient, '$queryRaw'>,
    projectId: string,
    filter: { ids: string[] } | { status: CandidateStatus; after?: string; take: number },
  ): Promise<CandidateRecord[]> {
    if ('ids' in filter && filter.ids.length === 0) return [];
    const where =
      'ids' in filter
        ? Prisma.sql`c.id = ANY(${filter.ids}::text[])`
        : Prisma.sql`c.status = ${filter.status}::"CandidateStatus"${filter.after ? Prisma.sql` AND c.id > ${filter.after}` : Prisma.empty}`;
    const limit = 'ids' in filter ? Prisma.empty : Prisma.sql`LIMIT ${filter.take}::int`;
    const rows = await db.$queryRaw<CandidateRow[]>`
      SELECT c.id, c.kind::text AS kind, c.status::text AS status, c."entityId", e.name AS "entityName", c.fact, c.proposal, c.content,
        c.source, c."proposedBy", c."createdAt", f.rows AS "factRows",
        d.id AS "decisionId", d.status::text AS "decisionStatus", d.reason AS "decisionReason", d."decidedBy", d."decidedAt"
      FROM "Candidate" c
      LEFT JOIN "Entity" e ON e.id = c."entityId"
      LEFT JOIN LATERAL (
        SELECT d.id, d.status, d.reason, d."decidedBy", d."decidedAt" FROM "Decision" d
        WHERE d."candidateId" = c.id ORDER BY d."decidedAt" DESC, d.id DESC LIMIT 1
      ) d ON true
      LEFT JOIN LATERAL (
        SELECT json_agg(json_build_object('id', f.id, 'text', f.text, 'from', fc."externalId", 'until', uc."externalId", 'secret', f.secret,
          'knownBy', COALESCE((SELECT json_agg(json_build_object('entityId', k."entityId", 'from', kc."externalId", 'line', k."fromLine") ORDER BY k."entityId")
            FROM "FactKnower" k LEFT JOIN "Chapter" kc ON kc.id = k."fromChapterId" WHERE k."factId" = f.id), '[]'::json)) ORDER BY f.id) AS rows
        FROM "Fact" f LEFT JOIN "Chapter" fc ON fc.id = f."fromChapterId" LEFT JOIN "Chapter" uc ON uc.id = f."untilChapterId"
        WHERE (c.kind = 'fact' AND f."candidateId" = c.id)
           OR (c.kind = 'entity' AND f."entityId" = c."entityId" AND f."candidateId" IS NULL AND f."retiredAt" IS NULL
               AND f.text IN (SELECT p->>'text' FROM jsonb_array_elements(c.proposal->'facts') p))
      ) f ON true
      WHERE c."projectId" = ${projectId} AND ${where}
      ORDER BY c.id
      ${limit}`;
    return rows.map(({ fact, factRows, decisionId, decisionStatus, decisionReason, decidedBy, decidedAt, ...c }) => {
      const status = factStatus[c.status];
      const byText = new Map((factRows ?? []).map((f) => [f.text, f]));
      const held = (row: NonNullable<CandidateRow['factRows']>[number] | undefined) => ({ id: row?.id ?? null, secret: row?.secret ?? false, knownBy: row?.knownBy ?? [] });
      const { promise = null, ...entityProposal } = c.proposal ?? {};
      const proposal = c.kind === 'entity' ? (entityProposal as EntityProposal) : null;
      const facts: ProposedFact[] =
        proposal
          ? proposal.facts.map((p) => ({ ...held(byText.get(p.text)), text: p.text, from: p.from ?? null, until: p.until ?? null, status }))
          : fact === null
            ? []
            : [{ ...held(factRows?.[0]), text: fact, from: factRows?.[0]?.from ?? null, until: factRows?.[0]?.until ?? null, status }];
      const decision = decisionId ? { id: decisionId, status: decisionStatus!, reason: decisionReason, decidedBy: decidedBy!, decidedAt: decidedAt! } : null;
      return { ...c, proposal, promise, facts, decision, removedIds: [] };
    });
  }
}

/** The knowledge to write for a proposed fact that was recorded and says who knows it (knowers or secret). */
function knowledgeLine(entityId: string, fact: { text: string; secret?: boolean }, knownBy: KnowerRow[], recorded: Set<string>) {
  if (!recorded.has(fact.text) || (knownBy.length === 0 && !fact.secret)) return [];
  return [{ entityId, text: fact.text, secret: fact.secret ?? false, knownBy }];
}

/**
 * Writes an approved ledger line for the promise: what it gives replaces the setup or payoff, its entities join
 * those involved, and its status replaces the promise's (without one, a payoff makes it paid). A chapter gone since
 * the proposal cannot be placed.
 */
async function writeLedgerLine(tx: TxClient, entityId: string, promise: ProposedPromise): Promise<void> {
  const entity = await tx.entity.findUniqueOrThrow({ where: { id: entityId }, select: { projectId: true, ledger: true } });
  const names = [promise.setUpIn, promise.paidOffIn].filter((c): c is string => c !== undefined);
  const chapters = new Map(
    (names.length ? await tx.chapter.findMany({ where: { projectId: entity.projectId, externalId: { in: names } }, select: { id: true, externalId: true } }) : []).map((c) => [c.externalId, c.id]),
  );
  const chapterId = (name: string | undefined) => {
    if (name === undefined) return undefined;
    const id = chapters.get(name);
    if (!id) throw new LoreError('not_found', `Chapter ${name}, which the proposed promise names, no longer exists; reject the candidate instead.`);
    return id;
  };
  const involved = promise.involves?.length ? await tx.entity.findMany({ where: { projectId: entity.projectId, id: { in: promise.involves } }, select: { id: true } }) : [];
  const line = {
    setUpChapterId: chapterId(promise.setUpIn) ?? entity.ledger?.setUpChapterId ?? null,
    paidOffChapterId: chapterId(promise.paidOffIn) ?? entity.ledger?.paidOffChapterId ?? null,
    involves: [...new Set([...(entity.ledger?.involves ?? []), ...involved.map((e) => e.id)])],
  };
  const status = promise.status ?? (promise.paidOffIn !== undefined ? ('paid' as const) : (entity.ledger?.status ?? 'open'));
  await tx.promiseLedger.upsert({ where: { entityId }, create: { entityId, projectId: entity.projectId, ...line, status }, update: { ...line, status } });
}
