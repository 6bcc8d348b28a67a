// The floor of the uncached hybrid search (`npm run bench -- --part search`), served the way the gateway is measured:
// a bare node:http server in a process of its own, driven by the same load generator (autocannon, the same 50
// connections, the same paths) and answering each search with the gateway's own bytes for it, so both runs cost the
// load generator alike. Per request it runs the gateway's ranking statement (entities.ts hybridRanking, same text and
// parameters, the query vector known as the gateway keeps it per text) on a pool the size of the gateway's, and
// nothing else: no key, rate limit, quota, GraphQL or page to build.
// Run (the bench does): DATABASE_URL=… PORT=0 FLOOR_SEARCHES=<file> node --import tsx test/bench/floorServer.ts, the file
// holding { accountId, projectId, model, searches: [{ path, q, body }] }.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { defaultMinSimilarity } from '../../src/config.ts';
import { hybridRanking } from '../../src/core/canon/entities.ts';
import { similarityFor } from '../../src/core/canon/search.ts';
import { lexicalDepth, vectorDepth } from '../../src/core/embeddings/hybrid.ts';
import { defaultPageLimit } from '../../src/core/validation.ts';
import { embedText } from '../support/fakeEmbeddings.ts';

type Floor = { accountId: string; projectId: string; model: string; searches: { path: string; q: string; body: string }[] };
const floor = JSON.parse(readFileSync(process.env.FLOOR_SEARCHES!, 'utf8')) as Floor;
// The gateway's pool (src/db/database.ts): ten connections, kept through pauses.
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, idleTimeoutMillis: 0 });

const byPath = new Map(
  floor.searches.map(({ path, q, body }) => [
    path,
    {
      search: { q, threshold: similarityFor(q), model: floor.model, vector: embedText(q), maxDistance: 1 - defaultMinSimilarity, lexicalDepth, vectorDepth, limit: defaultPageLimit },
      body: Buffer.from(body),
    },
  ]),
);

// Each answer's entities are the ranking's page, in its order: the statement is the one the gateway ran for that path.
for (const [path, { search, body }] of byPath) {
  const ranked = await hybridRanking(pool, floor.accountId, floor.projectId, search);
  const ids = ranked.flatMap((row) => row.id ?? []);
  const answered = (JSON.parse(body.toString()) as { data: { id: string }[] }).data.map((e) => e.id);
  if (!ranked[0]?.vectors || ids.join() !== answered.join()) throw new Error(`the floor's ranking of ${path} is not the gateway's page`);
}

const server = createServer((req, res) => {
  const found = byPath.get(req.url ?? '');
  if (!found) {
    res.writeHead(404).end();
    return;
  }
  hybridRanking(pool, floor.accountId, floor.projectId, found.search).then(
    () => {
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': found.body.length });
      res.end(found.body);
    },
    (error: Error) => {
      res.writeHead(500).end(error.message);
    },
  );
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stderr.write(`Ranking floor listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => void pool.end().finally(() => process.exit(0))));
}
