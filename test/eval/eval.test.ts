import { expect, it } from 'vitest';
import { createTestDatabase } from '../support/gateway.ts';
import { runEvaluation } from './eval.ts';

// Floors, not targets: `npm run eval` prints the figures; this fails CI when the check regresses below them.
it('when the evaluation set is checked, then the deterministic core is precise on its kinds and the whole check finds the planted conflicts', async () => {
  const report = await runEvaluation({ databaseUrl: await createTestDatabase() });
  expect(report.passages).toBeGreaterThanOrEqual(150);
  expect(report.sets.length).toBeGreaterThanOrEqual(2);
  // The core's targets (issue 16) over all sets, and no set far below them.
  expect(report.deterministic.ownKinds.precision).toBeGreaterThanOrEqual(0.97);
  expect(report.deterministic.ownKinds.recall).toBeGreaterThanOrEqual(0.85);
  for (const set of report.sets) expect({ set: set.name, precision: set.deterministic.ownKinds.precision >= 0.9 }).toEqual({ set: set.name, precision: true });
  expect(report.whole.overall.precision).toBeGreaterThanOrEqual(0.9);
  expect(report.whole.overall.recall).toBeGreaterThanOrEqual(0.85);
  expect(report.whole.duplicates).toEqual([]);
  // The slice keeps the prompt small: the evaluation canon is tiny, so a few thousand tokens is already a leak.
  expect(report.promptTokens.max).toBeLessThan(4_000);
}, 300_000);
