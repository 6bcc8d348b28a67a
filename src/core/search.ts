// Ranked lexical search: full-text over names, aliases and approved facts, plus trigram word similarity over names
// and aliases (typos, partial names). Pages are keyed on (score, id), so the order is stable across pages.
import type { PrismaClient } from '../generated/prisma/client.ts';
import { LoreError } from './errors.ts';

// Lower than pg_trgm's default (0.6) so that a misspelt short name still matches: "Mra" for "Mara" shares 2 of 7
// trigrams (0.29). A query of several words has trigrams enough to be stricter; at 0.25 its common words ("the",
// "of") would match most names of a large project and make every search slow.
const similarityFor = (q: string) => (/\s/.test(q.trim()) ? 0.5 : 0.25);

export type SearchPage = { ids: string[]; hasMore: boolean; nextStartingAfter: string | null };

export class SearchService {
  constructor(private readonly prisma: PrismaClient) {}

  async search(projectId: string, q: string, limit: number, startingAfter?: string): Promise<SearchPage> {
    const nameSimilarity = similarityFor(q);
    // The score travels as text: a JS number parameter is sent with 16 significant digits, so it would not compare
    // equal to the stored float8 and the cursor row would come back again.
    let after: { score: string; id: string } | undefined;
    if (startingAfter) {
      const [cursor] = await this.prisma.$queryRaw<{ score: string; id: string }[]>`
        WITH query AS (SELECT websearch_to_tsquery('simple', ${q}) AS tsq)
        SELECT e.id, (ts_rank(to_tsvector('simple', e."searchText"), query.tsq) + 2 * word_similarity(${q}, e."nameText"))::float8::text AS score
        FROM "Entity" e, query
        WHERE e."projectId" = ${projectId} AND e.id = ${startingAfter}
          AND (to_tsvector('simple', e."searchText") @@ query.tsq OR word_similarity(${q}, e."nameText") >= ${nameSimilarity}::float8)`;
      if (!cursor) throw new LoreError('invalid_cursor', `starting_after ${startingAfter} is not a result of this search.`);
      after = cursor;
    }
    // `q <% nameText` (word_similarity >= the threshold set for this transaction) lets the trigram index find the
    // name matches; the plain word_similarity comparison alone would be computed for every entity of the project.
    const [, rows] = await this.prisma.$transaction([
      this.prisma.$queryRaw`SELECT set_config('pg_trgm.word_similarity_threshold', ${String(nameSimilarity)}, true)`,
      this.prisma.$queryRaw<{ id: string }[]>`
      WITH query AS (SELECT websearch_to_tsquery('simple', ${q}) AS tsq),
      ranked AS (
        SELECT e.id, (ts_rank(to_tsvector('simple', e."searchText"), query.tsq) + 2 * word_similarity(${q}, e."nameText"))::float8 AS score
        FROM "Entity" e, query
        WHERE e."projectId" = ${projectId}
          AND (to_tsvector('simple', e."searchText") @@ query.tsq
            OR (${q} <% e."nameText" AND word_similarity(${q}, e."nameText") >= ${nameSimilarity}::float8))
      )
      SELECT id FROM ranked
      WHERE ${after === undefined}::boolean OR score < ${after?.score ?? '0'}::float8 OR (score = ${after?.score ?? '0'}::float8 AND id > ${after?.id ?? ''})
      ORDER BY score DESC, id ASC
      LIMIT ${limit + 1}::int`,
    ]);
    const page = rows.slice(0, limit).map((r) => r.id);
    return { ids: page, hasMore: rows.length > limit, nextStartingAfter: rows.length > limit ? page[page.length - 1] : null };
  }
}
