import type { Knowledge as KnowledgeRecord, KnownFact as KnownFactRecord } from '../../src/core/knowledge/knowledge.ts';
import { builder } from '../builder.ts';

const KnowledgePoint = builder.objectRef<{ chapter: string | null; line: number | null }>('KnowledgePoint').implement({
  description: 'A point of the story: a chapter, and a line of it (after which the fact is known); a null chapter is the start.',
  fields: (t) => ({ chapter: t.exposeString('chapter', { nullable: true }), line: t.exposeInt('line', { nullable: true }) }),
});

const KnowledgeEntity = builder.objectRef<{ id: string; name: string }>('KnowledgeEntity').implement({
  fields: (t) => ({ id: t.exposeID('id'), name: t.exposeString('name') }),
});

export const KnownFact = builder.objectRef<KnownFactRecord>('KnownFact').implement({
  description: 'A fact whose knowledge is tracked (secret, or known by named entities only).',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'the fact' }),
    text: t.exposeString('text'),
    about: t.field({ type: KnowledgeEntity, description: 'the entity the fact is about', resolve: (f) => f.about }),
    secret: t.exposeBoolean('secret', { description: 'nobody knows it until someone learns it' }),
    learned: t.field({
      type: KnowledgePoint,
      nullable: true,
      description: 'knows: where they learned it; unaware: where they learn it later, null when they never do',
      resolve: (f) => f.learned,
    }),
  }),
});

export const Knowledge = builder.objectRef<KnowledgeRecord>('Knowledge').implement({
  description: 'What an entity (a character) knows at a point of the story, and what the reader knows there that it does not know yet.',
  fields: (t) => ({
    entity: t.field({ type: KnowledgeEntity, resolve: (k) => k.entity }),
    asOf: t.exposeString('asOf', { nullable: true, description: 'the chapter id it is as of; null: after the last chapter' }),
    line: t.exposeInt('line', { nullable: true, description: 'the line of that chapter it is as of; null: the whole chapter read' }),
    knows: t.field({ type: [KnownFact], description: 'tracked facts it knows there, by id', resolve: (k) => k.knows }),
    unaware: t.field({ type: [KnownFact], description: 'tracked facts the reader knows there (approved, live, holding) that it does not know yet, by id', resolve: (k) => k.unaware }),
  }),
});
