import type { ApproveResult as Result } from '../../src/core/canon/canon.ts';
import { builder } from '../builder.ts';

export const ApproveResult = builder.objectRef<Result>('ApproveResult').implement({
  fields: (t) => ({
    entityId: t.exposeString('entityId'),
    status: t.exposeString('status'),
    candidateId: t.exposeString('candidateId'),
    decisionId: t.exposeString('decisionId'),
  }),
});
