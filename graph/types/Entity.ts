import { entityTypes } from '../../src/core/bundle.ts';
import { builder } from '../builder.ts';
import { Mention, mentionSelect, toMentionItem } from './Mention.ts';

export const EntityType = builder.enumType('EntityType', { values: entityTypes });
export const ApprovalStatus = builder.enumType('ApprovalStatus', { values: ['approved', 'suggested'] as const });

const lastMentionCount = 5;

export const Entity = builder.prismaObject('Entity', {
  description: 'A canon entity as recall returns it.',
  fields: (t) => ({
    id: t.exposeID('id'),
    key: t.exposeString('key', { description: 'the key it was imported under' }),
    type: t.expose('type', { type: EntityType }),
    canonicalName: t.exposeString('name'),
    aliases: t.exposeStringList('aliases'),
    lastMentions: t.field({
      type: [Mention],
      description: `the ${lastMentionCount} latest mentions in reading order, latest first`,
      select: { mentions: { orderBy: { sortKey: 'desc' }, take: lastMentionCount, select: mentionSelect } },
      resolve: (entity) => entity.mentions.map(toMentionItem),
    }),
    currentState: t.field({ type: 'JSON', select: { state: true }, resolve: (entity) => entity.state }),
    pendingConflictIds: t.stringList({
      select: { conflictLinks: { where: { conflict: { status: 'pending' } }, select: { conflictId: true }, orderBy: { conflictId: 'asc' } } },
      resolve: (entity) => entity.conflictLinks.map((link) => link.conflictId),
    }),
    confidence: t.exposeFloat('confidence', { nullable: true, description: '0..1, how sure the source of this entity was' }),
    approvalStatus: t.expose('status', { type: ApprovalStatus }),
    facts: t.relation('facts', { description: 'facts about the entity, approved and suggested', query: { orderBy: { id: 'asc' } } }),
  }),
});
