import type { RelationshipRecord } from '../../src/core/canon/authoring.ts';
import { builder } from '../builder.ts';

export const Relationship = builder.objectRef<RelationshipRecord>('Relationship').implement({
  description: 'A relationship between two entities of a project: from is `kind` of to (for example sibling_of).',
  fields: (t) => ({
    id: t.exposeID('id'),
    from: t.exposeID('from', { description: 'entity id' }),
    to: t.exposeID('to', { description: 'entity id' }),
    kind: t.exposeString('kind'),
    weight: t.exposeFloat('weight'),
  }),
});
