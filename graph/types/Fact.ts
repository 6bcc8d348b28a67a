import type { Fact as FactRow } from '../../src/generated/prisma/client.ts';
import { builder } from '../builder.ts';
import { ApprovalStatus } from './Entity.ts';
import { FactProvenance } from './FactProvenance.ts';
import { FactKnower } from './KnowerInput.ts';

// Facts a write answers as written, known to have no knowers (a new fact without knownBy): their knownBy is answered
// without a read (two statements and a query compile, most of a new fact's time after its commit).
const withoutKnowers = new WeakSet<FactRow>();
export const answeredWithoutKnowers = (fact: FactRow) => withoutKnowers.add(fact);

export const Fact = builder.prismaObject('Fact', {
  description: 'A statement about an entity, with where it came from.',
  fields: (t) => ({
    id: t.exposeID('id'),
    text: t.exposeString('text'),
    status: t.expose('status', { type: ApprovalStatus }),
    source: t.exposeString('source'),
    candidateId: t.exposeString('candidateId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    entityId: t.exposeID('entityId'),
    from: t.loadable({
      type: 'String',
      nullable: true,
      description: 'story time: the chapter id it holds from (inclusive); null: from the start',
      resolve: (fact) => fact.fromChapterId,
      load: (ids: string[], ctx) => ctx.services.chapters.externalIds(ids),
    }),
    until: t.loadable({
      type: 'String',
      nullable: true,
      description: 'story time: the chapter id it holds until (exclusive); null: to the end',
      resolve: (fact) => fact.untilChapterId,
      load: (ids: string[], ctx) => ctx.services.chapters.externalIds(ids),
    }),
    createdBy: t.exposeString('createdBy', { nullable: true, description: 'the key id that wrote it' }),
    retiredAt: t.expose('retiredAt', { type: 'DateTime', nullable: true, description: 'when it left the canon (replaced or retired); null while live' }),
    retiredBy: t.exposeString('retiredBy', { nullable: true, description: 'the key id that retired it' }),
    replacedById: t.exposeString('replacedById', { nullable: true, description: 'the fact that replaced it in a retcon' }),
    secret: t.exposeBoolean('secret', { description: 'nobody knows it until someone learns it (knownBy)' }),
    knownBy: t.loadableList({
      type: FactKnower,
      description: 'who knows it, from when; empty and not secret: common knowledge',
      resolve: (fact) => fact,
      loaderOptions: { cacheKeyFn: (fact: FactRow) => fact.id },
      load: async (facts: FactRow[], ctx) => {
        const read = facts.filter((fact) => !withoutKnowers.has(fact));
        const knowers = read.length > 0 ? await ctx.services.knowledge.knowers(read.map((fact) => fact.id)) : [];
        const byId = new Map(read.map((fact, i) => [fact.id, knowers[i]]));
        return facts.map((fact) => byId.get(fact.id) ?? []);
      },
    }),
    provenance: t.loadable({
      type: FactProvenance,
      nullable: true,
      description: 'its proposal and the decision on it; null for a fact written without one',
      resolve: (fact) => fact.candidateId,
      load: (ids: string[], ctx) => ctx.services.overview.provenance(ids),
    }),
  }),
});
