// The brief (issue 27): the canon that matters for a scene as of a point in the story, most important first, within a
// token budget. The scene's names are found as the conflict check finds them (MentionFinder over names and aliases,
// also without their article), relatives are added when the scene names them by a kin word ("her brother"), and
// state and facts are those holding at the chapter (approved and live only).
import { rows, statement, type SqlClient } from '../../db/sql.ts';
import { MentionFinder } from '../ingest/mentionFinder.ts';
import { placeOf, projectNames, type Derivation } from '../names/projectNames.ts';
import { nameVariants } from '../conflicts/canonSlice.ts';
import { heldKinship } from '../conflicts/reader/kin.ts';
import { kinWord, type KinRole } from '../conflicts/reader/lexicon.ts';
import { LoreError } from '../errors.ts';
import { holdsSql, stateAtSql, unknownChapter } from '../canon/storyTime.ts';
import type { Omitted } from './omitted.ts';
import { pack } from './pack.ts';
import { knowledgeAt } from '../knowledge/knowledge.ts';
import type { BriefBeat, BriefContent, BriefEntity, BriefFact, BriefFormat, BriefKnowledge, BriefNeighbour, BriefPromise, BriefRelationship, BriefRule, NamedBy } from './render.ts';
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

type EntityRow = { id: string; type: string; name: string; aliases: string[]; state: Record<string, unknown>; facts: BriefFact[] };

/**
 * SQL: the entity columns a brief shows, `e` being an "Entity" row: its state at chapter ordinal $2 (timed) or after
 * the last chapter, and, where `factsWhen` holds, its approved live facts holding there, by id.
 */
const entityColumns = (timed: boolean, factsWhen: string) => `e.id, e.type::text AS type, e.name, e.aliases,
  ${timed ? stateAtSql('e', '$2::int') : 'e.state'} AS state,
  CASE WHEN ${factsWhen} THEN COALESCE((
    SELECT json_agg(json_build_object('id', f.id, 'text', f.text) ORDER BY f.id) FROM (
      SELECT f.id, f.text FROM "Fact" f
      LEFT JOIN "Chapter" fc ON fc.id = f."fromChapterId" LEFT JOIN "Chapter" uc ON uc.id = f."untilChapterId"
      WHERE f."entityId" = e.id AND f.status = 'approved' AND f."retiredAt" IS NULL
        AND ${timed ? holdsSql('fc.ordinal', 'uc.ordinal', '$2::int') : '$2::int IS NULL AND f."untilChapterId" IS NULL'}
      ORDER BY f.id LIMIT ${limits.factsPerEntity}) f), '[]'::json) ELSE '[]'::json END AS facts`;

/**
 * A statement in two forms: at a chapter, $2 its ordinal, and after the last chapter, $2 null (which that form's facts
 * condition states, as PostgreSQL must know every parameter's type).
 */
const twoWays = (name: string, text: (columns: (factsWhen: string) => string) => string) => ({
  timed: statement(`brief_${name}_at`, text((factsWhen) => entityColumns(true, factsWhen))),
  latest: statement(`brief_${name}_latest`, text((factsWhen) => entityColumns(false, factsWhen))),
});

const statements = {
  // The project's names version, and the chapter asked for ($2; null: none)
  point: statement('brief_names_point', `SELECT p."namesVersion"::text AS version, c."externalId", c.ordinal
    FROM "Project" p LEFT JOIN "Chapter" c ON c."projectId" = p.id AND c."externalId" = $2 WHERE p.id = $1`),
  given: statement('brief_given', `SELECT id FROM "Entity" WHERE "projectId" = $1 AND id = ANY($2::text[])`),
  // Which of the entities $2 are approved (the kept names are every entity's, and an approval changes no name)
  approved: statement('brief_approved', `SELECT id FROM "Entity" WHERE "projectId" = $1 AND id = ANY($2::text[]) AND status = 'approved'`),
  relationships: statement(
    'brief_relationships',
    `SELECT id, "fromId", "toId", kind FROM "Relationship" WHERE "projectId" = $1 AND ("fromId" = ANY($2::text[]) OR "toId" = ANY($2::text[])) ORDER BY id`,
  ),
  // $3: the ids whose facts are read, $4: the ids read
  entities: twoWays('entities', (columns) => `SELECT ${columns('e.id = ANY($3::text[])')} FROM "Entity" e
    WHERE e."projectId" = $1 AND e.id = ANY($4::text[]) AND e.status = 'approved'`),
  // The rules the scene names first, then those sharing the most words with it (English stemming): a small
  // project's every rule, a large one's most relevant; their columns are read by `entities` (this statement alone
  // plans in a fraction of the time: PostgreSQL kept planning the two together afresh on every call).
  // $2: the named ids, $3: the scene's words as an OR query
  rules: statement('brief_rules', `WITH q AS (SELECT to_tsquery('english', $3) AS tsq)
    SELECT e.id FROM "Entity" e, q
    WHERE e."projectId" = $1 AND e.type = 'rule' AND e.status = 'approved'
    ORDER BY (e.id = ANY($2::text[])) DESC, ts_rank(e."relevanceVector", q.tsq) DESC, e.id
    LIMIT ${limits.rules}`),
  // The promises open at the chapter (set up by then, not paid off or dropped) that the scene names, that a
  // relationship ties to a named entity, or whose ledger line involves one. $3: the named ids and their neighbours,
  // $4: the named ids.
  promises: twoWays('promises', (columns) => `SELECT ${columns('TRUE')}, sc."externalId" AS set_up_in,
      CASE WHEN sc.id IS NULL THEN NULL ELSE (SELECT count(*)::int FROM "Chapter" c
        WHERE c."projectId" = $1 AND c.ordinal > sc.ordinal AND ($2::int IS NULL OR c.ordinal <= $2::int)) END AS age
    FROM "Entity" e LEFT JOIN "PromiseLedger" l ON l."entityId" = e.id
    LEFT JOIN "Chapter" sc ON sc.id = l."setUpChapterId" LEFT JOIN "Chapter" pc ON pc.id = l."paidOffChapterId"
    WHERE e."projectId" = $1 AND e.type = 'promise' AND e.status = 'approved' AND (e.id = ANY($3::text[]) OR l.involves && $4::text[])
      AND COALESCE(l.status, 'open') <> 'dropped' AND NOT (l.status = 'paid' AND pc.id IS NULL)
      AND ($2::int IS NULL OR sc.ordinal IS NULL OR sc.ordinal <= $2::int)
      AND (pc.ordinal IS NULL OR ($2::int IS NOT NULL AND pc.ordinal > $2::int))
    ORDER BY sc.ordinal NULLS FIRST, e.id LIMIT ${limits.promises}`),
  beats: statement('brief_beats', `
    SELECT b.id, c."externalId" AS chapter, b.summary FROM (
      SELECT c.id, c."externalId", c.ordinal FROM "Chapter" c
      WHERE c."projectId" = $1 AND ($2::int IS NULL OR c.ordinal < $2::int) AND EXISTS (SELECT 1 FROM "Beat" x WHERE x."chapterId" = c.id)
      ORDER BY c.ordinal DESC, c.id DESC LIMIT ${limits.beatChapters}
    ) c CROSS JOIN LATERAL (SELECT id, summary, position FROM "Beat" WHERE "chapterId" = c.id ORDER BY position LIMIT ${limits.beatsPerChapter}) b
    ORDER BY c.ordinal, c.id, b.position`),
};

type RelationshipRow = { id: string; fromId: string; toId: string; kind: string };

/** A project's entities by the leading word of their names and aliases (see leadingWord), in id order. */
type NameIndex = Map<string, NameEntry[]>;
type NameEntry = { id: string; names: string[] };

/** The leading words of an entity's names, each once. */
const leadingWords = (entry: NameEntry) => new Set(entry.names.map(leadingWord));

/**
 * The name index of a project's names, made once per names version beside the kept names (src/core/names): reading and
 * indexing a large project's names cost most of a brief. After a change of some entities' names it is patched: their
 * words' lists alone are copied and changed, the rest shared with the index before.
 */
const nameIndex: Derivation<NameIndex> = {
  build: (entities) => {
    const byWord: NameIndex = new Map();
    for (const e of entities) {
      const entry = { id: e.id, names: [e.name, ...e.aliases] };
      for (const word of leadingWords(entry)) {
        const list = byWord.get(word);
        if (!list) byWord.set(word, [entry]);
        else list.push(entry);
      }
    }
    return byWord;
  },
  patch: (index, { changed }) => {
    const byWord = new Map(index);
    const copied = new Set<string>();
    const listOf = (word: string) => {
      if (!copied.has(word)) {
        copied.add(word);
        byWord.set(word, [...(byWord.get(word) ?? [])]);
      }
      return byWord.get(word)!;
    };
    for (const { id, before, after } of changed) {
      if (before) {
        for (const word of leadingWords({ id, names: [before.name, ...before.aliases] })) {
          const list = listOf(word);
          const at = list.findIndex((e) => e.id === id);
          if (at >= 0) list.splice(at, 1);
        }
      }
      if (after) {
        const entry = { id, names: [after.name, ...after.aliases] };
        for (const word of leadingWords(entry)) {
          const list = listOf(word);
          list.splice(placeOf(list, id).at, 0, entry);
        }
      }
    }
    for (const word of copied) if (byWord.get(word)!.length === 0) byWord.delete(word);
    return byWord;
  },
};

export class BriefService {
  constructor(private readonly sql: SqlClient) {}

  async brief(request: BriefRequest): Promise<Brief> {
    const { projectId } = request;
    const given = [...new Set(request.entityIds ?? [])];
    const [point, tokens] = await Promise.all([
      this.point(projectId, request.chapter),
      tokenCounter(),
      given.length > 0 ? this.requireEntities(projectId, given) : undefined,
    ]);
    const { chapter } = point;
    const found = request.text ? await this.named(projectId, point.version, request.text) : [];
    const at = chapter?.ordinal ?? null;
    const namedBy = new Map<string, NamedBy>(given.map((id) => [id, 'id']));
    for (const id of found) if (!namedBy.has(id)) namedBy.set(id, 'text');
    // The tracked facts (who knows what) are read beside the canon around the named entities, not after it.
    const [{ relationships, neighbourIds, entityRows, ruleRows, promiseRows, beats }, knows] = await Promise.all([
      this.around(projectId, at, namedBy, request.text),
      namedBy.size > 0 ? knowledgeAt(this.sql, projectId, at === null ? undefined : { ordinal: at }, null) : undefined,
    ]);
    const named = [...namedBy.keys()];
    const isNamed = (id: string) => namedBy.has(id);
    const byId = new Map(entityRows.map((e) => [e.id, e]));
    const namedRows = named.map((id) => byId.get(id)).filter((e): e is EntityRow => e !== undefined);
    // Who knows what: only characters with tracked facts on either side are listed.
    const characters = namedRows.filter((e) => e.type === 'character').map(({ id, name }) => ({ id, name }));
    const knowledge = (knows ? characters.map(knows) : [])
      .filter((k) => k.knows.length > 0 || k.unaware.length > 0)
      .map((k): BriefKnowledge => ({
        id: k.entity.id,
        name: k.entity.name,
        knows: k.knows.map(({ id, text }) => ({ id, text })),
        unaware: k.unaware.map(({ id, text }) => ({ id, text })),
      }));
    // Rules and promises have sections of their own.
    const neighbourRows = neighbourIds
      .map((id) => byId.get(id))
      .filter((e): e is EntityRow => e !== undefined && e.type !== 'rule' && e.type !== 'promise')
      .slice(0, limits.neighbours);
    const present = new Set(entityRows.map((e) => e.id));
    const relationship = (r: RelationshipRow): BriefRelationship => ({ id: r.id, from: r.fromId, kind: r.kind, to: r.toId });

    const candidates: BriefContent = {
      entities: namedRows.map((e): BriefEntity => ({ id: e.id, type: e.type, name: e.name, aliases: e.aliases, state: e.state, named_by: namedBy.get(e.id)!, facts: e.facts })),
      relationships: relationships.filter((r) => isNamed(r.fromId) && isNamed(r.toId) && present.has(r.fromId) && present.has(r.toId)).map(relationship),
      neighbours: neighbourRows.map(
        (n): BriefNeighbour => ({
          id: n.id,
          type: n.type,
          name: n.name,
          state: n.state,
          relationships: relationships.filter((r) => (r.fromId === n.id || r.toId === n.id) && present.has(r.fromId) && present.has(r.toId)).map(relationship),
        }),
      ),
      rules: ruleRows.map((r): BriefRule => ({ id: r.id, name: r.name, facts: r.facts })),
      promises: promiseRows.map((p): BriefPromise => ({ id: p.id, name: p.name, set_up_in: p.set_up_in, age: p.age, facts: p.facts })),
      knowledge,
      beats,
    };
    const packed = pack(candidates, { budget: request.budget, format: request.format, chapter: chapter?.externalId ?? null, tokens });
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

  /**
   * The canon around the named entities, at chapter ordinal `at` (null: after the last chapter): their relationships,
   * then the relatives the text names by a kin word (added to `namedBy`), the named entities and their one-step
   * neighbours, the rules, the open promises and the last beats, read at once.
   */
  private async around(projectId: string, at: number | null, namedBy: Map<string, NamedBy>, text: string | undefined) {
    // Relationships of the named entities: kinship the scene's kin words point along, and the one-step neighbours.
    const relationships = namedBy.size ? await rows<RelationshipRow>(this.sql, statements.relationships, [projectId, [...namedBy.keys()]]) : [];
    const kinRoles = text ? rolesIn(text) : new Set<KinRole>();
    if (kinRoles.size > 0) {
      const edges = relationships.map((r) => ({ id: r.id, from: r.fromId, to: r.toId, kind: r.kind }));
      for (const held of heldKinship(edges)) {
        if (namedBy.has(held.of) && namedBy.get(held.of) !== 'kin' && !namedBy.has(held.who) && kinRoles.has(held.kin.role)) namedBy.set(held.who, 'kin');
      }
    }
    const named = [...namedBy.keys()];
    const neighbourIds = [...new Set(relationships.flatMap((r) => [r.fromId, r.toId]).filter((id) => !namedBy.has(id)))];
    const words = [...new Set(text?.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [])].slice(0, 200);
    const way = at === null ? 'latest' : 'timed';
    const [entityRows, ruleRows, promiseRows, beats] = await Promise.all([
      named.length + neighbourIds.length ? rows<EntityRow>(this.sql, statements.entities[way], [projectId, at, named, [...named, ...neighbourIds]]) : [],
      this.rules(projectId, at, named, words),
      rows<EntityRow & { set_up_in: string | null; age: number | null }>(this.sql, statements.promises[way], [projectId, at, [...named, ...neighbourIds], named]),
      rows<BriefBeat>(this.sql, statements.beats, [projectId, at]),
    ]);
    return { relationships, neighbourIds, entityRows, ruleRows, promiseRows, beats };
  }

  /** The most relevant rules (see statements.rules), with their state and facts at `at`, most relevant first. */
  private async rules(projectId: string, at: number | null, named: string[], words: string[]): Promise<EntityRow[]> {
    const ids = (await rows<{ id: string }>(this.sql, statements.rules, [projectId, named, words.join(' | ') || 'nothing'])).map((r) => r.id);
    if (ids.length === 0) return [];
    const read = new Map((await rows<EntityRow>(this.sql, statements.entities[at === null ? 'latest' : 'timed'], [projectId, at, ids, ids])).map((e) => [e.id, e]));
    return ids.map((id) => read.get(id)).filter((e): e is EntityRow => e !== undefined);
  }

  /** The project's names version, and the chapter asked for (which must be the project's). */
  private async point(projectId: string, chapterId: string | undefined): Promise<{ version: string; chapter?: { externalId: string; ordinal: number } }> {
    const [found] = await rows<{ version: string; externalId: string | null; ordinal: number | null }>(this.sql, statements.point, [projectId, chapterId ?? null]);
    // The project exists (its access was checked): only the chapter can be missing.
    if (chapterId !== undefined && !found?.externalId) throw unknownChapter(chapterId, 'chapter');
    return { version: found?.version ?? '', ...(found?.externalId ? { chapter: { externalId: found.externalId, ordinal: found.ordinal! } } : {}) };
  }

  /** Entity ids given by the caller must be the project's: any other answers like a missing entity. */
  private async requireEntities(projectId: string, ids: string[]): Promise<void> {
    const found = new Set((await rows<{ id: string }>(this.sql, statements.given, [projectId, ids])).map((e) => e.id));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0) throw new LoreError('not_found', `Entity ${missing[0]} not found in project ${projectId}.`);
  }

  /**
   * The approved entities the text names, most named first (then first named). Only the entities whose name's leading
   * word the text has are given to the finder: building it for a whole large project cost more than the rest of a brief.
   */
  private async named(projectId: string, version: string, text: string): Promise<string[]> {
    const index = (await projectNames(this.sql, projectId, version))?.derived(nameIndex) ?? new Map();
    const candidates = [...new Set([...new Set(text.toLowerCase().match(wordPattern))].flatMap((word) => index.get(word) ?? []))].sort((a, b) => (a.id < b.id ? -1 : 1));
    const approved = candidates.length ? new Set((await rows<{ id: string }>(this.sql, statements.approved, [projectId, candidates.map((e) => e.id)])).map((e) => e.id)) : new Set();
    const likely = candidates.filter((e) => approved.has(e.id));
    const finder = new MentionFinder(likely.flatMap((e) => nameVariants(e.names).map((t) => ({ entityId: e.id, text: t }))));
    const counts = new Map<string, number>();
    for (const m of finder.find(text)) counts.set(m.entityId, (counts.get(m.entityId) ?? 0) + 1);
    // Map keeps first-found order, and sort is stable: ties stay in the order the scene names them.
    return [...counts.keys()].sort((a, b) => counts.get(b)! - counts.get(a)!);
  }
}

const wordPattern = /[\p{L}\p{N}]+/gu;
const articles = new Set(['the', 'a', 'an']);
/** wordPattern, for reading a name's first two words only (run for every name of the project) */
const nameWord = /[\p{L}\p{N}]+/gu;

/** The word a name cannot be found without: its first, or the one after a leading article ("the Abbess"). */
function leadingWord(name: string): string {
  const lower = name.toLowerCase();
  nameWord.lastIndex = 0;
  const first = nameWord.exec(lower)?.[0] ?? '';
  return (articles.has(first) && nameWord.exec(lower)?.[0]) || first;
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
