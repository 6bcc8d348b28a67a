import type { ImportCounts, ImportResult as Result } from '../../src/core/ingest/importer.ts';
import { builder } from '../builder.ts';

const ImportCountsRef = builder.objectRef<ImportCounts>('ImportCounts').implement({
  fields: (t) => ({
    entitiesCreated: t.exposeInt('entitiesCreated'),
    entitiesUpdated: t.exposeInt('entitiesUpdated'),
    factsCreated: t.exposeInt('factsCreated'),
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
