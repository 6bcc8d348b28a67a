import type { LostAnchor as Lost } from '../../src/core/conflicts/canonSlice.ts';
import type { ChapterCheck as Check, ChapterHit as Hit } from '../../src/core/conflicts/chapterCheck.ts';
import { builder } from '../builder.ts';
import { ConflictKind, ConflictSeverity } from './ConflictHit.ts';

export const ChapterHit = builder.objectRef<Hit>('ChapterHit').implement({
  description: 'A place where a stored chapter contradicts the canon, with where it stands in the chapter.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'the pending conflict' }),
    severity: t.field({ type: ConflictSeverity, resolve: (h) => h.severity }),
    kind: t.field({ type: ConflictKind, resolve: (h) => h.kind }),
    title: t.exposeString('title'),
    rationale: t.exposeString('rationale'),
    refs: t.exposeStringList('refs', { description: 'canon ids it cites' }),
    line: t.exposeInt('line', { description: 'the line of the chapter (1-based) the quoted words begin on' }),
    start: t.exposeInt('start', { description: "the offset in the chapter's text of the quoted words' first character" }),
    end: t.exposeInt('end', { description: 'the offset just past their last character' }),
    quote: t.exposeString('quote', { description: 'the words of the chapter the hit stands on' }),
  }),
});

export const LostAnchor = builder.objectRef<Lost>('LostAnchor').implement({
  description: "A state change anchored in the chapter by a phrase that is no longer in its text: it was placed at the line it was given (or the chapter's start).",
  fields: (t) => ({
    entity: t.exposeID('entity'),
    key: t.exposeString('key', { description: 'the state key the change sets' }),
    anchor: t.exposeString('anchor'),
    line: t.exposeInt('line', { nullable: true }),
  }),
});

export const ChapterCheck = builder.objectRef<Check>('ChapterCheck').implement({
  description: 'A stored chapter checked in place by the deterministic core, each stretch as of its own line.',
  fields: (t) => ({
    chapter: t.exposeString('chapter'),
    words: t.exposeInt('words'),
    cached: t.exposeBoolean('cached', { description: 'answered from the last check of the same text and canon version' }),
    hits: t.field({ type: [ChapterHit], resolve: (c) => c.hits }),
    anchorsLost: t.field({ type: [LostAnchor], resolve: (c) => c.anchorsLost }),
  }),
});
