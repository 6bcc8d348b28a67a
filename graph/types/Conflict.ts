import { builder } from '../builder.ts';

export const ConflictStatus = builder.enumType('ConflictStatus', { values: ['pending', 'resolved', 'dismissed'] as const });

export const Conflict = builder.prismaObject('Conflict', {
  description: 'A stored conflict found by a check, pending until resolved or dismissed.',
  fields: (t) => ({
    id: t.exposeID('id'),
    severity: t.exposeString('severity'),
    kind: t.exposeString('kind'),
    episode: t.exposeString('episode', { nullable: true }),
    title: t.exposeString('title'),
    rationale: t.exposeString('rationale'),
    refs: t.exposeStringList('refs'),
    status: t.expose('status', { type: ConflictStatus }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});
