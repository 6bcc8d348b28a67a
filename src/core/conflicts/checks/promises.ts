// The promise ledger's plain case: a promise paid off before it is set up (its payoff chapter comes before its setup
// chapter in the reading order), flagged when the passage names the promise or stands in its payoff chapter. A hit
// cites the promise.
import type { ConflictDraft } from '../kinds.ts';
import type { Passage } from './passage.ts';

export function promisesPaidEarly(p: Passage): ConflictDraft[] {
  const hits: ConflictDraft[] = [];
  for (const promise of p.slice.promises) {
    const line = p.slice.ledger[promise.id];
    if (!line?.paid_before_set_up) continue;
    const named = p.refs.some((r) => r.entity.id === promise.id);
    const inPayoff = p.episode !== null && line.paid_off_in === p.episode;
    if (!named && !inPayoff) continue;
    hits.push({
      severity: 'P2',
      kind: 'promise_broken',
      episode: p.episode,
      title: `${promise.name} is paid off before it is set up`,
      rationale: `The ledger has ${promise.name} (${promise.id}) paid off in ${line.paid_off_in ?? 'an earlier chapter'} but set up only in ${line.set_up_in}: a payoff cannot come before its setup.`,
      refs: [promise.id],
    });
  }
  return hits;
}
