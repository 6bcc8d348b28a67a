import type { DeleteChapterResult as Result } from '../../src/core/canon/chapters.ts';
import { builder } from '../builder.ts';

export const DeleteChapterResult = builder.objectRef<Result>('DeleteChapterResult').implement({
  fields: (t) => ({
    id: t.exposeID('id', { description: 'the chapter id' }),
    deleted: t.exposeBoolean('deleted'),
  }),
});
