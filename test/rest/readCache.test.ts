// Recall and search pages (and the REST bodies made of them) are kept in memory per gateway under the project's canon
// version: every change, by any gateway or any other writer of the database, must show in the very next answer, and a
// kept answer must never reach another account or skip a check.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectProblem } from '../support/problem.ts';

const bundle = {
  project: { name: 'The Salt Archive' },
  entities: [
    { key: 'mara', type: 'character', name: 'Mara Voss', aliases: ['the Captain'], status: 'suggested' },
    { key: 'keth', type: 'character', name: 'Keth Voss', facts: ['Keth keeps the ledger.'] },
    { key: 'tower', type: 'location', name: 'The Gull Tower' },
  ],
  chapters: [{ id: 'ch-01', ordinal: 1, title: 'Arrival', text: 'Mara Voss climbed the Gull Tower.\nKeth Voss waited below.' }],
};

let writer: TestGateway;
let reader: TestGateway;
let key: string;
let account: string;
let projectId: string;
let db: pg.Client;

const recall = (gw: TestGateway, q: string, as = key) => gw.request(`/projects/${projectId}/recall?q=${encodeURIComponent(q)}`, { key: as });
const search = (gw: TestGateway, q: string, as = key) => gw.request(`/projects/${projectId}/search?q=${encodeURIComponent(q)}`, { key: as });

async function only(gw: TestGateway, q: string) {
  const res = await recall(gw, q);
  expect(res.status).toBe(200);
  expect(res.body.entities).toHaveLength(1);
  return res.body.entities[0];
}

beforeAll(async () => {
  writer = await startTestGateway();
  reader = await startTestGateway({ DATABASE_URL: writer.databaseUrl });
  ({ key, account } = await writer.createKey('pro'));
  projectId = (await importBundle(writer, key, bundle)).projectId;
  db = new pg.Client({ connectionString: writer.databaseUrl });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await reader?.close();
  await writer?.close();
});

describe('read cache', () => {
  it('when a fact is approved through one gateway, then recall and search through another show it at once', async () => {
    const before = await only(reader, 'Mara');
    expect(before.approvalStatus).toBe('suggested');
    expect((await search(reader, 'lighthouse')).body.data).toEqual([]);

    const approved = await writer.request(`/projects/${projectId}/canon/${before.id}/approve`, {
      method: 'POST', key, json: { fact: 'Mara once kept the lighthouse.' },
    });
    expect(approved.status).toBe(200);

    expect((await only(reader, 'Mara')).approvalStatus).toBe('approved');
    expect((await search(reader, 'lighthouse')).body.data.map((e: { id: string }) => e.id)).toEqual([before.id]);
  });

  it('when a re-import changes an alias, then recall by the new alias finds the entity and the old one no longer does', async () => {
    expect((await only(reader, 'the Captain')).canonicalName).toBe('Mara Voss');
    const renamed = structuredClone(bundle);
    renamed.entities[0].aliases = ['the Harbourmaster'];
    await importBundle(writer, key, renamed, projectId);

    expect((await recall(reader, 'the Captain')).body.entities).toEqual([]);
    expect((await only(reader, 'Harbourmaster')).canonicalName).toBe('Mara Voss');
  });

  it('when another writer changes the database directly, then the next recall shows the change', async () => {
    const keth = await only(reader, 'Keth');
    expect(keth.lastMentions.map((m: { chapter: string }) => m.chapter)).toEqual(['ch-01']);
    expect(keth.pendingConflictIds).toEqual([]);

    await db.query(`UPDATE "Entity" SET state = '{"status": "missing"}' WHERE id = $1`, [keth.id]);
    expect((await only(reader, 'Keth')).currentState).toEqual({ status: 'missing' });

    await db.query(`DELETE FROM "Mention" WHERE "entityId" = $1`, [keth.id]);
    expect((await only(reader, 'Keth')).lastMentions).toEqual([]);

    await db.query(
      `INSERT INTO "Conflict" (id, "projectId", severity, kind, title, rationale, refs) VALUES ('cfl_cache_1', $1, 'high', 'state', 't', 'r', '{}')`,
      [projectId],
    );
    await db.query(`INSERT INTO "ConflictEntity" ("conflictId", "entityId") VALUES ('cfl_cache_1', $1)`, [keth.id]);
    expect((await only(reader, 'Keth')).pendingConflictIds).toEqual(['cfl_cache_1']);

    await db.query(`UPDATE "Conflict" SET status = 'resolved' WHERE id = 'cfl_cache_1'`);
    expect((await only(reader, 'Keth')).pendingConflictIds).toEqual([]);
  });

  it('when another account asks for a page this gateway has cached, then 404 as for any project of another account', async () => {
    expect((await recall(reader, 'Voss')).status).toBe(200);
    expect((await search(reader, 'Voss')).status).toBe(200);
    const { key: stranger } = await reader.createKey('pro');
    await expectProblem(await recall(reader, 'Voss', stranger), 404, 'not_found');
    await expectProblem(await search(reader, 'Voss', stranger), 404, 'not_found');
  });

  it('when an answer is served from memory, then the key, its scopes and its quota still apply to it', async () => {
    const kept = { recall: (await recall(reader, 'Voss')).text, search: (await search(reader, 'Voss')).text };
    expect((await recall(reader, 'Voss')).text).toBe(kept.recall);

    const limited = await writer.createKey('enterprise', { accountId: account, customQuota: 3 });
    expect((await recall(reader, 'Voss', limited.key)).text).toBe(kept.recall);
    expect((await search(reader, 'Voss', limited.key)).text).toBe(kept.search);
    await expectProblem(await recall(reader, 'Voss', limited.key), 402, 'quota_exceeded');

    const narrowed = await writer.createKey('pro', { accountId: account });
    await db.query(`UPDATE "ApiKey" SET scopes = '{graph}' WHERE id = $1`, [narrowed.id]);
    await expectProblem(await recall(reader, 'Voss', narrowed.key), 403, 'insufficient_scope');
    await expectProblem(await search(reader, 'Voss', narrowed.key), 403, 'insufficient_scope');

    const revoked = await writer.createKey('pro', { accountId: account });
    expect((await recall(reader, 'Voss', revoked.key)).text).toBe(kept.recall);
    await writer.gateway.runtime.services.keys.revoke(revoked.id);
    await expectProblem(await recall(reader, 'Voss', revoked.key), 401, 'AUTH_INVALID_KEY');
  });

  it('when a kept answer is sent, then its headers are those of a fresh one, and HEAD gets them without the body', async () => {
    const fresh = await recall(reader, 'eth Voss'); // asked for nowhere else in this file
    const kept = await recall(reader, 'eth Voss');
    const head = await reader.request(`/projects/${projectId}/recall?q=${encodeURIComponent('eth Voss')}`, { key, method: 'HEAD' });
    for (const res of [fresh, kept, head]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(fresh.text)));
      expect(res.headers.get('lore-api-version')).toBe('1.0');
      expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    }
    expect(kept.text).toBe(fresh.text);
    expect(head.text).toBe('');
  });

  it('when the cache is turned off, then recall and search answer exactly as with it', async () => {
    const uncached = await startTestGateway({ DATABASE_URL: writer.databaseUrl, LORE_READ_CACHE_MB: '0' });
    try {
      for (const q of ['Voss', 'Tower', '']) {
        expect((await recall(uncached, q)).body).toEqual((await recall(reader, q)).body);
      }
      for (const q of ['Voss', 'ledger', 'Gul Towr']) {
        expect((await search(uncached, q)).body).toEqual((await search(reader, q)).body);
      }
      await expectProblem(await recall(uncached, 'Voss', (await uncached.createKey('pro')).key), 404, 'not_found');
    } finally {
      await uncached.close();
    }
  });
});
