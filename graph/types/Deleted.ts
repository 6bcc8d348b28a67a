import type { Deleted as DeletedRecord } from '../../src/core/canon/authoring.ts';
import { builder } from '../builder.ts';

/** What a delete answers: the id of what is gone. */
export const Deleted = builder.objectRef<DeletedRecord>('Deleted').implement({
  description: 'The answer to a delete: the id of what was deleted.',
  fields: (t) => ({
    id: t.exposeID('id'),
    deleted: t.exposeBoolean('deleted', { description: 'always true' }),
  }),
});
