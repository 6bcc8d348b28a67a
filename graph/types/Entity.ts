import { entityTypes } from '../../src/core/ingest/bundle.ts';
import { factsPerEntity, lastMentionCount, type EntityRecord } from '../../src/core/canon/entities.ts';
import { builder } from '../builder.ts';
import { EntityRelationship } from './EntityRelationship.ts';
import { Fact } from './Fact.ts';
import { Knowledge } from './Knowledge.ts';
import { Mention } from './Mention.ts';
import { StoryFact } from './StoryFact.ts';

export const EntityType = builder.enumType('EntityType', { values: entityTypes });
export const ApprovalStatus = builder.enumType('ApprovalStatus', { values: ['approved', 'suggested'] as const });

// Read whole, with its latest mentions and pending conflicts, by src/core/canon/entities.ts: recall and search are the
// hottest reads, and one statement per page costs a tenth of what planning them through Prisma does.
/** An entity as recall read it: `readAsOf`, the chapter it was read as of (its knowledge is as of it too). */
export type ReadEntity = EntityRecord & { readAsOf?: string | null };

export const Entity = builder.objectRef<ReadEntity>('Entity').implement({
  description: 'A canon entity as recall returns it.',
  fields: (t) => ({
    id: t.exposeID('id'),
    key: t.exposeString('key', { description: 'the key it was imported under' }),
    type: t.expose('type', { type: EntityType }),
    canonicalName: t.exposeString('name'),
    aliases: t.exposeStringList('aliases'),
    lastMentions: t.field({
      type: [Mention],
      description: `the ${lastMentionCount} latest mentions in reading order, latest first; as of a chapter, the latest up to it`,
      resolve: (entity) => entity.lastMentions,
    }),
    currentState: t.field({
      type: 'JSON',
      description: 'the state as of the chapter recall was asked as of, else the latest (after the last chapter)',
      resolve: (entity) => entity.state,
    }),
    pendingConflictIds: t.exposeStringList('pendingConflictIds'),
    confidence: t.exposeFloat('confidence', { nullable: true, description: '0..1, how sure the source of this entity was' }),
    approvalStatus: t.expose('status', { type: ApprovalStatus }),
    version: t.exposeInt('version', { description: 'raised by every edit; updateEntity with expectedVersion refuses an older one' }),
    approvedFacts: t.field({
      type: [StoryFact],
      description: `approved live facts holding at the chapter recall was asked as of (else the latest: those with no until), the first ${factsPerEntity} by id`,
      resolve: (entity) => entity.approvedFacts,
    }),
    suggestedFacts: t.field({
      type: [StoryFact],
      description: `suggested live facts (not canon until approved), chosen like approvedFacts, the first ${factsPerEntity} by id`,
      resolve: (entity) => entity.suggestedFacts,
    }),
    facts: t.loadableList({
      type: Fact,
      description: 'live facts about the entity, approved and suggested (retired ones are in history)',
      resolve: (entity) => entity.id,
      load: (entityIds: string[], ctx) => ctx.services.canon.factsOf(entityIds),
    }),
    knowledge: t.loadable({
      type: Knowledge,
      nullable: true,
      description:
        "characters only: what it knows and what the reader knows that it does not know yet (secret or restricted facts), as of the chapter recall was asked as of (else after the last chapter); null for other types",
      resolve: (entity) => (entity.type === 'character' ? JSON.stringify([entity.projectId, entity.readAsOf ?? null, entity.id, entity.name]) : null),
      load: (keys: string[], ctx) => ctx.services.knowledge.batch(keys),
    }),
    relationships: t.loadableList({
      type: EntityRelationship,
      description: 'every relationship it has, by either end, with the entity at the other end; by kind',
      resolve: (entity) => entity.id,
      load: (entityIds: string[], ctx) => ctx.services.canon.relationshipsOf(entityIds),
    }),
    history: t.loadableList({
      type: Fact,
      description:
        'retired facts, newest retirement first: what each said, when it was written (createdAt, createdBy) and retired (retiredAt, retiredBy), and the fact that replaced it (replacedById; null when it was retired without a replacement)',
      resolve: (entity) => entity.id,
      load: (entityIds: string[], ctx) => ctx.services.facts.historyOf(entityIds),
    }),
  }),
});
