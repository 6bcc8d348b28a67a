import type { DependentBeat as Beat, DependentConflict as Conflict, Dependents as Result } from '../../src/core/canon/facts.ts';
import { dependentsLimit } from '../../src/core/canon/facts.ts';
import { builder } from '../builder.ts';
import { ConflictStatus } from './Conflict.ts';
import { Mention } from './Mention.ts';

export const DependentConflict = builder.objectRef<Conflict>('DependentConflict').implement({
  description: 'A stored conflict (any status) that cites the fact or its entity.',
  fields: (t) => ({
    id: t.exposeID('id'),
    status: t.expose('status', { type: ConflictStatus }),
    kind: t.exposeString('kind'),
    title: t.exposeString('title'),
  }),
});

export const DependentBeat = builder.objectRef<Beat>('DependentBeat').implement({
  description: 'A timeline beat that involves the entity.',
  fields: (t) => ({
    id: t.exposeID('id'),
    chapter: t.exposeString('chapter', { description: 'the chapter id' }),
    summary: t.exposeString('summary'),
  }),
});

export const Dependents = builder.objectRef<Result>('Dependents').implement({
  description: `What depends on a fact or an entity, so the writer knows what to revisit; each list at most ${dependentsLimit}.`,
  fields: (t) => ({
    conflicts: t.field({ type: [DependentConflict], description: 'stored conflicts citing the fact or its entity, newest first', resolve: (d) => d.conflicts }),
    beats: t.field({ type: [DependentBeat], description: 'beats involving the entity, in reading order', resolve: (d) => d.beats }),
    mentions: t.field({
      type: [Mention],
      description: "mentions of the entity in reading order, from the fact's from chapter on (every chapter when it holds from the start, or for an entity)",
      resolve: (d) => d.mentions,
    }),
    mentionCount: t.exposeInt('mentionCount', { description: 'how many such mentions there are in all' }),
  }),
});
