// Work every request does against the database (key lookup, rate and quota counting, the canon version) is gathered
// per turn of the event loop and sent as one statement: under load a round trip is paid per batch, not per request.
// A batch leaves after every request in it arrived, so it sees every write committed before any of them.
import DataLoader from 'dataloader';
import { rows, type SqlClient, type Statement } from './sql.ts';

export function batched<K, V>(load: (keys: readonly K[]) => Promise<readonly (V | Error)[]>): DataLoader<K, V> {
  return new DataLoader(load, { cache: false, batchScheduleFn: (dispatch) => setImmediate(dispatch), maxBatchSize: 1000 });
}

/**
 * One row per key, looked up in batches: `statement` takes the distinct keys as its one text[] parameter and answers
 * each found row once; a key without a row gets null.
 */
export function batchedRows<R extends object>(sql: SqlClient, statement: Statement, keyOf: (row: R) => string): DataLoader<string, R | null> {
  return batched(async (keys) => {
    const found = new Map((await rows<R>(sql, statement, [[...new Set(keys)]])).map((row) => [keyOf(row), row]));
    return keys.map((key) => found.get(key) ?? null);
  });
}

/**
 * Settles the items of a batch group by group (the items sharing `keyOf`, in arrival order), the groups concurrently,
 * and spreads each group's answers back over its items; a group that fails fails its own items only.
 */
export async function settleGroups<T, V>(
  items: readonly T[],
  keyOf: (item: T) => string,
  settle: (group: T[]) => Promise<(V | Error)[]>,
): Promise<(V | Error)[]> {
  const groups = new Map<string, number[]>();
  items.forEach((item, index) => {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(index);
    else groups.set(key, [index]);
  });
  const outcomes: (V | Error)[] = new Array(items.length);
  await Promise.all(
    [...groups.values()].map(async (indexes) => {
      const answers = await settle(indexes.map((index) => items[index])).catch((error: Error) => indexes.map(() => error));
      indexes.forEach((index, position) => (outcomes[index] = answers[position]));
    }),
  );
  return outcomes;
}
