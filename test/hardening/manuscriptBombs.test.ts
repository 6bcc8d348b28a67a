// Issue 25, item 2: no manuscript a client can send takes the gateway down. A .docx that inflates to 400 MB (a zip
// bomb, its sizes declared or forged), a document too heavy to read within the memory or time one import may take, a
// Scrivener project declaring XML entities: each is one 4xx problem naming the file, nothing is written, and the
// gateway (a real `lore serve`, whose memory is read from /proc) goes on serving.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docxBomb, markdownBook } from '../manuscripts/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { spawnGateway, type GatewayProcess } from '../support/processes.ts';

const megabyte = 1024 * 1024;
const importManuscript = `mutation ($name: String, $format: ManuscriptFormat!, $files: [ManuscriptFileInput!]!) {
  importManuscript(name: $name, format: $format, files: $files) { projectId chapterCount }
}`;

type GraphqlAnswer = { status: number; data?: any; errors?: { message: string; extensions: { code: string; errors?: { path: string; message: string }[] } }[] };

async function sendManuscript(url: string, key: string, name: string, format: string, files: { path: string; content: string; encoding?: string }[]): Promise<GraphqlAnswer> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: importManuscript, variables: { name, format, files } }),
  });
  return { status: res.status, ...((await res.json()) as object) };
}

const docxFile = (path: string, content: Buffer) => ({ path, content: content.toString('base64'), encoding: 'base64' });

/** The process's resident memory now and at its peak (the kernel's high-water mark), in MB. */
function memoryOf(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]);
  return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
}

/** The peak memory of the process's children (its manuscript readers), in MB each. */
const childrenPeaks = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map((child) => memoryOf(Number(child)).peak);

/** The single refusal: a 4xx code, one line. */
function refusal(answer: GraphqlAnswer, code: string) {
  expect(answer.data?.importManuscript ?? null, JSON.stringify(answer)).toBeNull();
  expect(answer.errors?.map((e) => e.extensions.code), JSON.stringify(answer.errors)).toEqual([code]);
  const message = answer.errors![0].message;
  expect(message).not.toContain('\n');
  return message;
}

let gw: TestGateway;
const gateways: TestGateway[] = [];

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  for (const g of [gw, ...gateways]) await g?.close();
});

/** The account's projects: what an import would have written. */
const projectsOf = async (g: TestGateway, k: string) => (await g.request('/projects', { key: k })).body.data.map((p: { name: string }) => p.name);

describe('a .docx zip bomb sent to a running gateway', () => {
  let served: GatewayProcess;
  beforeAll(async () => {
    served = await spawnGateway(gw.databaseUrl);
  });
  afterAll(async () => {
    await served?.stop();
  });

  it('when a .docx inflating to 400 MB is imported, its sizes declared or forged, then each is a one-line 4xx naming the file and the limit, nothing is written, and the gateway stays well under 300 MB above where it was', async () => {
    const { key: attacker } = await gw.createKey('pro');
    const [declared, forged] = [await docxBomb(400 * megabyte), await docxBomb(400 * megabyte, 2_000)];
    // A manuscript read first, so that the reader thread's own memory is in the baseline.
    const warm = await sendManuscript(served.url, attacker, 'Warm', 'markdown', [{ path: 'warm.md', content: markdownBook([{ title: 'One', text: 'Mara.' }]) }]);
    expect(warm.errors, JSON.stringify(warm.errors)).toBeUndefined();
    const before = memoryOf(served.child.pid!);

    const declaredAnswer = await sendManuscript(served.url, attacker, 'Bomb', 'docx', [docxFile('bomb.docx', declared)]);
    expect(refusal(declaredAnswer, 'payload_too_large')).toMatch(/^bomb\.docx would inflate to more than 128 MB \(its directory declares \d+ MB so far\); an archive may inflate to at most 128 MB; nothing was imported\.$/);
    const forgedAnswer = await sendManuscript(served.url, attacker, 'Bomb', 'docx', [docxFile('forged.docx', forged)]);
    expect(refusal(forgedAnswer, 'validation_error')).toMatch(/forged\.docx: is a corrupt \.docx file: word\/document\.xml inflates to more than the 2,000 bytes its directory declares/);

    const after = memoryOf(served.child.pid!);
    const readers = childrenPeaks(served.child.pid!);
    console.log(
      `issue 25 item 2: gateway RSS ${before.rss} MB before the bombs (peak ${before.peak} MB), ${after.rss} MB after, peak ${after.peak} MB; ` +
        `its manuscript reader's peak ${readers.join(', ')} MB (docx ${(declared.length / megabyte).toFixed(1)} MB inflating to 400 MB)`,
    );
    expect(after.peak - before.rss).toBeLessThan(300);
    expect(Math.max(...readers)).toBeLessThan(300);
    expect((await served.request('/projects', { key: attacker })).body.data.map((p: { name: string }) => p.name)).toEqual(['Warm']);
    expect((await fetch(`${served.url}/health`)).status).toBe(200);
  });
});

describe('documents too heavy for one import', () => {
  it('when a .docx inflates, within the archive limit, to more than the reader process\'s heap, then 413 naming the file and the memory limit, nothing is written, and the next import is read', async () => {
    const small = await startTestGateway({ LORE_MANUSCRIPT_MEMORY_MB: '32' });
    gateways.push(small);
    const { key: writer } = await small.createKey('pro');
    const heavy = await sendManuscript(small.url, writer, 'Heavy', 'docx', [docxFile('heavy.docx', await docxBomb(64 * megabyte))]);
    expect(refusal(heavy, 'payload_too_large')).toBe('heavy.docx needs more than the 32 MB of memory one import may use to read; nothing was imported. Split it into smaller files, or import it in parts.');
    expect(await projectsOf(small, writer)).toEqual([]);
    const next = await sendManuscript(small.url, writer, 'Light', 'markdown', [{ path: 'light.md', content: markdownBook([{ title: 'One', text: 'Mara.' }]) }]);
    expect(next.errors, JSON.stringify(next.errors)).toBeUndefined();
    expect(next.data.importManuscript.chapterCount).toBe(1);
  });

  it('when reading takes longer than LORE_MANUSCRIPT_TIMEOUT_MS, then 413 naming the file and the time, nothing is written, and the gateway goes on serving', async () => {
    const hasty = await startTestGateway({ LORE_MANUSCRIPT_TIMEOUT_MS: '500' });
    gateways.push(hasty);
    const { key: writer } = await hasty.createKey('pro');
    // 120 MB of text in one run: seconds to inflate and parse, within the archive limit.
    const slow = await sendManuscript(hasty.url, writer, 'Slow', 'docx', [docxFile('slow.docx', await docxBomb(120 * megabyte))]);
    expect(refusal(slow, 'payload_too_large')).toBe('slow.docx could not be read within 0.5 s, what one import may take; nothing was imported. Split it into smaller files, or import it in parts.');
    expect((await hasty.request('/projects', { key: writer })).status).toBe(200);
    expect(await projectsOf(hasty, writer)).toEqual([]);
  });
});

describe('a Scrivener project declaring XML entities', () => {
  const binder = '<ScrivenerProject><Binder><BinderItem UUID="0D4B7E2A-0000-4000-8000-000000000001" Type="DraftFolder"><Title>&e;</Title></BinderItem></Binder></ScrivenerProject>';
  it.each([
    ['an external entity', '<!ENTITY e SYSTEM "file:///etc/passwd">'],
    ['a 100 KB internal entity', `<!ENTITY e "${'x'.repeat(100_000)}">`],
  ])('when the .scrivx declares %s, then validation_error naming the file and line, and nothing is written', async (_what, entity) => {
    const { key: writer } = await gw.createKey('pro');
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE ScrivenerProject [${entity}]>\n${binder}\n`;
    const answer = await sendManuscript(gw.url, writer, 'Entities', 'scrivener', [{ path: 'Book.scrivx', content: xml }]);
    expect(refusal(answer, 'validation_error')).toBe('The manuscript has 1 problem; nothing was imported: Book.scrivx:2: declares XML entities (<!ENTITY …>); a Scrivener project file has none, and they are not read');
    expect(answer.errors![0].extensions.errors).toEqual([{ path: 'Book.scrivx:2', message: 'declares XML entities (<!ENTITY …>); a Scrivener project file has none, and they are not read' }]);
    expect(await projectsOf(gw, writer)).toEqual([]);
  });
});
