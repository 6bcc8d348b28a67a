// The audit log, black-box: writes made over REST and /graphql, and key changes made with the `lore keys` CLI, read
// back through GET /api/v1/audit and the GraphQL auditLog query.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditList } from '../../rest/schemas/audit.ts';
import { lore } from '../support/cli.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.ts';
import { entityIdsByName, startTestGateway, type ApiResponse, type TestGateway } from '../support/gateway.ts';
import { expectProblem } from '../support/problem.ts';

let gw: TestGateway;
let fake: FakeLlm;
const providerKey = 'sk-provider-audit-0123456789abcdef';

beforeAll(async () => {
  fake = await startFakeLlm();
  gw = await startTestGateway({ LORE_OPENAI_BASE_URL: fake.url });
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

type Entry = { id: string; key_id?: string; request_id: string; operation: string; targets: string[]; summary: Record<string, any>; created_at: string };

const graphql = (key: string, query: string, variables: Record<string, unknown> = {}) =>
  gw.request(`${gw.url}/graphql`, { method: 'POST', key, json: { query, variables } });

/** Every page of the caller's log, following next_starting_after. */
async function wholeLog(key: string, limit = 100): Promise<Entry[]> {
  const entries: Entry[] = [];
  let after: string | undefined;
  for (;;) {
    const res = await gw.request(`/audit?limit=${limit}${after ? `&starting_after=${after}` : ''}`, { key });
    expect(res.status, res.text).toBe(200);
    const page = AuditList.parse(res.body);
    entries.push(...(page.data as Entry[]));
    if (!page.has_more) return entries;
    after = page.next_starting_after;
  }
}

const requestId = (res: ApiResponse) => res.headers.get('x-request-id')!;

async function importSaltmarsh(key: string) {
  const res = await graphql(key, 'mutation ($bundle: JSON!) { importBundle(bundle: $bundle) { projectId } }', { bundle: saltmarshBundle() });
  expect(res.body.errors).toBeUndefined();
  return { res, projectId: res.body.data.importBundle.projectId as string };
}

async function entityIds(key: string, projectId: string): Promise<Record<string, string>> {
  return entityIdsByName(gw, key, projectId);
}

describe('audit log: writes', () => {
  it('when a studio key imports, creates a project, approves a fact, checks a passage and resolves the conflict, then the log lists each newest first with its key, request id, operation and ids', async () => {
    const studio = await gw.createKey('studio');
    const imported = await importSaltmarsh(studio.key);
    const ids = await entityIds(studio.key, imported.projectId);

    const created = await gw.request('/projects', { method: 'POST', key: studio.key, json: { name: 'Second book', description: 'The sequel.' } });
    expect(created.status).toBe(201);

    const approved = await gw.request(`/projects/${imported.projectId}/canon/${ids['Mara Voss']}/approve`, {
      method: 'POST', key: studio.key, json: { fact: 'Mara has a scar over her left eye.', content: 'The scar caught the lamplight.' },
    });
    expect(approved.status).toBe(200);

    fake.fallback = { object: { conflicts: [{ severity: 'P2', kind: 'rule_violation', episode: null, title: 'Spell at sea', rationale: 'Salt water breaks every spell.', refs: [ids['No magic at sea']] }] } };
    const passage = 'Mara Voss cast a spell over the waves at sea, far past Gull Point.';
    const checked = await gw.request(`/projects/${imported.projectId}/conflicts/check`, {
      method: 'POST', key: studio.key, headers: { 'X-LLM-Provider': 'openai', 'X-LLM-Key': providerKey }, json: { text: passage },
    });
    expect(checked.status, checked.text).toBe(200);
    const hit = checked.body.conflicts.find((h: any) => h.title === 'Spell at sea');
    expect(hit.id).toMatch(/^cfl_/);

    const resolved = await graphql(studio.key, 'mutation ($p: ID!, $c: ID!) { resolveConflict(projectId: $p, conflictId: $c, status: "resolved") { id status } }', { p: imported.projectId, c: hit.id });
    expect(resolved.body.data.resolveConflict.status).toBe('resolved');

    const log = await wholeLog(studio.key);
    expect(log.map((e) => e.operation)).toEqual(['resolveConflict', 'checkConflicts', 'approveFact', 'createProject', 'importBundle', 'keys.create']);
    const [resolveEntry, checkEntry, approveEntry, createEntry, importEntry, keyEntry] = log;
    expect(log.map((e) => e.id)).toEqual([...log.map((e) => e.id)].sort().reverse());

    for (const entry of log.slice(0, 5)) expect(entry.key_id).toBe(studio.id);
    expect(resolveEntry.request_id).toBe(requestId(resolved));
    expect(checkEntry.request_id).toBe(requestId(checked));
    expect(approveEntry.request_id).toBe(requestId(approved));
    expect(createEntry.request_id).toBe(requestId(created));
    expect(importEntry.request_id).toBe(requestId(imported.res));
    expect(new Set(log.slice(0, 5).map((e) => e.request_id)).size).toBe(5);

    expect(resolveEntry.targets).toEqual([imported.projectId, hit.id]);
    expect(checkEntry.targets).toEqual([imported.projectId, ...checked.body.conflicts.map((h: any) => h.id)]);
    expect(approveEntry.targets).toEqual([imported.projectId, ids['Mara Voss'], approved.body.candidateId, approved.body.decisionId]);
    expect(createEntry.targets).toEqual([created.body.id]);
    expect(importEntry.targets).toEqual([imported.projectId]);
    expect(keyEntry).toMatchObject({ request_id: 'cli', operation: 'keys.create', targets: [studio.id], summary: { tier: 'studio' } });
    expect(keyEntry.key_id).toBeUndefined();

    // Arguments are summarised: short values kept, prose only as its length, a bundle as its shape.
    expect(resolveEntry.summary).toEqual({ projectId: imported.projectId, conflictId: hit.id, status: 'resolved' });
    expect(checkEntry.summary).toEqual({ projectId: imported.projectId, text: { chars: passage.length } });
    expect(approveEntry.summary).toEqual({
      projectId: imported.projectId, entityId: ids['Mara Voss'], fact: 'Mara has a scar over her left eye.', content: { chars: 'The scar caught the lamplight.'.length },
    });
    expect(createEntry.summary).toEqual({ input: { name: 'Second book', description: 'The sequel.' } });
    const bundle = saltmarshBundle();
    expect(importEntry.summary).toEqual({
      bundle: {
        project: bundle.project,
        entities: { items: bundle.entities.length },
        relationships: { items: bundle.relationships.length },
        chapters: { items: bundle.chapters.length },
        timeline: { items: bundle.timeline.length },
      },
    });
    for (const entry of log) expect(Date.parse(entry.created_at)).toBeGreaterThan(Date.now() - 10 * 60_000);

    // /graphql reads the same log.
    const viaGraphql = await graphql(studio.key, '{ auditLog(limit: 100) { data { id keyId requestId operation targets summary createdAt } hasMore nextStartingAfter } }');
    expect(viaGraphql.body.data.auditLog).toEqual({
      data: log.map((e) => ({ id: e.id, keyId: e.key_id ?? null, requestId: e.request_id, operation: e.operation, targets: e.targets, summary: e.summary, createdAt: e.created_at })),
      hasMore: false,
      nextStartingAfter: null,
    });
  });

  it("when another key of the same account writes, then the account's log shows it under that key; another account's log shows none of it", async () => {
    const studio = await gw.createKey('studio');
    const writer = await gw.createKey('pro', { accountId: studio.account });
    const created = await gw.request('/projects', { method: 'POST', key: writer.key, json: { name: 'Shared draft' } });
    expect(created.status).toBe(201);

    const log = await wholeLog(studio.key);
    expect(log[0]).toMatchObject({ operation: 'createProject', key_id: writer.id, request_id: requestId(created), targets: [created.body.id] });

    const stranger = await gw.createKey('studio');
    await gw.request('/projects', { method: 'POST', key: stranger.key, json: { name: 'Their own book' } });
    const theirs = await wholeLog(stranger.key);
    expect(theirs.map((e) => e.operation)).toEqual(['createProject', 'keys.create']);
    const theirIds = new Set(theirs.map((e) => e.id));
    for (const entry of log) expect(theirIds.has(entry.id)).toBe(false);
    expect(JSON.stringify(theirs)).not.toContain(created.body.id);
    expect(JSON.stringify(theirs)).not.toContain(writer.id);

    // Neither can page from the other's entries.
    expectProblem(await gw.request(`/audit?starting_after=${log[0].id}`, { key: stranger.key }), 400, 'invalid_cursor');
  });

  it('when the log is read a page at a time, then the pages join into the whole log in order, and a cursor not in it is a 400', async () => {
    const studio = await gw.createKey('studio');
    for (const name of ['One', 'Two', 'Three', 'Four']) {
      expect((await gw.request('/projects', { method: 'POST', key: studio.key, json: { name } })).status).toBe(201);
    }
    const whole = await wholeLog(studio.key);
    expect(whole).toHaveLength(5);

    const first = await gw.request('/audit?limit=2', { key: studio.key });
    expect(first.body).toMatchObject({ has_more: true, next_starting_after: first.body.data[1].id });
    expect(first.body.data.map((e: Entry) => e.summary.input?.name)).toEqual(['Four', 'Three']);
    const paged = await wholeLog(studio.key, 2);
    expect(paged).toEqual(whole);
    const last = await gw.request(`/audit?limit=2&starting_after=${whole[2].id}`, { key: studio.key });
    expect(last.body.data.map((e: Entry) => e.id)).toEqual([whole[3].id, whole[4].id]);
    expect(last.body.has_more).toBe(false);
    expect(last.body.next_starting_after).toBeUndefined();

    expectProblem(await gw.request('/audit?starting_after=aud_nosuchentry', { key: studio.key }), 400, 'invalid_cursor');
    expectProblem(await gw.request('/audit?limit=0', { key: studio.key }), 400, 'validation_error');
    expectProblem(await gw.request('/audit?limit=101', { key: studio.key }), 400, 'validation_error');
    const viaGraphql = await graphql(studio.key, '{ auditLog(startingAfter: "aud_nosuchentry") { hasMore } }');
    expect(viaGraphql.body.errors[0].extensions.code).toBe('invalid_cursor');
  });

  it('when a pro key reads the log, then 403 insufficient_scope on REST and GraphQL', async () => {
    const pro = await gw.createKey('pro');
    expectProblem(await gw.request('/audit', { key: pro.key }), 403, 'insufficient_scope');
    const res = await graphql(pro.key, '{ auditLog { hasMore } }');
    expect(res.body.errors[0].extensions.code).toBe('insufficient_scope');
    expect(res.body.data).toBeNull();
  });

  it('when an entity is created, then its entry names the project, the entity and the ids its answer holds (ids in its state), as every write\'s does', async () => {
    const studio = await gw.createKey('studio');
    const project = (await gw.request('/projects', { method: 'POST', key: studio.key, json: { name: 'Audited entities' } })).body.id as string;
    const owner = (await gw.request(`/projects/${project}/entities`, { method: 'POST', key: studio.key, json: { type: 'character', name: 'Wren Hale' } })).body.id as string;
    const created = await gw.request(`/projects/${project}/entities`, {
      method: 'POST', key: studio.key,
      json: { type: 'object', name: 'The Curlew', state: { ownerId: owner, moored: { placeId: 'plc_harbour' } } },
    });
    expect(created.status, created.text).toBe(201);
    const entries = (await wholeLog(studio.key)).filter((e) => e.operation === 'createEntity');
    expect(entries.map((e) => e.request_id)).toEqual([requestId(created), expect.any(String)]);
    // The state's fields in the order PostgreSQL keeps them (shorter names first).
    expect(entries[0].targets).toEqual([project, created.body.id, 'plc_harbour', owner]);
  });

  it("when an entity's state is changed, then its entry names the project, the entity and the ids its answer holds (ids in its state, its facts), as every write's does, and a refused change records nothing", async () => {
    const studio = await gw.createKey('studio');
    const project = (await gw.request('/projects', { method: 'POST', key: studio.key, json: { name: 'Audited states' } })).body.id as string;
    const entity = (path: string, json: Record<string, unknown>) => gw.request(`/projects/${project}/entities${path}`, { method: path ? 'PATCH' : 'POST', key: studio.key, json });
    const owner = (await entity('', { type: 'character', name: 'Wren Hale' })).body.id as string;
    const boat = (await entity('', { type: 'object', name: 'The Curlew', state: { ownerId: owner, moored: { placeId: 'plc_harbour' } } })).body.id as string;
    const facts: string[] = [];
    for (const text of ['The Curlew leaks at the bow.', 'The Curlew was built in the north.']) {
      const fact = await gw.request(`/projects/${project}/facts`, { method: 'POST', key: studio.key, json: { entity_id: boat, text } });
      expect(fact.status, fact.text).toBe(201);
      facts.push(fact.body.id);
    }
    const changed = await entity(`/${boat}`, { state: { mood: 'listing' }, expected_version: 1 });
    expect(changed.status, changed.text).toBe(200);
    expectProblem(await entity(`/${boat}`, { state: { mood: 'sunk' }, expected_version: 1 }), 409, 'version_conflict');
    const [entry, ...earlier] = (await wholeLog(studio.key)).filter((e) => e.operation === 'updateEntity');
    expect(earlier).toEqual([]);
    // The state's fields in the order PostgreSQL keeps them (shorter names first), then the facts in the order of their ids.
    expect(entry).toMatchObject({ request_id: requestId(changed), targets: [project, boat, 'plc_harbour', owner, ...facts.sort()] });
  });

  it('when a mutation fails (bad input, unknown ids, an invalid bundle), then nothing is recorded', async () => {
    const studio = await gw.createKey('studio');
    const { projectId } = await importSaltmarsh(studio.key);
    const before = await wholeLog(studio.key);

    expectProblem(await gw.request('/projects', { method: 'POST', key: studio.key, json: { name: '' } }), 400, 'validation_error');
    expectProblem(await gw.request(`/projects/${projectId}/canon/ent_nosuchentity/approve`, { method: 'POST', key: studio.key, json: { fact: 'x' } }), 404, 'not_found');
    expectProblem(await gw.request(`/projects/${projectId}/conflicts/check`, {
      method: 'POST', key: studio.key, headers: { 'X-LLM-Provider': 'openai', 'X-LLM-Key': providerKey }, json: { text: '' },
    }), 400, 'validation_error');
    const badBundle = await graphql(studio.key, 'mutation ($b: JSON!) { importBundle(bundle: $b) { projectId } }', { b: { project: { name: '' }, entities: [{ key: 'x', type: 'dragon', name: '' }] } });
    expect(badBundle.body.errors[0].extensions.code).toBe('invalid_bundle');
    const badStatus = await graphql(studio.key, 'mutation ($p: ID!) { resolveConflict(projectId: $p, conflictId: "cfl_nosuch", status: "maybe") { id } }', { p: projectId });
    expect(badStatus.body.errors[0].extensions.code).toBe('validation_error');

    expect(await wholeLog(studio.key)).toEqual(before);
  });

  it('when a create is replayed with the same Idempotency-Key, then only the first request, which wrote, is recorded', async () => {
    const studio = await gw.createKey('studio');
    const send = () => gw.request('/projects', { method: 'POST', key: studio.key, headers: { 'Idempotency-Key': 'audit-once' }, json: { name: 'Once' } });
    const first = await send();
    const replay = await send();
    expect(replay.body.id).toBe(first.body.id);
    const log = await wholeLog(studio.key);
    expect(log.map((e) => e.operation)).toEqual(['createProject', 'keys.create']);
    expect(log[0]).toMatchObject({ request_id: requestId(first), targets: [first.body.id], summary: { idempotencyKey: 'audit-once' } });
  });
});

describe('audit log: keys and secrets', { timeout: 240_000 }, () => {
  async function loreJson(args: string[]) {
    const result = await lore([...args, '--json'], { DATABASE_URL: gw.databaseUrl });
    if (result.code !== 0) throw new Error(`lore ${args.join(' ')} exited ${result.code}:\n${result.stderr}`);
    return JSON.parse(result.stdout);
  }

  it('when keys are created, rotated and revoked with the CLI, then each is in their account\'s log as the operator\'s, naming the keys and never a secret', async () => {
    const first = await loreJson(['keys', 'create', '--tier', 'pro', '--name', 'Draft room']);
    const rotated = await loreJson(['keys', 'rotate', first.id]);
    const revoked = await lore(['keys', 'revoke', rotated.id], { DATABASE_URL: gw.databaseUrl });
    expect(revoked.code, revoked.stderr).toBe(0);
    const reader = await loreJson(['keys', 'create', '--tier', 'studio', '--account', first.account]);

    const log = await wholeLog(reader.key);
    expect(log.map(({ operation, targets, request_id, key_id, summary }) => ({ operation, targets, request_id, key_id, summary }))).toEqual([
      { operation: 'keys.create', targets: [reader.id], request_id: 'cli', key_id: undefined, summary: { tier: 'studio' } },
      { operation: 'keys.revoke', targets: [rotated.id], request_id: 'cli', key_id: undefined, summary: { tier: 'pro', name: 'Draft room' } },
      { operation: 'keys.rotate', targets: [first.id, rotated.id], request_id: 'cli', key_id: undefined, summary: { tier: 'pro', name: 'Draft room' } },
      { operation: 'keys.create', targets: [first.id], request_id: 'cli', key_id: undefined, summary: { tier: 'pro', name: 'Draft room' } },
    ]);
    const text = JSON.stringify(log);
    for (const secret of [first.key, rotated.key, reader.key]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(createHash('sha256').update(secret).digest('hex'));
    }
    expect(text).not.toContain('sk_lore_');

    // A key another account made is not in this one's log.
    const other = await loreJson(['keys', 'create', '--tier', 'studio']);
    expect(JSON.stringify(await wholeLog(reader.key))).not.toContain(other.id);
  });

  it('when secrets travel with writes (the key, a provider key, a key pasted into text, passage and chapter text), then none of them is anywhere in the log', async () => {
    const studio = await gw.createKey('studio');
    const bundle = saltmarshBundle();
    const chapterText = bundle.chapters[1].text as string;
    const { projectId } = await importSaltmarsh(studio.key);
    const ids = await entityIds(studio.key, projectId);
    const pasted = await gw.request('/projects', { method: 'POST', key: studio.key, json: { name: 'Notes', description: `my key is ${studio.key} do not share` } });
    expect(pasted.status).toBe(201);
    const approved = await gw.request(`/projects/${projectId}/canon/${ids['Keth Voss']}/approve`, {
      method: 'POST', key: studio.key, json: { fact: `Keth kept the ledger (${studio.key}).`, content: 'A secret passage about the ledger.' },
    });
    expect(approved.status).toBe(200);
    fake.fallback = { object: { conflicts: [] } };
    const passage = 'Keth Voss rowed back to the Heron with the ledger under his arm.';
    const checked = await gw.request(`/projects/${projectId}/conflicts/check`, {
      method: 'POST', key: studio.key, headers: { 'X-LLM-Provider': 'openai', 'X-LLM-Key': providerKey }, json: { text: passage },
    });
    expect(checked.status, checked.text).toBe(200);

    const log = await wholeLog(studio.key);
    expect(log.map((e) => e.operation)).toEqual(['checkConflicts', 'approveFact', 'createProject', 'importBundle', 'keys.create']);
    const text = JSON.stringify(log);
    for (const secret of ['sk_lore_', studio.key, createHash('sha256').update(studio.key).digest('hex'), providerKey, passage, chapterText, chapterText.split('\n')[1], 'A secret passage']) {
      expect(text, secret).not.toContain(secret);
    }
    expect(log[2].summary.input.description).toBe('my key is [redacted key] do not share');

    // Nor in any account's stored entries.
    const stored = JSON.stringify(await gw.gateway.runtime.services.prisma.auditEntry.findMany());
    for (const secret of ['sk_lore_', studio.key, providerKey, passage, chapterText]) expect(stored, secret).not.toContain(secret);
  });
});
