import type { ChapterName as Name } from '../../src/core/canon/overview.ts';
import { builder } from '../builder.ts';
import { EntityType } from './Entity.ts';

export const ChapterName = builder.objectRef<Name>('ChapterName').implement({
  description: "A name Lore recognises in a chapter's text: the entity, and where (1-based line and column) it is named by its name or an alias.",
  fields: (t) => ({
    entityId: t.exposeID('entityId'),
    canonicalName: t.exposeString('name'),
    aliases: t.exposeStringList('aliases'),
    type: t.expose('type', { type: EntityType }),
    line: t.exposeInt('line'),
    column: t.exposeInt('column'),
  }),
});
