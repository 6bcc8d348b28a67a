import { z } from 'zod';
import { defaultAtRiskAfter } from '../../src/core/promises/ledger.ts';
import { atRiskAfter, chapterRef } from '../../src/core/validation.ts';
import type { RouteDef } from '../route.ts';
import { intFromQuery, projectPath } from '../schemas.ts';

const promisesQuery = z.object({
  as_of: chapterRef.optional().meta({ description: 'a chapter id: the ledger as it stands there; an unknown chapter is a 400 naming as_of' }),
  at_risk_after: intFromQuery(atRiskAfter).optional().meta({ type: 'integer', minimum: 1, maximum: 100_000, default: defaultAtRiskAfter, description: `chapters an open promise may wait before it is at risk, default ${defaultAtRiskAfter}` }),
});

const PromiseLine = z
  .object({
    id: z.string().meta({ description: 'the promise entity' }),
    name: z.string(),
    approval: z.enum(['approved', 'suggested']),
    status: z.enum(['open', 'paid', 'dropped']).meta({ description: 'as of the chapter asked about' }),
    set_up_in: z.string().nullable(),
    paid_off_in: z.string().nullable().meta({ description: 'when the payoff comes by the chapter asked about' }),
    involves: z.array(z.object({ id: z.string(), name: z.string() })),
    age: z.number().int().nullable().meta({ description: 'chapters since its setup, up to the chapter asked about (else the last); null without a setup' }),
    at_risk: z.boolean().meta({ description: 'open and older than at_risk_after' }),
    paid_before_set_up: z.boolean().meta({ description: 'its payoff chapter comes before its setup chapter' }),
  })
  .meta({ id: 'PromiseLine' });

export const promises: RouteDef = {
  method: 'get',
  path: '/projects/{id}/promises',
  operationId: 'listPromises',
  summary: 'Read the promise ledger',
  description:
    "Extension. Every promise entity with its setup and payoff chapters, the entities it involves and its status as of as_of (a promise set up after it is not listed; one paid off after it is still open), by setup chapter. age counts the chapters since the setup; open promises older than at_risk_after chapters (default 10) are at_risk.",
  scope: 'recall',
  cost: 1,
  params: projectPath,
  query: promisesQuery,
  success: { status: 200, schema: z.object({ promises: z.array(PromiseLine) }).meta({ id: 'PromiseLedger' }), description: 'the ledger' },
  errors: [400, 402, 404],
  operation: 'Promises',
  keepNulls: true,
  errorPaths: { as_of: 'query.as_of', atRiskAfter: 'query.at_risk_after' },
  variables: ({ params, query }) => ({ projectId: params.id, asOf: query.as_of, atRiskAfter: query.at_risk_after }),
  respond: (data) => ({
    promises: (data.promises as Record<string, unknown>[]).map(({ setUpIn, paidOffIn, atRisk, paidBeforeSetUp, ...line }) => ({
      ...line, set_up_in: setUpIn, paid_off_in: paidOffIn, at_risk: atRisk, paid_before_set_up: paidBeforeSetUp,
    })),
  }),
};
