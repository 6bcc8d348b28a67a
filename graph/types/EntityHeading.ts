import type { EntityHeading as Heading, EntityList } from '../../src/core/canon/overview.ts';
import { builder } from '../builder.ts';
import { ApprovalStatus, EntityType } from './Entity.ts';

export const EntityHeading = builder.objectRef<Heading>('EntityHeading').implement({
  description: 'An entity without its facts and state: a line of a listing.',
  fields: (t) => ({
    id: t.exposeID('id'),
    canonicalName: t.exposeString('name'),
    type: t.expose('type', { type: EntityType }),
    aliases: t.exposeStringList('aliases'),
    approvalStatus: t.expose('status', { type: ApprovalStatus }),
  }),
});

export const EntityHeadingPage = builder.objectRef<EntityList>('EntityHeadingPage').implement({
  fields: (t) => ({
    data: t.field({ type: [EntityHeading], description: 'in name order', resolve: (page) => page.data }),
    total: t.exposeInt('total', { description: 'how many entities the listing has in all' }),
    hasMore: t.exposeBoolean('hasMore'),
    nextStartingAfter: t.exposeString('nextStartingAfter', { nullable: true }),
  }),
});
