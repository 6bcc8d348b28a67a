// `lore keys …` and `lore import` as child processes against PostgreSQL (DATABASE_URL), checked over HTTP on a gateway
// that serves the same database. Keys a test only needs as setup come from the key service directly.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanFailure, lore, repoRoot } from '../support/cli.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let dir: string;
let env: Record<string, string>;
const example = path.join(repoRoot, 'examples/saltmarsh.json');
beforeAll(async () => {
  gw = await startTestGateway();
  env = { DATABASE_URL: gw.databaseUrl };
  dir = await mkdtemp(path.join(tmpdir(), 'lore-cli-'));
});
afterAll(async () => {
  await gw?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function loreJson(args: string[]) {
  const result = await lore([...args, '--json'], env);
  if (result.code !== 0) throw new Error(`lore ${args.join(' ')} exited ${result.code}:\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

// The contract's table of scopes by tier.
const free = ['recall', 'remember', 'graph', 'search'];
const indie = [...free, 'check', 'timeline', 'usage'];
const pro = [...indie, 'projects:read', 'projects:write'];
const studio = [...pro, 'audit:read'];
const contractScopes: Record<string, string[]> = {
  free, indie, pro, studio,
  studio_managed: [...studio, 'managed_llm'],
  enterprise: [...studio, 'managed_llm'],
};
const quotas: Record<string, number> = { free: 50, indie: 1_000, pro: 10_000, studio: 100_000, studio_managed: 100_000 };

// Each CLI run loads the sources through tsx: seconds apiece, many more on a busy machine.
describe('lore keys create', { timeout: 240_000 }, () => {
  it('when a key is created for each tier, then the JSON carries id, key, account, tier and the tier\'s scopes, and the key works', async () => {
    const tiers = Object.keys(contractScopes);
    const created = await Promise.all(tiers.map((tier) => loreJson(['keys', 'create', '--tier', tier])));
    for (const [i, tier] of tiers.entries()) {
      const k = created[i];
      expect(k).toMatchObject({ id: expect.stringMatching(/^key_/), key: expect.stringMatching(/^sk_lore_[0-9A-Za-z]{40}$/), account: expect.stringMatching(/^acc_/), tier });
      expect([...k.scopes].sort(), tier).toEqual([...contractScopes[tier]].sort());
      const usage = await gw.request('/usage', { key: k.key });
      expect(usage.status, tier).toBe(200);
      expect(usage.body.api_key_id).toBe(k.id);
      if (quotas[tier]) expect(usage.body.quota, tier).toBe(quotas[tier]);
    }
    expect(new Set(created.map((k) => k.account)).size).toBe(tiers.length);
  });

  it('when --account names an existing account, then the new key shares its projects', async () => {
    const first = await loreJson(['keys', 'create', '--tier', 'pro']);
    const project = await gw.request('/projects', { method: 'POST', key: first.key, json: { name: 'Shared by two keys' } });
    expect(project.status).toBe(201);
    const second = await loreJson(['keys', 'create', '--tier', 'pro', '--account', first.account]);
    expect(second.account).toBe(first.account);
    expect(second.id).not.toBe(first.id);
    const list = await gw.request('/projects', { key: second.key });
    expect(list.body.data.map((p: any) => p.id)).toEqual([project.body.id]);
  });

  it('when --expires-at is given, then the key works until then and is refused with AUTH_EXPIRED_KEY after', async () => {
    const until = new Date(Date.now() + 86_400_000).toISOString();
    const [future, past] = await Promise.all([
      loreJson(['keys', 'create', '--tier', 'indie', '--expires-at', until]),
      loreJson(['keys', 'create', '--tier', 'indie', '--expires-at', '2020-01-01T00:00:00Z']),
    ]);
    expect(future.expiresAt).toBe(until);
    expect((await gw.request('/usage', { key: future.key })).status).toBe(200);
    const expired = await gw.request('/usage', { key: past.key });
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe('AUTH_EXPIRED_KEY');
  });

  it('when the tier or the expiry is invalid, then it exits non-zero with a clear message and creates nothing', async () => {
    const before = await gw.gateway.runtime.services.prisma.apiKey.count();
    const [tier, expiry, missing] = await Promise.all([
      lore(['keys', 'create', '--tier', 'platinum', '--json'], env),
      lore(['keys', 'create', '--tier', 'pro', '--expires-at', 'next tuesday'], env),
      lore(['keys', 'create'], env),
    ]);
    expectCleanFailure(tier, /'platinum' is invalid.*free, indie, pro, studio, studio_managed, enterprise/);
    expect(tier.stdout).toBe('');
    expectCleanFailure(expiry, /--expires-at.*ISO 8601/);
    expectCleanFailure(missing, /--tier/);
    expect(await gw.gateway.runtime.services.prisma.apiKey.count()).toBe(before);
  });
});

describe('lore keys list, rotate, revoke', { timeout: 240_000 }, () => {
  it('when keys are listed, as text or JSON, then no secret is printed', async () => {
    const created = await loreJson(['keys', 'create', '--tier', 'studio', '--name', 'listed']);
    const [text, json] = await Promise.all([lore(['keys', 'list'], env), lore(['keys', 'list', '--json'], env)]);
    expect(text.code).toBe(0);
    expect(json.code).toBe(0);
    for (const out of [text.stdout, json.stdout]) {
      expect(out).toContain(created.id);
      expect(out).not.toContain(created.key);
      expect(out).not.toContain(created.key.slice(12));
      expect(out).not.toMatch(/sk_lore_[0-9A-Za-z]{12,}/);
    }
    const row = JSON.parse(json.stdout).find((k: any) => k.id === created.id);
    expect(row).toMatchObject({ account: created.account, tier: 'studio', status: 'active', name: 'listed' });
    expect(row.prefix).toBe(`${created.key.slice(0, 12)}…`);
  });

  it('when a key is rotated, then a new key works for the same account and the old one stops at once', async () => {
    const old = await gw.createKey('pro');
    const project = await gw.request('/projects', { method: 'POST', key: old.key, json: { name: 'Survives rotation' } });
    const rotated = await loreJson(['keys', 'rotate', old.id]);
    expect(rotated).toMatchObject({ account: old.account, tier: 'pro', replaces: old.id });
    expect(rotated.key).toMatch(/^sk_lore_[0-9A-Za-z]{40}$/);
    expect(rotated.key).not.toBe(old.key);
    expect(rotated.id).not.toBe(old.id);
    const refused = await gw.request('/projects', { key: old.key });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('AUTH_INVALID_KEY');
    const list = await gw.request('/projects', { key: rotated.key });
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: any) => p.id)).toContain(project.body.id);
  });

  it('when one key is rotated six times at once, then one rotation succeeds and the others find it already rotated', async () => {
    const old = await gw.createKey('indie');
    const keys = gw.gateway.runtime.services.keys;
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => keys.rotate(old.id)));
    const done = outcomes.filter((o) => o.status === 'fulfilled');
    expect(done).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toMatchObject({ code: 'not_found' });
    const active = (await keys.list()).filter((k) => k.account === old.account && k.status === 'active');
    expect(active.map((k) => k.id)).toEqual([done[0].value.id]);
  });

  it('when a key is revoked, then it stops, and revoking it again fails with not_found', async () => {
    const created = await gw.createKey('pro');
    expect((await gw.request('/usage', { key: created.key })).status).toBe(200);
    const revoked = await lore(['keys', 'revoke', created.id], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain(created.id);
    expect((await gw.request('/usage', { key: created.key })).body.code).toBe('AUTH_INVALID_KEY');
    expectCleanFailure(await lore(['keys', 'revoke', created.id], env), /not_found/);
  });
});

describe('lore import', { timeout: 240_000 }, () => {
  it('when a bundle is imported, then it prints the project id and counts, and the canon is served over HTTP', async () => {
    const { key } = await gw.createKey('pro');
    const bundle = saltmarshBundle();
    const file = path.join(dir, 'saltmarsh.json');
    await writeFile(file, JSON.stringify(bundle));
    const result = await loreJson(['import', file, '--key', key]);
    expect(result).toMatchObject({ projectId: expect.stringMatching(/^prj_/), changed: true });
    expect(result.counts).toMatchObject({
      entitiesCreated: bundle.entities.length,
      relationshipsCreated: bundle.relationships.length,
      chaptersCreated: bundle.chapters.length,
    });
    expect(result.counts.mentionsRecorded).toBeGreaterThan(0);
    const recall = await gw.request(`/projects/${result.projectId}/recall?limit=100`, { key });
    expect(recall.status).toBe(200);
    expect(recall.body.entities.map((e: any) => e.canonicalName).sort()).toEqual(bundle.entities.map((e: any) => e.name).sort());
    const projects = await gw.request('/projects', { key });
    expect(projects.body.data).toEqual([expect.objectContaining({ id: result.projectId, name: bundle.project.name, entity_count: bundle.entities.length })]);

    // The same canon as YAML changes nothing.
    const yamlFile = path.join(dir, 'saltmarsh.yaml');
    await writeFile(yamlFile, YAML.stringify(bundle));
    const again = await loreJson(['import', yamlFile, '--key', key]);
    expect(again).toMatchObject({ projectId: result.projectId, changed: false });
    expect(Object.values(again.counts).every((n) => n === 0)).toBe(true);
  });

  it('when the key, the file or the bundle is bad, then it exits non-zero with a clear message', async () => {
    const { key } = await gw.createKey('free');
    const invalid = path.join(dir, 'invalid.json');
    await writeFile(invalid, JSON.stringify({ project: { name: '' }, entities: [{ key: 'a', type: 'dragon', name: 'A' }] }));
    const [badKey, noFile, badBundle] = await Promise.all([
      lore(['import', example, '--key', `sk_lore_${'C'.repeat(40)}`], env),
      lore(['import', path.join(dir, 'missing.json'), '--key', key], env),
      lore(['import', invalid, '--key', key, '--json'], env),
    ]);
    expectCleanFailure(badKey, /AUTH_INVALID_KEY/);
    expectCleanFailure(noFile, /cannot read .*missing\.json/);
    expectCleanFailure(badBundle, /invalid_bundle/);
    const printed = JSON.parse(badBundle.stdout);
    expect(printed.error.code).toBe('invalid_bundle');
    expect(printed.error.errors.map((e: any) => e.path)).toEqual(expect.arrayContaining(['project.name', 'entities.0.type']));
  });
});
