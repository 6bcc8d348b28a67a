import type { CitedCanon as Record } from '../../src/core/canon/overview.ts';
import { builder } from '../builder.ts';

export const CitedCanonKind = builder.enumType('CitedCanonKind', { values: ['entity', 'fact', 'relationship', 'beat'] as const });

export const CitedCanon = builder.objectRef<Record>('CitedCanon').implement({
  description: 'A canon id a conflict cites, resolved for a reader.',
  fields: (t) => ({
    id: t.exposeID('id'),
    kind: t.expose('kind', { type: CitedCanonKind }),
    label: t.exposeString('label', { description: "an entity's name, a fact's text, a relationship as from, kind and to, a beat's summary" }),
    entityId: t.exposeID('entityId', { nullable: true, description: "the entity to open for it: itself, the fact's, the relationship's from; null for a beat" }),
    chapter: t.exposeString('chapter', { nullable: true, description: "a beat's chapter id" }),
  }),
});
