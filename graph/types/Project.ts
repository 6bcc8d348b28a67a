import { builder } from '../builder.ts';

export const Project = builder.prismaObject('Project', {
  description: 'A work of fiction whose canon Lore keeps.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    lastUpdated: t.expose('updatedAt', { type: 'DateTime' }),
    entityCount: t.relationCount('entities'),
    conflictCount: t.relationCount('conflicts', { where: { status: 'pending' }, description: 'pending conflicts' }),
    pendingReviewCount: t.relationCount('candidates', { where: { status: 'pending' }, description: 'candidates waiting for review' }),
  }),
});
