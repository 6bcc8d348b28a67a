import type { FactProvenance as Provenance } from '../../src/core/canon/overview.ts';
import { builder } from '../builder.ts';

export const FactProvenance = builder.objectRef<Provenance>('FactProvenance').implement({
  description: 'Where a fact came from: its proposal (who, when, from which passage) and the decision on it.',
  fields: (t) => ({
    candidateId: t.exposeID('candidateId'),
    proposedBy: t.exposeString('proposedBy', { description: 'the id of the key that proposed it' }),
    proposedAt: t.expose('proposedAt', { type: 'DateTime' }),
    content: t.exposeString('content', { nullable: true, description: 'the source passage' }),
    source: t.exposeString('source', { description: 'how it was proposed: "proposal", "import", "api", a chapter id' }),
    decision: t.exposeString('decision', { nullable: true, description: 'approved or rejected; null while pending' }),
    decidedBy: t.exposeString('decidedBy', { nullable: true, description: 'the id of the key that decided' }),
    decidedAt: t.expose('decidedAt', { type: 'DateTime', nullable: true }),
  }),
});
