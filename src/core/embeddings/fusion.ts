// Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): each ranking gives an item 1 / (k + rank), rank from 1,
// and an item's score is the sum over the rankings it is in. It needs no calibration between the lexical scores and
// the cosine distances, and an item both rankings place well beats one that only one of them finds.

/** The usual constant: it keeps the first few ranks of one list from outweighing agreement between the lists. */
export const rrfK = 60;

/** Ids by fused score, best first; equal scores by id, so the order (and so the pages) are stable. */
export function fuseRankings(rankings: readonly (readonly string[])[]): string[] {
  const scores = new Map<string, number>();
  for (const ranking of rankings) ranking.forEach((id, index) => scores.set(id, (scores.get(id) ?? 0) + 1 / (rrfK + index + 1)));
  return [...scores.entries()].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0)).map(([id]) => id);
}
