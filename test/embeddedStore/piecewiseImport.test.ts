// Issue 15, item 2: on the embedded store a large bundle into an existing project is written in pieces, each a
// transaction of its own. Writing it piecewise must end where one write of the whole bundle does: the project exported
// afterwards equals a new project imported whole, on creation and on update, and importing it again changes nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lore, serve, type ServeProcess } from '../support/cli.ts';
import { largeBundle } from './largeBundle.ts';

let dataDir: string;
let running: ServeProcess;
let key: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'lore-piecewise-'));
  running = await serve({ LORE_DATA_DIR: dataDir, PORT: '0', LORE_MAX_BODY_BYTES: String(8 * 1024 * 1024) });
  const created = await lore(['keys', 'create', '--tier', 'enterprise', '--json'], { LORE_DATA_DIR: dataDir });
  expect(created.code, created.stderr).toBe(0);
  key = JSON.parse(created.stdout).key;
}, 120_000);
afterAll(async () => {
  await running?.stop('SIGTERM');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function graphql<T>(query: string, variables: Record<string, unknown>): Promise<T> {
  const res = await fetch(`${running.url}/graphql`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data: T; errors?: unknown };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

type Counts = Record<string, number>;
type Imported = { projectId: string; projectCreated: boolean; changed: boolean; counts: Counts };
const importBundle = async (bundle: unknown, projectId?: string) =>
  (
    await graphql<{ importBundle: Imported }>(
      `mutation ($bundle: JSON!, $projectId: ID) { importBundle(bundle: $bundle, projectId: $projectId) {
        projectId projectCreated changed
        counts { entitiesCreated entitiesUpdated factsCreated factsUpdated relationshipsCreated relationshipsUpdated chaptersCreated chaptersUpdated mentionsRecorded beatsRecorded }
      } }`,
      { bundle, projectId },
    )
  ).importBundle;

/** The project's canon as a bundle, without the project part that names it. */
const exported = async (projectId: string) => {
  const { exportProject } = await graphql<{ exportProject: { project: unknown } }>('query ($projectId: ID!) { exportProject(projectId: $projectId) }', { projectId });
  const { project: _project, ...canon } = exportProject;
  return canon;
};

async function emptyProject(name: string): Promise<string> {
  const res = await fetch(`${running.url}/api/v1/projects`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** Every mention of the entity named `name`, as (chapter, line) pairs. */
async function mentionsOf(projectId: string, name: string): Promise<string[]> {
  const res = await fetch(`${running.url}/api/v1/projects/${projectId}/recall?q=${encodeURIComponent(name)}`, { headers: { Authorization: `Bearer ${key}` } });
  const { entities } = (await res.json()) as { entities: { id: string; canonicalName: string }[] };
  const entity = entities.find((e) => e.canonicalName === name)!;
  expect(entity, `${name} in ${projectId}`).toBeDefined();
  const found: string[] = [];
  let after: string | null = null;
  do {
    type Page = { data: { chapter: string; line: number }[]; nextStartingAfter: string | null };
    const { page }: { page: Page } = await graphql<{ page: Page }>(
      'query ($projectId: ID!, $entityId: ID!, $after: String) { page: mentions(projectId: $projectId, entityId: $entityId, limit: 100, startingAfter: $after) { data { chapter line } nextStartingAfter } }',
      { projectId, entityId: entity.id, after },
    );
    found.push(...page.data.map((m) => `${m.chapter}:${m.line}`));
    after = page.nextStartingAfter;
  } while (after);
  return found.sort();
}

describe('a large bundle into an existing project on the embedded store', () => {
  it('when it is imported into an empty existing project and then changed, then each time the project equals one imported whole, and again changes nothing', async () => {
    // 400 entities with two facts each, 12 chapters: well over what the importer writes in one transaction there.
    const bundle = largeBundle({ entities: 400, chapters: 12, wordsPerChapter: 600, name: 'Pieces' });
    // Entities with story time and suggested facts, among them the project's new ones, whose rows are written without
    // a read of the project: their spans must still find the chapters written just before them.
    for (const e of bundle.entities.filter((_, i) => i % 7 === 3)) {
      Object.assign(e, {
        facts: [e.facts[0], { text: e.facts[1], from: 'ch-002', until: 'ch-009' }, { text: `${e.name} owes a debt.`, from: 'ch-004', status: 'suggested' }],
        stateChanges: [{ from: 'ch-005', state: { rank: 'bosun' } }, { until: 'ch-003', state: { mood: 'hopeful' } }],
      });
    }

    const target = await emptyProject('Pieces, existing');
    const first = await importBundle(bundle, target);
    expect(first).toMatchObject({ projectId: target, projectCreated: false, changed: true });
    expect(first.counts).toMatchObject({ entitiesCreated: 400, factsCreated: 857, relationshipsCreated: 399, chaptersCreated: 12, beatsRecorded: 10 });
    const whole = await importBundle({ ...bundle, project: { ...bundle.project, name: 'Pieces, whole' } });
    expect(whole.projectCreated).toBe(true);
    expect(first.counts).toEqual(whole.counts);
    expect(await exported(target)).toEqual(await exported(whole.projectId));

    // The same canon changed in every way an import can change it, with 400 entities more, so that the change is large.
    const changed = structuredClone(bundle);
    changed.entities.push(...largeBundle({ entities: 800, chapters: 1, wordsPerChapter: 10 }).entities.slice(400));
    const renamed = changed.entities[5];
    renamed.name = 'Zedrin Newname';
    renamed.aliases = ['Zedrin'];
    const [retimed, respanned] = [changed.entities[8], changed.entities[7]];
    Object.assign(retimed, { stateChanges: [{ from: 'ch-002', state: { status: 'dead' } }] });
    respanned.facts = respanned.facts.map((text) => ({ text, from: 'ch-003' })) as unknown as string[];
    for (const r of changed.relationships.slice(0, 10)) r.weight = 0.5;
    changed.chapters[3].text += '\nZedrin came back to the harbour.';
    [changed.chapters[10].ordinal, changed.chapters[11].ordinal] = [changed.chapters[11].ordinal, changed.chapters[10].ordinal];
    changed.timeline.push({ chapter: 'ch-012', beats: [{ summary: 'Zedrin returns.', entities: [renamed.key] }] });

    const update = await importBundle(changed, target);
    expect(update).toMatchObject({ projectId: target, changed: true });
    expect(update.counts).toMatchObject({
      entitiesCreated: 400, entitiesUpdated: 2, factsCreated: 800, factsUpdated: 2, relationshipsCreated: 0, relationshipsUpdated: 10,
      chaptersCreated: 0, chaptersUpdated: 3, beatsRecorded: 1,
    });
    const wholeChanged = await importBundle({ ...changed, project: { ...changed.project, name: 'Pieces, changed whole' } });
    expect(await exported(target)).toEqual(await exported(wholeChanged.projectId));
    const mentions = await mentionsOf(target, 'Zedrin Newname');
    expect(mentions).toContain('ch-004:' + changed.chapters[3].text.split('\n').length);
    expect(mentions).toEqual(await mentionsOf(wholeChanged.projectId, 'Zedrin Newname'));

    const again = await importBundle(changed, target);
    expect(again.changed).toBe(false);
    expect(Object.values(again.counts).every((n) => n === 0), JSON.stringify(again.counts)).toBe(true);
  }, 300_000);

  it('when two clients import one large bundle into a project at once, then both succeed and the project equals one import of it', async () => {
    const bundle = largeBundle({ entities: 600, chapters: 4, wordsPerChapter: 300, name: 'Raced pieces' });
    const target = await emptyProject('Raced pieces, existing');
    // Each finds the entities new, and the second finds them written by the first slice by slice as it goes.
    const [one, two] = await Promise.all([importBundle(bundle, target), importBundle(bundle, target)]);
    expect(one.counts.entitiesCreated + two.counts.entitiesCreated).toBe(600);
    expect(one.counts.factsCreated + two.counts.factsCreated).toBe(1_200);
    const whole = await importBundle({ ...bundle, project: { ...bundle.project, name: 'Raced pieces, whole' } });
    expect(await exported(target)).toEqual(await exported(whole.projectId));
  }, 300_000);

  it('when a large bundle names an entity the project lacks, then it is refused whole and nothing of it is written', async () => {
    const bundle = largeBundle({ entities: 400, chapters: 3, wordsPerChapter: 200, name: 'Refused pieces' });
    bundle.relationships.push({ from: 'e1', to: 'nobody', kind: 'knows', weight: 1 });
    const target = await emptyProject('Refused pieces, existing');
    const res = await fetch(`${running.url}/graphql`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: 'mutation ($bundle: JSON!, $projectId: ID) { importBundle(bundle: $bundle, projectId: $projectId) { projectId } }', variables: { bundle, projectId: target } }),
    });
    const body = (await res.json()) as { errors?: { message: string; extensions: { code: string } }[] };
    expect(body.errors?.[0].extensions.code).toBe('invalid_bundle');
    expect(body.errors?.[0].message).toContain('relationships.399.to: unknown entity key nobody');
    // An export leaves out what the project lacks: here, everything.
    expect(await exported(target)).toEqual({});
  }, 120_000);
});
