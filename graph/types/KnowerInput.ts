import { builder } from '../builder.ts';

export const KnowerInput = builder.inputType('KnowerInput', {
  description: 'An entity that knows a fact, from a point of the story: a chapter, and a line of it (known after that line); from the start without a chapter.',
  fields: (t) => ({
    entityId: t.id({ required: true }),
    from: t.string({ description: 'the chapter id it learns the fact in; absent: from the start' }),
    line: t.int({ description: 'the line of that chapter it learns the fact at (known after it)' }),
  }),
});

export const FactKnower = builder.objectRef<{ entityId: string; from: string | null; line: number | null }>('FactKnower').implement({
  description: 'An entity that knows a fact, and from when.',
  fields: (t) => ({
    entityId: t.exposeID('entityId'),
    from: t.exposeString('from', { nullable: true, description: 'the chapter id it learns the fact in; null: from the start' }),
    line: t.exposeInt('line', { nullable: true, description: 'the line of that chapter (known after it)' }),
  }),
});
