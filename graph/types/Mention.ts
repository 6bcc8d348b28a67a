import type { MentionItem } from '../../src/core/canon/canon.ts';
import { builder } from '../builder.ts';

export const Mention = builder.objectRef<MentionItem>('Mention').implement({
  description: 'Where an entity is named: chapter id, 1-based line and the text around it.',
  fields: (t) => ({
    id: t.exposeID('id'),
    chapter: t.exposeString('chapter'),
    line: t.exposeInt('line'),
    snippet: t.exposeString('snippet'),
    timestamp: t.expose('timestamp', { type: 'DateTime', description: 'when the mention was recorded' }),
  }),
});
