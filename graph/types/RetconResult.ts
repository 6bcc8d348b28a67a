import type { RetconResult as Result } from '../../src/core/canon/facts.ts';
import { builder } from '../builder.ts';
import { Dependents } from './Dependents.ts';
import { Fact } from './Fact.ts';

export const RetconResult = builder.objectRef<Result>('RetconResult').implement({
  description: 'A retcon: the fact that now holds (null when the fact was retired without a replacement), the one retired into history, and what depends on them.',
  fields: (t) => ({
    fact: t.field({ type: Fact, nullable: true, resolve: (r) => r.fact }),
    replaced: t.field({ type: Fact, description: 'the old fact, now retired', resolve: (r) => r.replaced }),
    decisionId: t.exposeString('decisionId', {
      nullable: true,
      description: "the decision recorded: the new fact's approval (null when it is suggested), or the retirement",
    }),
    dependents: t.field({
      type: Dependents,
      description: "what depends on the old or new fact: mentions from the earlier of their from chapters on",
      resolve: (r) => r.dependents(),
    }),
  }),
});
