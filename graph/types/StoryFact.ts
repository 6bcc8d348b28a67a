import type { StoryFact as StoryFactRecord } from '../../src/core/canon/entities.ts';
import { builder } from '../builder.ts';

export const StoryFact = builder.objectRef<StoryFactRecord>('StoryFact').implement({
  description: 'A live fact as recall shows it, with its place in story time.',
  fields: (t) => ({
    id: t.exposeID('id'),
    text: t.exposeString('text'),
    from: t.exposeString('from', { nullable: true, description: 'the chapter id it holds from (inclusive); null: from the start' }),
    until: t.exposeString('until', { nullable: true, description: 'the chapter id it holds until (exclusive); null: to the end' }),
  }),
});
