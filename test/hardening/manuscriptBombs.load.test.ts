// Issue 25, item 2: while one account sends manuscripts that are refused for what they would cost (a .docx that
// inflates to 400 MB, declared or forged, and one that inflates within the limit to 120 MB of text, more than one
// import may take to read), another account's requests keep their p99. A real `lore serve`; the figures are printed.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { docxBomb } from '../manuscripts/fixtures.ts';
import { saltmarshBundle } from '../support/fixtures.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { sampleRequests } from '../support/otherTenant.ts';
import { spawnGateway, type GatewayProcess } from '../support/processes.ts';

const megabyte = 1024 * 1024;
let gw: TestGateway;
let served: GatewayProcess;

beforeAll(async () => {
  // The in-process gateway makes the keys and the database; the measured one is its own process.
  gw = await startTestGateway();
  // A document that takes long to read is stopped after 10 s rather than the default 60, so the test takes a minute.
  served = await spawnGateway(gw.databaseUrl, { LORE_MANUSCRIPT_TIMEOUT_MS: '10000' });
}, 180_000);
afterAll(async () => {
  await served?.stop();
  await gw?.close();
});

const peakMb = (pid: number) => Math.round(Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);

it('when one account sends 20 zip bombs and, beside them, two documents of 120 MB of text, then another account\'s GET /usage and recall stay under 200 ms at p99 (or twice their idle p99), every bomb is a 4xx and the gateway\'s memory stays put', async () => {
  const { key: otherKey } = await gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 });
  const { key: attackerKey } = await gw.createKey('enterprise', { customQuota: 1_000_000, customRate: 1_000_000 });
  const { projectId } = await importBundle(gw, otherKey, saltmarshBundle());
  const bombs: Record<string, Buffer> = {
    'declared.docx': await docxBomb(400 * megabyte),
    'forged.docx': await docxBomb(400 * megabyte, 2_000),
    'long.docx': await docxBomb(120 * megabyte),
  };

  const requests = ['/api/v1/usage', `/api/v1/projects/${projectId}/recall?limit=20`];
  const failures: string[] = [];
  const otherAccount = (isDone: () => boolean) => sampleRequests(served.url, otherKey, requests, isDone, failures);

  const idleUntil = Date.now() + 5_000;
  const idle = await otherAccount(() => Date.now() > idleUntil);
  const rssBefore = peakMb(served.child.pid!);
  const refused: string[] = [];
  let done = false;
  /** Sends each of `files` in turn, `times` requests in all, one after another. */
  const attacker = async (files: string[], times: number) => {
    for (let i = 0; i < times; i++) {
      const path = files[i % files.length];
      const res = await fetch(`${served.url}/graphql`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${attackerKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          query: 'mutation ($files: [ManuscriptFileInput!]!) { importManuscript(name: "Bomb", format: docx, files: $files) { projectId } }',
          variables: { files: [{ path, content: bombs[path].toString('base64'), encoding: 'base64' }] },
        }),
      });
      const body = (await res.json()) as { errors?: { extensions: { code: string; status: number } }[] };
      refused.push(`${path}: ${body.errors?.map((e) => `${e.extensions.code} ${e.extensions.status}`).join(', ') ?? 'imported'}`);
    }
  };
  const started = performance.now();
  const attacking = Promise.all([attacker(['declared.docx', 'forged.docx'], 20), attacker(['long.docx'], 2)]).finally(() => (done = true));
  const during = await otherAccount(() => done);
  await attacking;
  const rssAfter = peakMb(served.child.pid!);

  console.log(
    `issue 25 item 2: ${refused.length} bombs refused in ${((performance.now() - started) / 1000).toFixed(1)} s (${[...new Set(refused)].join('; ')}); ` +
      `the other account's GET /usage and recall: idle p50 ${idle.p50} ms, p99 ${idle.p99} ms (${idle.requests} requests); ` +
      `meanwhile p50 ${during.p50} ms, p99 ${during.p99} ms, max ${during.max} ms (${during.requests} requests); gateway peak RSS ${rssBefore} MB before, ${rssAfter} MB after`,
  );
  expect(failures).toEqual([]);
  expect(refused).toHaveLength(22);
  expect(refused.every((r) => / (payload_too_large 413|validation_error 400)$/.test(r)), refused.join('\n')).toBe(true);
  // On a machine busy with other work the idle p99 itself may pass 200 ms: then the bar is twice what it was idle.
  expect(during.p99).toBeLessThan(Math.max(200, 2 * idle.p99));
  // Enough requests ran meanwhile for a p99 to mean something.
  expect(during.requests).toBeGreaterThanOrEqual(100);
  expect(rssAfter - rssBefore).toBeLessThan(300);
}, 300_000);
