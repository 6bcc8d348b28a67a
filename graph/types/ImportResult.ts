import type { ImportCounts, ImportResult as Result } from '../../src/core/ingest/importer.ts';
import { builder } from '../builder.ts';

export const ImportCountsRef = builder.objectRef<ImportCounts>('ImportCounts').implement({
  fields: (t) => ({
    entitiesCreated: t.exposeInt('entitiesCreated'),
    entitiesUpdated: t.exposeInt('entitiesUpdated', { description: 'known entities whose fields or timed state values (stateChanges) changed' }),
    factsCreated: t.exposeInt('factsCreated'),
    factsUpdated: t.exposeInt('factsUpdated', { description: 'known facts whose story time (from, until) the bundle changed' }),
    relationshipsCreated: t.exposeInt('relationshipsCreated'),
    relationshipsUpdated: t.exposeInt('relationshipsUpdated'),
    chaptersCreated: t.exposeInt('chaptersCreated'),
    chaptersUpdated: t.exposeInt('chaptersUpdated'),
    mentionsRecorded: t.exposeInt('mentionsRecorded'),
    beatsRecorded: t.exposeInt('beatsRecorded'),
  }),
});

export const ImportResult = builder.objectRef<Result>('ImportResult').implement({
  fields: (t) => ({
    projectId: t.exposeString('projectId'),
    projectCreated: t.exposeBoolean('projectCreated'),
    changed: t.exposeBoolean('changed', { description: 'false when the bundle was already imported as it is' }),
    counts: t.field({ type: ImportCountsRef, resolve: (r) => r.counts }),
  }),
});
