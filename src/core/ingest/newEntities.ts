// The rows of entities a project does not have yet, built from the bundle alone: no read of the project is needed to
// write them. Shared by the import of a new project (stagedImport.ts) and by a large import's entities that are new
// to an existing project (importer.ts), which writes each slice of them in one transaction of a few set inserts.
import { newId } from '../../ids.ts';
import { nameText, type TxClient } from '../canon/canon.ts';
import { recomputeLatestState } from '../canon/storyTime.ts';
import { bundleFactOf, type CanonBundle } from './bundle.ts';
import { insertTogether, type Row } from './rows.ts';

export type BundleEntity = CanonBundle['entities'][number];

export type NewEntityRows = {
  entities: (Row<'Entity'> & { id: string; key: string; type: BundleEntity['type']; name: string; aliases: string[] })[];
  /** each fact's provenance: a candidate, and for an approved fact the importing key's decision */
  candidates: Row<'Candidate'>[];
  decisions: Row<'Decision'>[];
  facts: Row<'Fact'>[];
  values: Row<'StateValue'>[];
  /** the entities with timed state values, whose latest state is derived from them once they are written */
  timed: string[];
};

/** `chapterId`: the stored id of a chapter the bundle names (its spans were checked against the project's chapters). */
export function newEntityRows(
  projectId: string,
  keyId: string,
  entities: BundleEntity[],
  chapterId: (externalId: string | undefined) => string | null,
): NewEntityRows {
  const rows: NewEntityRows = { entities: [], candidates: [], decisions: [], facts: [], values: [], timed: [] };
  const spanOf = (from?: string, until?: string) => ({ fromChapterId: chapterId(from), untilChapterId: chapterId(until) });
  for (const e of entities) {
    const entityId = newId('ent');
    const names = nameText(e.name, e.aliases);
    const approved: string[] = [];
    const seen = new Set<string>();
    for (const item of e.facts) {
      const { text, from, until, status } = bundleFactOf(item, e.status);
      // The bundle's check made a repeated text say the same thing.
      if (seen.has(text)) continue;
      seen.add(text);
      const candidateId = newId('cnd');
      rows.candidates.push({ id: candidateId, projectId, entityId, fact: text, source: 'import', proposedBy: keyId, status: status === 'approved' ? 'approved' : 'pending' });
      if (status === 'approved') {
        rows.decisions.push({ id: newId('dec'), candidateId, status: 'approved', decidedBy: keyId });
        approved.push(text);
      }
      rows.facts.push({ id: newId('fct'), projectId, entityId, text, status, source: 'import', candidateId, createdBy: keyId, ...spanOf(from, until) });
    }
    // What refreshSearchText would write: the names, then the approved facts by id, which is the order drawn here
    // (ids are monotonic ULIDs); written with the row, the entity's search index is not updated a second time.
    const searchText = approved.length > 0 ? `${names}\n${approved.join('\n')}` : names;
    rows.entities.push({
      id: entityId, projectId, key: e.key, type: e.type, name: e.name, aliases: e.aliases, baseState: e.state, state: e.state,
      status: e.status, confidence: e.confidence ?? null, nameText: names, searchText,
    });
    if (e.stateChanges?.length) {
      rows.timed.push(entityId);
      for (const change of e.stateChanges) {
        for (const [key, value] of Object.entries(change.state)) {
          rows.values.push({ id: newId('stv'), projectId, entityId, key, value, ...spanOf(change.from, change.until), fromLine: change.line ?? null, fromAnchor: change.anchor ?? null });
        }
      }
    }
  }
  return rows;
}

/** Writes `rows` whole in the caller's transaction, parents first, and derives the latest state of the timed entities. */
export async function insertNewEntities(tx: TxClient, rows: NewEntityRows): Promise<void> {
  await insertTogether(tx, [
    { table: 'Entity', rows: rows.entities },
    { table: 'Candidate', rows: rows.candidates },
    { table: 'Decision', rows: rows.decisions },
    { table: 'Fact', rows: rows.facts },
    { table: 'StateValue', rows: rows.values },
  ]);
  await recomputeLatestState(tx, rows.timed);
}
