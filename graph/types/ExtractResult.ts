// What an extraction call did, chapter by chapter: what the writer's model proposed, what Lore matched or dropped.
import type { ExtractedChapter, ExtractResult as Result } from '../../src/core/ingest/manuscripts/extract.ts';
import { builder } from '../builder.ts';

export const ExtractionStatus = builder.enumType('ExtractionStatus', {
  values: ['asked', 'cached', 'empty'] as const,
  description: 'asked: the model read the chapter now; cached: this version of its text was read before; empty: it has no text',
});

const ExtractedChapterRef = builder.objectRef<ExtractedChapter>('ExtractedChapter').implement({
  fields: (t) => ({
    chapter: t.exposeString('chapter', { description: 'the chapter id' }),
    title: t.exposeString('title'),
    ordinal: t.exposeInt('ordinal'),
    status: t.expose('status', { type: ExtractionStatus }),
    entitiesProposed: t.exposeInt('entitiesProposed', { description: 'new entities proposed (suggested, pending review)' }),
    factsProposed: t.exposeInt('factsProposed', { description: 'facts proposed, about new or known entities' }),
    entitiesMatched: t.exposeInt('entitiesMatched', { description: 'entities the model named that Lore has (by name or alias)' }),
    promisesProposed: t.exposeInt('promisesProposed', { description: 'ledger lines proposed: promises the chapter sets up or pays off' }),
    dropped: t.exposeInt('dropped', { description: 'proposals left out: their quote is not in the chapter, or review refused them' }),
    candidateIds: t.exposeIDList('candidateIds', { description: 'the pending candidates recorded for this chapter' }),
  }),
});

export const ExtractResult = builder.objectRef<Result>('ExtractResult').implement({
  fields: (t) => ({
    projectId: t.exposeString('projectId'),
    chapters: t.field({ type: [ExtractedChapterRef], resolve: (r) => r.chapters }),
    candidateIds: t.exposeIDList('candidateIds', { description: 'every pending candidate this call recorded' }),
    entitiesProposed: t.exposeInt('entitiesProposed'),
    factsProposed: t.exposeInt('factsProposed'),
    promisesProposed: t.exposeInt('promisesProposed', { description: 'ledger lines proposed (setups and payoffs of promises)' }),
    dropped: t.exposeInt('dropped'),
    remainingChapters: t.exposeInt('remainingChapters', { description: 'chapters of the selection after this call; pass nextStartingAfter to go on' }),
    hasMore: t.exposeBoolean('hasMore'),
    nextStartingAfter: t.exposeString('nextStartingAfter', { nullable: true }),
  }),
});
