// Ranked lexical search: full-text over names, aliases and approved facts, plus trigram word similarity over names
// and aliases (typos, partial names), in the lore_search function (prisma/migrations). Pages are keyed on (score, id),
// so the order is stable across pages. With an embedding provider, and vectors for the project, the ranking is hybrid
// (src/core/embeddings/hybrid.ts): fused in the statement that reads the page, and paged by position in the fused
// ranking, with the same cursor rules.
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Page } from './canon.ts';
import type { EntityReader, EntityRecord, Versioned, VersionRead } from './entities.ts';
import { LoreError } from '../errors.ts';
import { projectNotFound, type ProjectService } from './projects.ts';
import type { HybridRanker, SearchRanking } from '../embeddings/hybrid.ts';

// Lower than pg_trgm's default (0.6) so that a misspelt short name still matches: "Mra" for "Mara" shares 2 of 7
// trigrams (0.29). A query of several words has trigrams enough to be stricter; at 0.25 its common words ("the",
// "of") would match most names of a large project and make every search slow. `q <% nameText` (word_similarity at
// least the threshold) lets the trigram index find the name matches.
export const similarityFor = (q: string) => (/\s/.test(q.trim()) ? 0.5 : 0.25);

const ascii = /^[\x00-\x7f]*$/;

/**
 * Whether `word` (as to_tsvector('simple') makes it) could be a word of the query `q` (as lore_search's
 * websearch_to_tsquery('simple') reads it): each of those is a piece of `q` in lower case, so for ASCII text a word
 * that is not a piece of `q` in lower case is not one of them; beyond ASCII, case folding is the database's, so any
 * word could be. Undefined when `q` may negate a word (`-word`): such a query matches texts with none of its words.
 */
const mayBeWordOf = (q: string) => {
  if (q.includes('-')) return undefined;
  if (!ascii.test(q)) return () => true;
  const lower = q.toLowerCase();
  return (word: string) => !ascii.test(word) || lower.includes(word);
};

/** pg_trgm's trigrams of ASCII text: each run of letters and digits in lower case, two spaces before it and one after. */
const trigrams = (text: string): Set<string> => {
  const found = new Set<string>();
  for (const word of text.toLowerCase().split(/[^a-z0-9]+/)) {
    if (!word) continue;
    const padded = `  ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) found.add(padded.slice(i, i + 3));
  }
  return found;
};

/**
 * Whether names ("nameText") could be similar to the query `q` (lore_search's `q <% nameText`): word_similarity is 0
 * when the two share no trigram; beyond ASCII, trigrams are the database's, so any names could be.
 */
const mayBeLike = (q: string) => {
  if (!ascii.test(q)) return () => true;
  const mine = trigrams(q);
  return (nameText: string) => !ascii.test(nameText) || [...trigrams(nameText)].some((t) => mine.has(t));
};

/** `ranking`: how the page was ranked; `transient`: lexical only because the provider failed just now (not cached). */
export type SearchPage = Page<EntityRecord> & { ranking: SearchRanking; transient?: boolean };

export class SearchService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly entities: EntityReader,
    private readonly projects: ProjectService,
    /** present when an embedding provider is configured */
    private readonly hybrid?: HybridRanker,
  ) {}

  /** `version`: the request's read of the project's canon version (EntityReader.readVersion), when started earlier. */
  async search(
    accountId: string,
    projectId: string,
    q: string,
    limit: number,
    startingAfter?: string,
    version?: VersionRead,
  ): Promise<Versioned<SearchPage>> {
    const key = `${limit}\0${startingAfter ?? ''}\0${q}`;
    const read = () => this.read(accountId, projectId, q, limit, startingAfter);
    // The ranking stands (CanonChanges.droppedBy) and so do the page's cursor and links: only the entities are read again.
    const refresh = async (page: SearchPage, ids: string[]) => {
      const fresh = await this.entities.spliced(accountId, projectId, page.data, ids);
      return fresh && { page: { ...page, data: fresh.list }, version: fresh.version };
    };
    const found = await this.entities.cachedPage(
      accountId, projectId, 'search', key, read, (page) => page.data.map((e) => e.id), version, (page) => !page.transient,
      { name: mayBeLike(q), word: mayBeWordOf(q) }, refresh,
    );
    if (!found) throw projectNotFound(projectId);
    return found;
  }

  private async read(accountId: string, projectId: string, q: string, limit: number, startingAfter?: string): Promise<SearchPage | undefined> {
    const threshold = similarityFor(q);
    const ranked = await this.hybrid?.rank(accountId, projectId, q);
    if (ranked?.ranking === 'not_found') return undefined;
    if (ranked?.ranking === 'hybrid') {
      const found = await this.entities.hybridSearch(accountId, projectId, { q, threshold, ...ranked.search, startingAfter, limit });
      if (!found) return undefined;
      if (found.vectors) {
        if (!found.cursorFound) throw new LoreError('invalid_cursor', `starting_after ${startingAfter} is not a result of this search.`);
        return { data: found.data, hasMore: found.hasMore, nextStartingAfter: found.nextStartingAfter, ranking: 'hybrid' };
      }
    }
    const transient = ranked?.ranking === 'lexical' && ranked.transient;
    // The score travels as text: a JS number parameter is sent with 16 significant digits, so it would not compare
    // equal to the stored float8 and the cursor row would come back again.
    let after: { score: string; id: string } | undefined;
    if (startingAfter) {
      await this.projects.requireOwned(accountId, projectId);
      const [cursor] = await this.prisma.$queryRaw<{ score: string; id: string }[]>`
        WITH query AS (SELECT websearch_to_tsquery('simple', ${q}) AS tsq)
        SELECT e.id, (ts_rank(e."searchVector", query.tsq) + 2 * word_similarity(${q}, e."nameText"))::float8::text AS score
        FROM "Entity" e, query
        WHERE e."projectId" = ${projectId} AND e.id = ${startingAfter}
          AND (e."searchVector" @@ query.tsq OR word_similarity(${q}, e."nameText") >= ${threshold}::float8)`;
      if (!cursor) throw new LoreError('invalid_cursor', `starting_after ${startingAfter} is not a result of this search.`);
      after = cursor;
    }
    const found = await this.entities.search(accountId, projectId, { q, threshold, after, limit });
    if (!found) return undefined;
    const page = found.slice(0, limit);
    return {
      data: page,
      hasMore: found.length > limit,
      nextStartingAfter: found.length > limit ? page[page.length - 1].id : null,
      ranking: 'lexical',
      ...(transient && { transient }),
    };
  }
}
