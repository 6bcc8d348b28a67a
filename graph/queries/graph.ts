import { z } from 'zod';
import { graphLimits } from '../../src/core/relationships/graphStore.ts';
import { graphDepth, resourceId } from '../../src/core/validation.ts';
import { entityNotFound } from '../../src/core/canon/projects.ts';
import { parseArgs } from '../args.ts';
import { builder } from '../builder.ts';
import { GraphSubsetRef } from '../types/GraphSubset.ts';

const graphArgs = z.object({ projectId: resourceId, root: resourceId.optional(), depth: graphDepth.default(1) });

builder.queryField('graph', (t) =>
  t.field({
    type: GraphSubsetRef,
    description: `The relationship graph: around root to a depth (at most ${graphLimits.neighbourhoodNodes} nodes, nearest first), or without root the ${graphLimits.topNodes} most connected nodes.`,
    authScopes: { scope: 'graph' },
    cost: 1,
    args: {
      projectId: t.arg.id({ required: true }),
      root: t.arg.id({ description: 'entity id to start from' }),
      depth: t.arg.int({ description: 'hops from root, 1..3, default 1' }),
    },
    resolve: async (_root, rawArgs, ctx) => {
      const args = parseArgs(graphArgs, rawArgs);
      const principal = await ctx.principal();
      await ctx.services.projects.requireOwned(principal.accountId, args.projectId);
      const subset = await ctx.services.graph.subset(args);
      if (!subset) throw entityNotFound(args.projectId, args.root!);
      return subset;
    },
  }),
);
