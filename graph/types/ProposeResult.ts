// What propose takes and answers: the entity the proposal is about, the candidates it recorded, and what the canon
// already said.
import type { ProposeResult as Result } from '../../src/core/canon/review.ts';
import { maxProposedFacts } from '../../src/core/canon/reviewRules.ts';
import { builder } from '../builder.ts';
import { Candidate } from './Candidate.ts';
import { ApprovalStatus, EntityType } from './Entity.ts';
import { KnowerInput } from './KnowerInput.ts';
import { PromiseStatus } from './PromiseLine.ts';

export const ProposedFactInput = builder.inputType('ProposedFactInput', {
  fields: (t) => ({
    text: t.string({ required: true, description: 'one self-contained statement' }),
    from: t.string({ description: 'chapter id it holds from (inclusive)' }),
    until: t.string({ description: 'chapter id it holds until (exclusive)' }),
    knownBy: t.field({ type: [KnowerInput], description: 'who knows it, from when: then only they know it (each from their point); kept on the suggested fact, canon once approved' }),
    secret: t.boolean({ description: 'nobody knows it until someone learns it (knownBy)' }),
  }),
});

export const ProposedPromiseInput = builder.inputType('ProposedPromiseInput', {
  description: "A promise's ledger line, proposed; written to the ledger when the candidate is approved.",
  fields: (t) => ({
    setUpIn: t.string({ description: 'the chapter id that sets it up' }),
    paidOffIn: t.string({ description: 'the chapter id that pays it off (the promise is then paid, unless status says otherwise)' }),
    involves: t.idList({ description: 'entities it involves (added to those it involves already)' }),
    status: t.field({ type: PromiseStatus, description: "the promise's status once approved: open, paid, or dropped (the story gives it up)" }),
  }),
});

export const ProposeInput = builder.inputType('ProposeInput', {
  fields: (t) => ({
    entityId: t.id({ description: 'a known entity; or give name' }),
    name: t.string({ description: "an entity's exact name or alias (case-insensitive), or the name of a new entity" }),
    type: t.field({ type: EntityType, description: 'required when the name is new' }),
    aliases: t.stringList({ description: 'a new entity only' }),
    facts: t.field({ type: [ProposedFactInput], description: `0..${maxProposedFacts}; at least one about a known entity` }),
    promise: t.field({
      type: ProposedPromiseInput,
      description: 'a promise only: its ledger line (a new promise), or a change to it (a known promise: one candidate of kind promise, facts optional)',
    }),
    content: t.string({ description: 'the source text, as provenance' }),
    approve: t.boolean({ description: 'approve what is recorded at once (default false): only when the author says so' }),
  }),
});

const ProposedEntity = builder.objectRef<Result['entity']>('ProposedEntity').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    status: t.expose('status', { type: ApprovalStatus }),
    isNew: t.exposeBoolean('isNew', { description: 'created by this proposal' }),
  }),
});

export const ProposeResult = builder.objectRef<Result>('ProposeResult').implement({
  fields: (t) => ({
    entity: t.field({ type: ProposedEntity, resolve: (r) => r.entity }),
    candidates: t.field({ type: [Candidate], description: 'the candidates recorded (pending, or approved with approve)', resolve: (r) => r.candidates }),
    alreadyCanon: t.exposeIDList('alreadyCanon', { description: 'live facts of the entity that already say a proposed text: nothing was recorded for them' }),
  }),
});
