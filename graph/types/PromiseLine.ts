import type { LedgerLine } from '../../src/core/promises/ledger.ts';
import { promiseStatuses } from '../../src/core/ingest/bundle.ts';
import { builder } from '../builder.ts';

export const PromiseStatus = builder.enumType('PromiseStatus', { values: promiseStatuses, description: 'open (still owed), paid (paid off) or dropped' });

const InvolvedEntity = builder.objectRef<{ id: string; name: string }>('InvolvedEntity').implement({
  fields: (t) => ({ id: t.exposeID('id'), name: t.exposeString('name') }),
});

export const PromiseLine = builder.objectRef<LedgerLine>('PromiseLine').implement({
  description: "A promise's line in the ledger, as of a chapter.",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'the promise entity' }),
    name: t.exposeString('name'),
    approval: t.exposeString('approval', { description: 'approved canon, or only suggested' }),
    status: t.field({ type: PromiseStatus, description: 'as of the chapter asked about', resolve: (l) => l.status }),
    setUpIn: t.exposeString('set_up_in', { nullable: true, description: 'chapter id of its setup' }),
    paidOffIn: t.exposeString('paid_off_in', { nullable: true, description: 'chapter id of its payoff, when it comes by the chapter asked about' }),
    involves: t.field({ type: [InvolvedEntity], resolve: (l) => l.involves }),
    age: t.exposeInt('age', { nullable: true, description: 'chapters since its setup, up to the chapter asked about (else the last)' }),
    atRisk: t.exposeBoolean('at_risk', { description: 'open and older than the threshold' }),
    paidBeforeSetUp: t.exposeBoolean('paid_before_set_up', { description: 'its payoff chapter comes before its setup chapter' }),
  }),
});
