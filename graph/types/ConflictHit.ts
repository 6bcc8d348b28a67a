import type { ConflictHit as Hit } from '../../src/core/conflicts/checker.ts';
import { conflictKinds, severities } from '../../src/core/conflicts/kinds.ts';
import { builder } from '../builder.ts';

export const ConflictSeverity = builder.enumType('ConflictSeverity', {
  values: severities,
  description: 'P1 breaks approved canon outright; P2 very likely contradicts it; P3 possible or minor',
});
export const ConflictKind = builder.enumType('ConflictKind', { values: conflictKinds });

export const ConflictHit = builder.objectRef<Hit>('ConflictHit').implement({
  description: 'A place where a passage contradicts the canon.',
  fields: (t) => ({
    id: t.exposeID('id'),
    severity: t.field({ type: ConflictSeverity, resolve: (h) => h.severity }),
    kind: t.field({ type: ConflictKind, resolve: (h) => h.kind }),
    episode: t.exposeString('episode', { nullable: true, description: 'chapter id where it happens' }),
    title: t.exposeString('title'),
    rationale: t.exposeString('rationale'),
    refs: t.exposeStringList('refs', { description: 'canon ids (entities, facts, relationships, beats) it cites' }),
  }),
});
