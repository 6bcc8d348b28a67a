import { builder } from '../builder.ts';
import { CitedCanon } from './CitedCanon.ts';

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
    cited: t.loadableList({
      type: CitedCanon,
      description: 'the canon refs names, in order, resolved (what each is, a label, the entity to open); refs naming nothing left out',
      resolve: (conflict) => JSON.stringify({ projectId: conflict.projectId, refs: conflict.refs }),
      load: (keys: string[], ctx) => ctx.services.overview.cited(keys.map((k) => JSON.parse(k) as { projectId: string; refs: string[] })),
    }),
    status: t.expose('status', { type: ConflictStatus }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});
