import type { EntityRelationship as Record } from '../../src/core/canon/canon.ts';
import { builder } from '../builder.ts';
import { EntityHeading } from './EntityHeading.ts';

export const RelationshipDirection = builder.enumType('RelationshipDirection', {
  values: { outgoing: { description: 'this entity is `kind` of other' }, incoming: { description: 'other is `kind` of this entity' } },
});

export const EntityRelationship = builder.objectRef<Record>('EntityRelationship').implement({
  description: 'A relationship seen from one of its entities, with the entity at the other end.',
  fields: (t) => ({
    id: t.exposeID('id'),
    kind: t.exposeString('kind'),
    weight: t.exposeFloat('weight'),
    direction: t.expose('direction', { type: RelationshipDirection }),
    other: t.field({ type: EntityHeading, resolve: (r) => r.other }),
  }),
});
