// A proposed change to the canon (the review queue), with the facts it proposes and the decision taken on it.
import type { Page } from '../../src/core/canon/canon.ts';
import type { CandidateDecision as DecisionRecord, CandidateRecord, ProposedFact as ProposedFactRecord } from '../../src/core/canon/review.ts';
import { candidateKinds, candidateStatuses, decisionChoices } from '../../src/core/canon/reviewRules.ts';
import { builder } from '../builder.ts';
import { FactKnower } from './KnowerInput.ts';
import { PromiseStatus } from './PromiseLine.ts';

export const CandidateKind = builder.enumType('CandidateKind', { values: candidateKinds, description: 'a fact about a known entity, a new entity, or a change to a known promise\'s ledger line' });
export const CandidateStatus = builder.enumType('CandidateStatus', { values: candidateStatuses });
export const DecisionChoice = builder.enumType('DecisionChoice', { values: decisionChoices });
export const DecisionStatus = builder.enumType('DecisionStatus', { values: ['approved', 'rejected'] as const });
export const ProposedFactStatus = builder.enumType('ProposedFactStatus', {
  values: ['suggested', 'approved', 'rejected'] as const,
  description: 'what the review made of a proposed fact: suggested while its candidate is pending',
});

export const ProposedFact = builder.objectRef<ProposedFactRecord>('ProposedFact').implement({
  description: 'A fact a candidate proposes.',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: true, description: 'the fact, while it exists (a rejected one is removed)' }),
    text: t.exposeString('text'),
    from: t.exposeString('from', { nullable: true, description: 'chapter id it holds from (inclusive)' }),
    until: t.exposeString('until', { nullable: true, description: 'chapter id it holds until (exclusive)' }),
    status: t.expose('status', { type: ProposedFactStatus }),
    secret: t.exposeBoolean('secret', { description: 'nobody knows it until someone learns it (knownBy)' }),
    knownBy: t.field({ type: [FactKnower], description: 'who knows it, from when; empty and not secret: common knowledge', resolve: (f) => f.knownBy }),
  }),
});

export const ProposedPromise = builder.objectRef<NonNullable<CandidateRecord['promise']>>('ProposedPromise').implement({
  description: "A promise's ledger line as proposed: written to the ledger on approval.",
  fields: (t) => ({
    setUpIn: t.exposeString('setUpIn', { nullable: true, description: 'the chapter id that sets it up' }),
    paidOffIn: t.exposeString('paidOffIn', { nullable: true, description: 'the chapter id that pays it off' }),
    involves: t.idList({ description: 'ids of the entities it involves', resolve: (p) => p.involves ?? [] }),
    status: t.field({ type: PromiseStatus, nullable: true, description: 'the status it gives the promise (absent: paid with a payoff, else as it was)', resolve: (p) => p.status ?? null }),
  }),
});

export const CandidateDecision = builder.objectRef<DecisionRecord>('CandidateDecision').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    status: t.expose('status', { type: DecisionStatus }),
    reason: t.exposeString('reason', { nullable: true }),
    decidedBy: t.exposeString('decidedBy', { description: 'the id of the key that decided' }),
    decidedAt: t.expose('decidedAt', { type: 'DateTime' }),
  }),
});

export const Candidate = builder.objectRef<CandidateRecord>('Candidate').implement({
  description: 'A proposal to the canon: pending until someone approves or rejects it.',
  fields: (t) => ({
    id: t.exposeID('id'),
    kind: t.expose('kind', { type: CandidateKind }),
    status: t.expose('status', { type: CandidateStatus }),
    entityId: t.exposeID('entityId', { nullable: true, description: 'null once the entity is gone (a rejected entity proposal)' }),
    entityName: t.exposeString('entityName', { nullable: true }),
    facts: t.field({ type: [ProposedFact], description: 'the facts it proposes', resolve: (c) => c.facts }),
    proposal: t.field({ type: 'JSON', nullable: true, description: 'an entity proposal: { name, type, aliases, facts }', resolve: (c) => c.proposal }),
    promise: t.field({
      type: ProposedPromise,
      nullable: true,
      description: 'the ledger line it proposes: a new promise\'s, or (kind promise) a change to a known promise\'s',
      resolve: (c) => c.promise,
    }),
    content: t.exposeString('content', { nullable: true, description: 'the source text, as provenance' }),
    source: t.exposeString('source', { description: 'how it was proposed: "proposal", "import", "api"' }),
    proposedBy: t.exposeString('proposedBy', { description: 'the id of the key that proposed it' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    decision: t.field({ type: CandidateDecision, nullable: true, description: 'the latest decision', resolve: (c) => c.decision }),
    removedIds: t.exposeIDList('removedIds', { description: "what the decision just removed (a rejection's suggested entity and facts); empty in a listing" }),
  }),
});

export const CandidatePage = builder.objectRef<Page<CandidateRecord>>('CandidatePage').implement({
  fields: (t) => ({
    data: t.field({ type: [Candidate], description: 'oldest first', resolve: (page) => page.data }),
    hasMore: t.exposeBoolean('hasMore'),
    nextStartingAfter: t.exposeString('nextStartingAfter', { nullable: true }),
  }),
});
