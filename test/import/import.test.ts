// The canon-bundle import through the GraphQL importBundle mutation and through `lore import`: counts, idempotent
// re-imports, what a changed chapter or alias re-records, whole-bundle rejection, YAML, and a novel-sized manuscript.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lore } from '../support/cli.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let workDir: string;

const importMutation = `mutation ($bundle: JSON!, $projectId: ID) {
  importBundle(bundle: $bundle, projectId: $projectId) {
    projectId projectCreated changed
    counts { entitiesCreated entitiesUpdated factsCreated relationshipsCreated relationshipsUpdated chaptersCreated chaptersUpdated mentionsRecorded beatsRecorded }
  }
}`;

const zeroCounts = {
  entitiesCreated: 0, entitiesUpdated: 0, factsCreated: 0, relationshipsCreated: 0, relationshipsUpdated: 0,
  chaptersCreated: 0, chaptersUpdated: 0, mentionsRecorded: 0, beatsRecorded: 0,
};

async function runImport(key: string, bundle: unknown, projectId?: string) {
  const result = await gw.graphql(importMutation, { bundle, projectId }, key);
  if (result.errors) throw new Error(`import failed: ${JSON.stringify(result.errors)}`);
  return result.data.importBundle;
}

/** Every row the importer may write, counted across the whole database. */
async function rowCounts() {
  const p = gw.gateway.runtime.services.prisma;
  return {
    projects: await p.project.count(), entities: await p.entity.count(), facts: await p.fact.count(),
    candidates: await p.candidate.count(), decisions: await p.decision.count(), relationships: await p.relationship.count(),
    chapters: await p.chapter.count(), mentions: await p.mention.count(), beats: await p.beat.count(),
  };
}

/** What a re-import must leave alone in one project: ids, mention positions, facts, beats and the update time. */
async function projectState(projectId: string) {
  const p = gw.gateway.runtime.services.prisma;
  const where = { projectId };
  return {
    project: await p.project.findUniqueOrThrow({ where: { id: projectId }, select: { name: true, description: true, updatedAt: true } }),
    entities: await p.entity.findMany({ where, orderBy: { id: 'asc' }, select: { id: true, key: true, aliases: true, state: true, status: true, updatedAt: true } }),
    facts: await p.fact.findMany({ where, orderBy: { id: 'asc' }, select: { id: true, text: true, status: true, candidateId: true } }),
    candidates: await p.candidate.count({ where }),
    relationships: await p.relationship.findMany({ where, orderBy: { id: 'asc' } }),
    chapters: await p.chapter.findMany({ where, orderBy: { id: 'asc' }, select: { id: true, externalId: true, contentHash: true, mentionHash: true } }),
    mentions: await mentionRows(projectId),
    beats: await p.beat.findMany({ where, orderBy: { id: 'asc' } }),
  };
}

async function mentionRows(projectId: string) {
  return gw.gateway.runtime.services.prisma.mention.findMany({
    where: { projectId },
    orderBy: { sortKey: 'asc' },
    select: { id: true, entityId: true, line: true, column: true, sortKey: true, chapter: { select: { externalId: true } } },
  });
}

async function entityId(projectId: string, key: string) {
  const row = await gw.gateway.runtime.services.prisma.entity.findUniqueOrThrow({ where: { projectId_key: { projectId, key } } });
  return row.id;
}

beforeAll(async () => {
  gw = await startTestGateway();
  workDir = await mkdtemp(path.join(tmpdir(), 'lore-import-'));
});
afterAll(async () => {
  await gw?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('importBundle (GraphQL)', () => {
  let key: string;
  let projectId: string;
  beforeAll(async () => {
    ({ key } = await gw.createKey('studio'));
  });

  it('when a bundle is imported, then every part is counted and readable through REST', async () => {
    const result = await runImport(key, saltmarshBundle());
    expect(result).toMatchObject({ projectCreated: true, changed: true });
    expect(result.counts).toEqual({
      entitiesCreated: 6, entitiesUpdated: 0, factsCreated: 7, relationshipsCreated: 3, relationshipsUpdated: 0,
      chaptersCreated: 2, chaptersUpdated: 0, mentionsRecorded: 8, beatsRecorded: 2,
    });
    projectId = result.projectId;
    const projects = await gw.request('/projects', { key });
    expect(projects.body.data).toEqual([
      expect.objectContaining({ id: projectId, name: 'The Saltmarsh Chronicles', description: 'A smuggler captain and her brother on a drowned coast.', entity_count: 6 }),
    ]);
    const graph = await gw.request(`/projects/${projectId}/graph`, { key });
    expect(graph.body.edges).toHaveLength(3);
    expect(await mentionRows(projectId)).toHaveLength(8);
    // Approved entities' facts carry a decision by the importing key; suggested ones only a candidate.
    const p = gw.gateway.runtime.services.prisma;
    expect(await p.candidate.count({ where: { projectId } })).toBe(7);
    expect(await p.decision.count({ where: { candidate: { projectId } } })).toBe(6);
  });

  it('when the same bundle is imported again, then nothing changes: changed=false, all counts 0, same ids and mentions', async () => {
    const before = await projectState(projectId);
    const result = await runImport(key, saltmarshBundle());
    expect(result).toEqual({ projectId, projectCreated: false, changed: false, counts: zeroCounts });
    expect(await projectState(projectId)).toEqual(before);
    // The same holds when the target project is named explicitly.
    expect((await runImport(key, saltmarshBundle(), projectId)).changed).toBe(false);
    expect(await projectState(projectId)).toEqual(before);
  });

  it('when one new bundle is imported six times at once, then one project is created and the other five change nothing', async () => {
    const { key: k } = await gw.createKey('studio');
    const bundle = saltmarshBundle();
    bundle.project.name = 'Six at once';
    const results = await Promise.all(Array.from({ length: 6 }, () => runImport(k, bundle)));
    const [first] = results.filter((r) => r.projectCreated);
    expect(results.filter((r) => r.projectCreated)).toHaveLength(1);
    expect(first.counts).toMatchObject({ entitiesCreated: 6, mentionsRecorded: 8 });
    for (const r of results.filter((r) => !r.projectCreated)) expect(r).toEqual({ projectId: first.projectId, projectCreated: false, changed: false, counts: zeroCounts });
    expect((await gw.request('/projects', { key: k })).body.data.map((p: { id: string }) => p.id)).toEqual([first.projectId]);
    // Racing into one named project, with a changed chapter: recorded once, as one import after another would.
    bundle.chapters[0].text += '\nMara laughed at the rail.';
    const into = await Promise.all(Array.from({ length: 6 }, () => runImport(k, bundle, first.projectId)));
    expect(into.filter((r) => r.changed)).toHaveLength(1);
    expect(into.map((r) => r.counts.chaptersUpdated).sort()).toEqual([0, 0, 0, 0, 0, 1]);
    expect(await mentionRows(first.projectId)).toHaveLength(9);
  });

  it("when one chapter's text changes, then only that chapter's mentions are recorded again", async () => {
    const before = await mentionRows(projectId);
    const bundle = saltmarshBundle();
    bundle.chapters[1].text = 'Keth went over the side at Gull Point.\nMara searched the black water until dawn.\nThe Captain wept.';
    const result = await runImport(key, bundle);
    expect(result.changed).toBe(true);
    expect(result.counts).toEqual({ ...zeroCounts, chaptersUpdated: 1, mentionsRecorded: 4 });
    const after = await mentionRows(projectId);
    const inChapter = (rows: typeof after, id: string) => rows.filter((m) => m.chapter.externalId === id);
    expect(inChapter(after, 'ch-01')).toEqual(inChapter(before, 'ch-01'));
    const newCh2 = inChapter(after, 'ch-02');
    expect(newCh2.map((m) => m.line)).toEqual([1, 1, 2, 3]);
    const oldIds = new Set(before.map((m) => m.id));
    expect(newCh2.every((m) => !oldIds.has(m.id))).toBe(true);
    // And that import is itself idempotent.
    expect((await runImport(key, bundle)).counts).toEqual(zeroCounts);
  });

  it('when an entity gains an alias, then mentions are recorded again and the alias is found in the text', async () => {
    const bundle = saltmarshBundle();
    bundle.chapters[1].text = 'Keth went over the side at Gull Point.\nMara searched the black water until dawn.\nThe Captain wept.';
    bundle.entities.find((e: any) => e.key === 'gull-point').aliases = ['the black water'];
    const result = await runImport(key, bundle);
    expect(result.counts).toEqual({ ...zeroCounts, entitiesUpdated: 1, mentionsRecorded: 10 });
    const gull = await entityId(projectId, 'gull-point');
    const mentions = await gw.request(`/projects/${projectId}/recall/${gull}/mentions`, { key });
    expect(mentions.body.data.map((m: any) => [m.chapter, m.line])).toEqual([['ch-01', 2], ['ch-02', 1], ['ch-02', 2]]);
    expect(mentions.body.data[2].snippet).toContain('the black water');
    const recall = await gw.request(`/projects/${projectId}/recall?q=BLACK%20WATER`, { key });
    expect(recall.body.entities.map((e: any) => e.id)).toEqual([gull]);
  });

  it('when only the description changes, then changed=true with no counts, and the description is updated', async () => {
    const bundle = saltmarshBundle();
    bundle.project.description = 'Revised blurb.';
    const result = await runImport(key, bundle, projectId);
    expect(result.changed).toBe(true);
    expect((await gw.request('/projects', { key })).body.data[0].description).toBe('Revised blurb.');
  });

  describe('when a bundle has errors, then it is rejected whole with the paths of its errors and nothing is written', () => {
    const bad: [string, (b: any) => unknown, string[]][] = [
      ['a wrong entity type', (b) => { b.entities[1].type = 'dragon'; return b; }, ['entities.1.type']],
      ['an unknown entity key in a relationship', (b) => { b.relationships[1].to = 'nobody'; return b; }, ['relationships.1.to']],
      ['duplicate entity keys', (b) => { b.entities[2].key = 'mara'; return b; }, ['entities.2.key']],
      ['duplicate chapter ids', (b) => { b.chapters[1].id = 'ch-01'; return b; }, ['chapters.1.id']],
      ['a missing project name', (b) => { delete b.project.name; return b; }, ['project.name']],
      ['a blank project name', (b) => { b.project.name = '   '; return b; }, ['project.name']],
      ['an unknown chapter and entity in the timeline', (b) => { b.timeline[0].chapter = 'ch-99'; b.timeline[1].beats[0].entities.push('ghost'); return b; },
        ['timeline.0.chapter', 'timeline.1.beats.0.entities.2']],
      ['several errors at once', (b) => { b.entities[0].type = 'dragon'; b.entities[3].confidence = 2; delete b.project.name; return b; },
        ['project.name', 'entities.0.type', 'entities.3.confidence']],
      ['text PostgreSQL cannot store (NUL, lone surrogate)',
        (b) => { b.entities[0].state = { eyes: ['green', 'grey\u0000'] }; b.entities[1].aliases = ['\uD800']; b.chapters[0].text += '\u0000'; return b; },
        ['entities.0.state.eyes.1', 'entities.1.aliases.0', 'chapters.0.text']],
      ['not an object', () => ['a list'], ['(root)']],
    ];
    for (const [what, mutate, paths] of bad) {
      it(`${what}`, async () => {
        const { key: k } = await gw.createKey('studio');
        // A new project name: a partial write would have to create the project first.
        const fresh = saltmarshBundle();
        fresh.project.name = `Rejected ${what}`;
        const bundle = mutate(fresh);
        const before = await rowCounts();
        const result = await gw.graphql(importMutation, { bundle }, k);
        expect(result.data?.importBundle ?? null).toBeNull();
        const [error] = result.errors ?? [];
        expect(error.extensions.code).toBe('invalid_bundle');
        expect(error.extensions.errors.map((e: any) => e.path).sort()).toEqual([...paths].sort());
        for (const e of error.extensions.errors) expect(e.message).toEqual(expect.any(String));
        expect(error.message).toContain(paths[0]);
        expect(await rowCounts()).toEqual(before);
        expect((await gw.request('/projects', { key: k })).body.data).toEqual([]);
      });
    }
  });

  it('when the target project id is unknown, then not_found and nothing is written', async () => {
    const before = await rowCounts();
    const result = await gw.graphql(importMutation, { bundle: saltmarshBundle(), projectId: 'prj_nosuchproject' }, key);
    expect(result.errors?.[0]?.extensions?.code).toBe('not_found');
    expect(await rowCounts()).toEqual(before);
  });
});

describe('lore import (CLI)', () => {
  it('when a YAML bundle is imported with --json, then it prints the counts, and a second run changes nothing', { timeout: 180_000 }, async () => {
    const { key } = await gw.createKey('studio');
    const file = path.join(workDir, 'saltmarsh.yaml');
    await writeFile(file, YAML.stringify(saltmarshBundle()));
    const env = { DATABASE_URL: gw.databaseUrl };
    const first = await lore(['import', file, '--key', key, '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    const printed = JSON.parse(first.stdout);
    expect(printed).toMatchObject({ changed: true, counts: { entitiesCreated: 6, factsCreated: 7, chaptersCreated: 2, mentionsRecorded: 8, beatsRecorded: 2 } });
    const recall = await gw.request(`/projects/${printed.projectId}/recall`, { key });
    expect(recall.body.entities).toHaveLength(6);
    const state = await projectState(printed.projectId);

    const second = await lore(['import', file, '--key', key, '--json'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({ projectId: printed.projectId, changed: false, counts: zeroCounts, retiredFactsSkipped: [] });
    expect(await projectState(printed.projectId)).toEqual(state);
  });

  it('when a JSON bundle has errors, then exit 1 with the paths of its errors and nothing is written', { timeout: 180_000 }, async () => {
    const { key } = await gw.createKey('studio');
    const bundle = saltmarshBundle();
    bundle.project.name = 'CLI rejected';
    bundle.entities[1].type = 'dragon';
    bundle.relationships[0].to = 'nobody';
    const file = path.join(workDir, 'bad.json');
    await writeFile(file, JSON.stringify(bundle));
    const before = await rowCounts();
    const result = await lore(['import', file, '--key', key, '--json'], { DATABASE_URL: gw.databaseUrl });
    expect(result.code).toBe(1);
    const printed = JSON.parse(result.stdout);
    expect(printed.error.code).toBe('invalid_bundle');
    // Schema errors are reported first; references are checked once the bundle has a valid shape.
    expect(printed.error.errors.map((e: any) => e.path)).toEqual(['entities.1.type']);
    expect(result.stderr).toContain('invalid_bundle');
    expect(await rowCounts()).toEqual(before);
  });
});

describe('a novel-sized manuscript', () => {
  // A deterministic generator, so the expected mention count is known exactly.
  function manuscript() {
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const vocabulary = (
      'the a of and to in was he she it that on with as his her at by from they we said had not but were all ' +
      'there one so out up into over would when about what down could more some sea tide salt boat rope wind ' +
      'harbour storm grey water night morning light lamp shore rock gull net hull sail deck mast wave black cold ' +
      'long slow quiet under behind before after again still never always old young dark bright far near'
    ).split(' ');
    const first = ['Aldric', 'Brenna', 'Corin', 'Dalla', 'Edric', 'Fenna', 'Gideon', 'Hilde', 'Ivo', 'Jessamy', 'Kestrel', 'Lio',
      'Morwen', 'Nyle', 'Oswin', 'Petra', 'Quill', 'Rosalind', 'Sorrel', 'Tamsin', 'Ulric', 'Vesna', 'Wystan', 'Yarrow'];
    const characters = first.map((name, i) => ({
      key: `c${i}`, type: 'character', name: `${name} Hale${i}`, aliases: [name], facts: [`${name} was born on the coast.`],
    }));
    const places = ['Saltreach', 'Gullhaven', 'Blackrock', 'Mistmoor', 'Tidewell', 'Harrowdeep'].map((name, i) => ({
      key: `p${i}`, type: 'location', name,
    }));
    const names = [...characters.flatMap((c) => [c.name, c.aliases[0]]), ...places.map((p) => p.name)];
    let mentions = 0;
    let words = 0;
    const chapters = Array.from({ length: 30 }, (_, c) => {
      const lines: string[] = [];
      let line: string[] = [];
      let count = 0;
      while (count < 5000) {
        if (random() < 0.04) {
          const name = names[Math.floor(random() * names.length)];
          line.push(name);
          count += name.split(' ').length;
          mentions++;
        } else {
          line.push(vocabulary[Math.floor(random() * vocabulary.length)]);
          count++;
        }
        if (line.length >= 14) {
          lines.push(`${line.join(' ')}.`);
          line = [];
        }
      }
      if (line.length) lines.push(`${line.join(' ')}.`);
      words += count;
      return { id: `ch-${String(c + 1).padStart(2, '0')}`, title: `Chapter ${c + 1}`, ordinal: c + 1, text: lines.join('\n') };
    });
    const relationships = characters.slice(1).map((c, i) => ({ from: c.key, to: characters[i].key, kind: 'knows' }));
    const bundle = { project: { name: 'The Long Tide' }, entities: [...characters, ...places], relationships, chapters };
    return { bundle, mentions, words };
  }

  it('when 150,000 words in 30 chapters are imported, then it finishes in seconds with every mention recorded', { timeout: 240_000 }, async () => {
    const { key } = await gw.createKey('studio');
    const { bundle, mentions, words } = manuscript();
    expect(words).toBeGreaterThanOrEqual(150_000);
    const started = performance.now();
    const result = await runImport(key, bundle);
    const seconds = (performance.now() - started) / 1000;
    console.log(`150k-word import: ${words} words, ${bundle.chapters.length} chapters, ${mentions} mentions in ${seconds.toFixed(2)} s`);
    expect(seconds).toBeLessThan(60);
    expect(result.counts).toMatchObject({ entitiesCreated: 30, chaptersCreated: 30, mentionsRecorded: mentions, relationshipsCreated: 23 });
    expect(await gw.gateway.runtime.services.prisma.mention.count({ where: { projectId: result.projectId } })).toBe(mentions);

    const again = performance.now();
    const second = await runImport(key, bundle);
    const secondSeconds = (performance.now() - again) / 1000;
    console.log(`150k-word re-import (nothing changed): ${secondSeconds.toFixed(2)} s`);
    expect(second).toMatchObject({ changed: false, counts: zeroCounts });
    expect(secondSeconds).toBeLessThan(60);

    // Mentions of one character page through in reading order.
    const aldric = await entityId(result.projectId, 'c0');
    const page = await gw.request(`/projects/${result.projectId}/recall/${aldric}/mentions?limit=100`, { key });
    expect(page.status).toBe(200);
    const order = page.body.data.map((m: any) => [Number(m.chapter.slice(3)), m.line]);
    expect(order).toEqual([...order].sort((x: number[], y: number[]) => x[0] - y[0] || x[1] - y[1]));
  });
});
