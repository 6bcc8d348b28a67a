import type { ImportCounts, ImportResult as Result, SkippedRetiredFact } from '../../src/core/ingest/importer.ts';
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

const ReplacementFact = builder.objectRef<{ id: string; text: string }>('ReplacementFact').implement({
  fields: (t) => ({ id: t.exposeString('id'), text: t.exposeString('text') }),
});

export const SkippedRetiredFactRef = builder.objectRef<SkippedRetiredFact>('SkippedRetiredFact').implement({
  description: 'A fact of the bundle that the project retired since: not written again (reinstateRetired writes it)',
  fields: (t) => ({
    entity: t.exposeString('entity', { description: "the entity's key" }),
    text: t.exposeString('text'),
    retiredFactId: t.exposeString('retiredFactId'),
    retiredAt: t.field({ type: 'String', description: 'when it was retired (ISO 8601)', resolve: (f) => f.retiredAt.toISOString() }),
    replacedBy: t.field({ type: ReplacementFact, nullable: true, description: 'the retcon that replaced it; absent when it was retired without one', resolve: (f) => f.replacedBy }),
  }),
});

export const ImportResult = builder.objectRef<Result>('ImportResult').implement({
  fields: (t) => ({
    projectId: t.exposeString('projectId'),
    projectCreated: t.exposeBoolean('projectCreated'),
    changed: t.exposeBoolean('changed', { description: 'false when the bundle was already imported as it is' }),
    counts: t.field({ type: ImportCountsRef, resolve: (r) => r.counts }),
    retiredFactsSkipped: t.field({ type: [SkippedRetiredFactRef], description: 'facts of the bundle the project retired since, left retired', resolve: (r) => r.retiredFactsSkipped }),
  }),
});
