// The brief (issue 27): the canon that matters for a scene as of a point in the story, most important first, within a
// token budget. The scene's names are found as the conflict check finds them (MentionFinder over names and aliases,
// also without their article), relatives are added when the scene names them by a kin word ("her brother"), and
// state and facts are those holding at the chapter (approved and live only).
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { MentionFinder } from '../ingest/mentionFinder.ts';
import { nameVariants } from '../conflicts/canonSlice.ts';
import { heldKinship } from '../conflicts/reader/kin.ts';
import { kinWord, type KinRole } from '../conflicts/reader/lexicon.ts';
import { LoreError } from '../errors.ts';
import { holdsSql, resolveAsOf, stateAt, timedValues } from '../canon/storyTime.ts';
import { pack, type Omitted } from './pack.ts';
import type { BriefBeat, BriefContent, BriefEntity, BriefFact, BriefFormat, BriefNeighbour, BriefRelationship, BriefRule, NamedBy } from './render.ts';
import { encodingName, tokenCounter } from './tokens.ts';

export type BriefRequest = {
  projectId: string;
  /** chapter id: the canon as it stands there; absent, after the last chapter */
  chapter?: string;
  text?: string;
  entityIds?: string[];
  budget: number;
  format: BriefFormat;
};

export type Brief = {
  chapter: string | null;
  format: BriefFormat;
  encoding: string;
  budget: number;
  tokens: number;
  omitted: Omitted;
  /** the JSON rendering (format json) */
  content?: BriefContent;
  /** the Markdown rendering (format markdown) */
  markdown?: string;
};

/** How much is read at most, whatever the budget: enough for any budget a prompt can spare. */
const limits = { factsPerEntity: 100, neighbours: 100, rules: 20, promises: 20, beatChapters: 3, beatsPerChapter: 20 } as const;

type EntityRow = { id: string; type: string; name: string; aliases: string[]; state: unknown; baseState: unknown };

export class BriefService {
  constructor(private readonly prisma: PrismaClient) {}

  async brief(request: BriefRequest): Promise<Brief> {
    const { projectId } = request;
    const [chapter, count] = await Promise.all([request.chapter ? resolveAsOf(this.prisma, projectId, request.chapter, 'chapter') : undefined, tokenCounter()]);
    const at = chapter?.ordinal;

    const given = [...new Set(request.entityIds ?? [])];
    if (given.length > 0) await this.requireEntities(projectId, given);
    const found = request.text ? await this.named(projectId, request.text) : [];
    const namedBy = new Map<string, NamedBy>(given.map((id) => [id, 'id']));
    for (const id of found) if (!namedBy.has(id)) namedBy.set(id, 'text');

    // Relationships of the named entities: kinship the scene's kin words point along, and the one-step neighbours.
    const named = [...namedBy.keys()];
    const relationships = named.length
      ? await this.prisma.relationship.findMany({
          where: { projectId, OR: [{ fromId: { in: named } }, { toId: { in: named } }] },
          select: { id: true, fromId: true, toId: true, kind: true },
          orderBy: { id: 'asc' },
        })
      : [];
    const kinRoles = request.text ? rolesIn(request.text) : new Set<KinRole>();
    if (kinRoles.size > 0) {
      const edges = relationships.map((r) => ({ id: r.id, from: r.fromId, to: r.toId, kind: r.kind }));
      for (const held of heldKinship(edges)) {
        if (namedBy.has(held.of) && namedBy.get(held.of) !== 'kin' && !namedBy.has(held.who) && kinRoles.has(held.kin.role)) namedBy.set(held.who, 'kin');
      }
    }
    const isNamed = (id: string) => namedBy.has(id);
    const between = relationships.filter((r) => isNamed(r.fromId) && isNamed(r.toId));
    const neighbourIds = [...new Set(relationships.flatMap((r) => [r.fromId, r.toId]).filter((id) => !isNamed(id)))];

    const [entityRows, ruleRows, promiseRows, beats] = await Promise.all([
      this.entities(projectId, [...namedBy.keys(), ...neighbourIds]),
      this.rules(projectId, request.text ?? '', [...namedBy.keys()]),
      this.promises(projectId, [...namedBy.keys()], relationships),
      this.beats(projectId, at),
    ]);
    const byId = new Map(entityRows.map((e) => [e.id, e]));
    const namedRows = [...namedBy.keys()].map((id) => byId.get(id)).filter((e): e is EntityRow => e !== undefined);
    // Rules and promises have sections of their own.
    const neighbourRows = neighbourIds
      .map((id) => byId.get(id))
      .filter((e): e is EntityRow => e !== undefined && e.type !== 'rule' && e.type !== 'promise')
      .slice(0, limits.neighbours);
    const withFacts = [...namedRows, ...ruleRows, ...promiseRows];
    const [facts, timed] = await Promise.all([
      this.facts(withFacts.map((e) => e.id), at),
      at === undefined ? undefined : timedValues(this.prisma, [...namedRows, ...neighbourRows].map((e) => e.id)),
    ]);
    const stateOf = (e: EntityRow) => (timed ? stateAt(e.baseState, timed.get(e.id) ?? [], at) : ((e.state ?? {}) as Record<string, unknown>));
    const factsOf = (id: string) => facts.get(id) ?? [];
    const present = new Set(entityRows.map((e) => e.id));
    const relationship = (r: (typeof relationships)[number]): BriefRelationship => ({ id: r.id, from: r.fromId, kind: r.kind, to: r.toId });

    const candidates: BriefContent = {
      entities: namedRows.map(
        (e): BriefEntity => ({ id: e.id, type: e.type, name: e.name, aliases: e.aliases, state: stateOf(e), named_by: namedBy.get(e.id)!, facts: factsOf(e.id) }),
      ),
      relationships: between.filter((r) => present.has(r.fromId) && present.has(r.toId)).map(relationship),
      neighbours: neighbourRows.map(
        (n): BriefNeighbour => ({
          id: n.id,
          type: n.type,
          name: n.name,
          state: stateOf(n),
          relationships: relationships.filter((r) => (r.fromId === n.id || r.toId === n.id) && present.has(r.fromId) && present.has(r.toId)).map(relationship),
        }),
      ),
      rules: ruleRows.map((r): BriefRule => ({ id: r.id, name: r.name, facts: factsOf(r.id) })),
      promises: promiseRows.map((p) => ({ id: p.id, name: p.name, facts: factsOf(p.id) })),
      beats,
    };
    const packed = pack(candidates, { budget: request.budget, format: request.format, chapter: chapter?.externalId ?? null, count });
    return {
      chapter: chapter?.externalId ?? null,
      format: request.format,
      encoding: encodingName,
      budget: request.budget,
      tokens: packed.tokens,
      omitted: packed.omitted,
      ...(request.format === 'json' ? { content: packed.content } : { markdown: packed.rendering }),
    };
  }

  /** Entity ids given by the caller must be the project's: any other answers like a missing entity. */
  private async requireEntities(projectId: string, ids: string[]): Promise<void> {
    const found = new Set((await this.prisma.entity.findMany({ where: { projectId, id: { in: ids } }, select: { id: true } })).map((e) => e.id));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0) throw new LoreError('not_found', `Entity ${missing[0]} not found in project ${projectId}.`);
  }

  /** The approved entities the text names, most named first (then first named). */
  private async named(projectId: string, text: string): Promise<string[]> {
    const names = await this.prisma.$queryRaw<{ id: string; name: string; aliases: string[] }[]>`
      SELECT id, name, aliases FROM "Entity" WHERE "projectId" = ${projectId} AND status = 'approved'`;
    const finder = new MentionFinder(names.flatMap((e) => nameVariants([e.name, ...e.aliases]).map((t) => ({ entityId: e.id, text: t }))));
    const counts = new Map<string, number>();
    for (const m of finder.find(text)) counts.set(m.entityId, (counts.get(m.entityId) ?? 0) + 1);
    // Map keeps first-found order, and sort is stable: ties stay in the order the scene names them.
    return [...counts.keys()].sort((a, b) => counts.get(b)! - counts.get(a)!);
  }

  private entities(projectId: string, ids: string[]): Promise<EntityRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.prisma.entity.findMany({
      where: { projectId, id: { in: ids }, status: 'approved' },
      select: { id: true, type: true, name: true, aliases: true, state: true, baseState: true },
    });
  }

  /** Approved live facts holding at chapter ordinal `at` (else after the last chapter), by entity, in id order. */
  private async facts(entityIds: string[], at: number | undefined): Promise<Map<string, BriefFact[]>> {
    const byEntity = new Map<string, BriefFact[]>();
    if (entityIds.length === 0) return byEntity;
    const holds = at === undefined ? 'f."untilChapterId" IS NULL' : holdsSql('fc.ordinal', 'uc.ordinal', `${at}`);
    const rows = await this.prisma.$queryRawUnsafe<{ id: string; entityId: string; text: string }[]>(
      `SELECT f.id, f."entityId", f.text FROM "Fact" f
       LEFT JOIN "Chapter" fc ON fc.id = f."fromChapterId" LEFT JOIN "Chapter" uc ON uc.id = f."untilChapterId"
       WHERE f."entityId" = ANY($1::text[]) AND f.status = 'approved' AND f."retiredAt" IS NULL AND ${holds}
       ORDER BY f."entityId", f.id`,
      entityIds,
    );
    for (const r of rows) {
      const list = byEntity.get(r.entityId) ?? [];
      if (list.length < limits.factsPerEntity) list.push({ id: r.id, text: r.text });
      byEntity.set(r.entityId, list);
    }
    return byEntity;
  }

  /**
   * The project's approved rules, those the scene names first, then those sharing the most words with it (English
   * stemming), so a small project's every rule comes and a large one's most relevant.
   */
  private rules(projectId: string, text: string, named: string[]): Promise<EntityRow[]> {
    const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [])].slice(0, 200);
    return this.prisma.$queryRaw<EntityRow[]>`
      WITH q AS (SELECT to_tsquery('english', ${words.join(' | ') || 'nothing'}) AS tsq)
      SELECT e.id, e.type::text AS type, e.name, e.aliases, e.state, e."baseState" FROM "Entity" e, q
      WHERE e."projectId" = ${projectId} AND e.type = 'rule' AND e.status = 'approved'
      ORDER BY (e.id = ANY(${named}::text[])) DESC, ts_rank(to_tsvector('english', e."searchText"), q.tsq) DESC, e.id
      LIMIT ${limits.rules}::int`;
  }

  /** The approved promises the scene names or that a relationship ties to a named entity. */
  private async promises(projectId: string, named: string[], relationships: { fromId: string; toId: string }[]): Promise<EntityRow[]> {
    const ids = [...new Set([...named, ...relationships.flatMap((r) => [r.fromId, r.toId])])];
    if (ids.length === 0) return [];
    return this.prisma.entity.findMany({
      where: { projectId, id: { in: ids }, type: 'promise', status: 'approved' },
      select: { id: true, type: true, name: true, aliases: true, state: true, baseState: true },
      orderBy: { id: 'asc' },
      take: limits.promises,
    });
  }

  /** The beats of the last chapters before chapter ordinal `at` (all chapters without one), in story order. */
  private async beats(projectId: string, at: number | undefined): Promise<BriefBeat[]> {
    const chapters = await this.prisma.chapter.findMany({
      where: { projectId, ...(at === undefined ? {} : { ordinal: { lt: at } }), beats: { some: {} } },
      orderBy: [{ ordinal: 'desc' }, { id: 'desc' }],
      take: limits.beatChapters,
      select: { externalId: true, beats: { orderBy: { position: 'asc' }, take: limits.beatsPerChapter, select: { id: true, summary: true } } },
    });
    return chapters.reverse().flatMap((c) => c.beats.map((b) => ({ id: b.id, chapter: c.externalId, summary: b.summary })));
  }
}

/** The kin roles the text's words name ("brother", "wife"): the relatives of named characters it may mean. */
function rolesIn(text: string): Set<KinRole> {
  const roles = new Set<KinRole>();
  for (const word of new Set(text.toLowerCase().match(/\p{L}+/gu) ?? [])) {
    const kin = kinWord(word) ?? (word.endsWith('s') ? kinWord(word.slice(0, -1)) : undefined);
    if (kin) roles.add(kin[0]);
  }
  return roles;
}
