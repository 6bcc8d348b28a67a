import { expect, it } from 'vitest';
import { createTestDatabase } from '../support/gateway.ts';
import { formatReport, runEvaluation, type EvalSet } from './eval.ts';

// A set written for this test: each planted pair the core misses lands in a stage its trace decides.
// Declared apart: the bundle carries more than the eval's own type of it reads.
const bundle = {
  project: { name: 'Why' },
  entities: [
    { key: 'ada', type: 'character', name: 'Ada Marsh', aliases: ['Ada'], state: { status: 'dead', died_in: 'ch-01', pronouns: 'she/her' }, facts: ['Ada Marsh died of a fever in the winter.'] },
    { key: 'tom', type: 'character', name: 'Tom Reed', aliases: ['Tom'], state: { status: 'alive', eyes: 'grey', pronouns: 'he/him' }, facts: ['Tom Reed keeps the mill.'] },
    { key: 'mill', type: 'location', name: 'the mill', aliases: [], state: {}, facts: [] },
  ],
  relationships: [],
  chapters: [
    { id: 'ch-01', title: 'One', ordinal: 1, text: 'Ada Marsh died of a fever in the winter. Tom Reed dug the grave under the yew.' },
    { id: 'ch-02', title: 'Two', ordinal: 2, text: 'Tom Reed walked to the mill in the rain. He stood by the wheel a long while.' },
  ],
};

const set: EvalSet = {
  name: 'whyset',
  published: false,
  bundle,
  passages: [
    // Read of Tom and compared: the colour agrees with the canon.
    { id: 'why-agrees', chapter: 'ch-02', text: 'Tom Reed looked up from the ledger, and his grey eyes were tired.', expected: [{ kind: 'attribute_contradiction', entity: 'tom' }] },
    // Ada is no one the passage names or refers to.
    { id: 'why-nobody', chapter: 'ch-02', text: 'The old woman by the hearth rose and poured the tea for the visitors.', expected: [{ kind: 'dead_character_active', entity: 'ada' }] },
    // Ada acts only in what Tom says.
    { id: 'why-dialogue', chapter: 'ch-02', text: '"Ada Marsh walked to the mill this morning," Tom said.', expected: [{ kind: 'dead_character_active', entity: 'ada' }] },
    // Found: no stage.
    { id: 'why-found', chapter: 'ch-02', text: 'Ada Marsh walked down to the mill and opened the door.', expected: [{ kind: 'dead_character_active', entity: 'ada' }] },
    { id: 'why-clean', chapter: 'ch-02', text: 'Tom Reed walked down to the mill and opened the door.', expected: [] },
  ],
};

it('when the eval runs with why, then each miss of the core is counted at the stage its trace decides, and the table quotes no passage', async () => {
  const report = await runEvaluation({ databaseUrl: await createTestDatabase(), given: [set], why: true });
  expect(report.deterministic.ownKinds.tp).toBe(1);
  expect(report.sets[0].why).toEqual({
    'd value: agrees': { attribute_contradiction: 1 },
    'b holder: not referred to, not in passage': { dead_character_active: 1 },
    'e guard: frame: dialogue': { dead_character_active: 1 },
  });
  const table = formatReport(report).split('Deterministic core misses by the stage')[1].split('\n\n')[0];
  expect(table).toContain('all sets run');
  for (const p of set.passages) for (const word of p.text.split(/\W+/).filter((w) => w.length > 5)) expect(table).not.toContain(word);
});

it('when the eval runs without why, then it keeps no stage counts', async () => {
  const report = await runEvaluation({ databaseUrl: await createTestDatabase(), given: [{ ...set, passages: set.passages.slice(0, 1) }] });
  expect(report.sets[0].why).toBeUndefined();
});
