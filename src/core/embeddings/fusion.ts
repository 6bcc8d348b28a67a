// Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): each ranking gives an item 1 / (k + rank), rank from 1,
// and an item's score is the sum over the rankings it is in. It needs no calibration between the lexical scores and
// the cosine distances, and an item both rankings place well beats one that only one of them finds. The fusion runs in
// the statement that reads the page (store.ts fusedRanking).

/** The usual constant: it keeps the first few ranks of one list from outweighing agreement between the lists. */
export const rrfK = 60;
