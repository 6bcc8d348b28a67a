import type { Brief as BriefRecord } from '../../src/core/brief/brief.ts';
import type { Omitted } from '../../src/core/brief/omitted.ts';
import { briefFormats } from '../../src/core/validation.ts';
import { builder } from '../builder.ts';

export const BriefFormat = builder.enumType('BriefFormat', {
  values: briefFormats,
  description: 'json: the content as structured JSON; markdown: the same content as Markdown to paste into a prompt',
});

const BriefOmitted = builder.objectRef<Omitted>('BriefOmitted').implement({
  description: 'How many items of each kind did not fit the budget: ask again with a larger budget for them.',
  fields: (t) => ({
    entities: t.exposeInt('entities', { description: 'entities the scene names' }),
    facts: t.exposeInt('facts', { description: "facts of those entities" }),
    relationships: t.exposeInt('relationships', { description: 'relationships between them' }),
    neighbours: t.exposeInt('neighbours', { description: 'entities one relationship away' }),
    rules: t.exposeInt('rules'),
    promises: t.exposeInt('promises'),
    knowledge: t.exposeInt('knowledge', { description: 'named characters whose knowledge did not fit' }),
    beats: t.exposeInt('beats'),
  }),
});

export const Brief = builder.objectRef<BriefRecord>('Brief').implement({
  description:
    'The canon that matters for a scene as of a chapter, most important first, within a token budget: every item whole and with its id.',
  fields: (t) => ({
    chapter: t.exposeString('chapter', { nullable: true, description: 'the chapter id it is as of; null: after the last chapter' }),
    format: t.field({ type: BriefFormat, resolve: (b) => b.format }),
    encoding: t.exposeString('encoding', { description: 'the tokenizer encoding tokens are counted in (o200k_base)' }),
    budget: t.exposeInt('budget'),
    tokens: t.exposeInt('tokens', { description: 'tokens of the rendering (content as compact JSON, or markdown): never more than budget' }),
    omitted: t.field({ type: BriefOmitted, resolve: (b) => b.omitted }),
    content: t.field({
      type: 'JSON',
      nullable: true,
      description: 'format json: { entities, relationships, neighbours, rules, promises, knowledge, beats }',
      resolve: (b) => b.content ?? null,
    }),
    markdown: t.exposeString('markdown', { nullable: true, description: 'format markdown: the brief as Markdown' }),
  }),
});
