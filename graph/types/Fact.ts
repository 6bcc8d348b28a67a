import { builder } from '../builder.ts';
import { ApprovalStatus } from './Entity.ts';

export const Fact = builder.prismaObject('Fact', {
  description: 'A statement about an entity, with where it came from.',
  fields: (t) => ({
    id: t.exposeID('id'),
    text: t.exposeString('text'),
    status: t.expose('status', { type: ApprovalStatus }),
    source: t.exposeString('source'),
    candidateId: t.exposeString('candidateId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});
