// A stand-in embedding provider on loopback speaking the OpenAI embeddings wire format (POST …/embeddings), with
// deterministic vectors: the words of a text, folded through a small synonym table onto concepts, hashed into the
// dimensions (256 unless the request asks for others) with a sign each, and normalised. Texts sharing concepts are
// near, others nearly orthogonal. It answers at once, records what it was sent, and can be told to fail.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const defaultDimensions = 256;

const concepts: Record<string, string[]> = {
  sailor: ['sailor', 'sailors', 'seaman', 'mariner', 'seafarer', 'boatman'],
  water: ['water', 'swim', 'swims', 'swimming', 'sea', 'deep', 'drown', 'drowned', 'drowning', 'waves'],
  fear: ['fear', 'fears', 'afraid', 'dread', 'terror', 'scared', 'frightened'],
  oath: ['oath', 'vow', 'vowed', 'promise', 'promised', 'sworn', 'swore', 'pledge'],
  shore: ['beach', 'shore', 'strand', 'coast', 'sands'],
  light: ['lighthouse', 'lamp', 'light', 'beacon'],
};
const conceptOf = new Map(Object.entries(concepts).flatMap(([concept, words]) => words.map((w) => [w, concept] as const)));
const stopWords = new Set(['the', 'a', 'an', 'of', 'on', 'in', 'to', 'is', 's', 'and', 'at', 'from', 'her', 'his', 'every', 'by', 'with', 'for']);

function fnv1a(text: string, seed = 0x811c9dc5): number {
  let hash = seed;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The vector the fake answers for `text`. */
export function embedText(text: string, dimensions = defaultDimensions): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (!word || stopWords.has(word)) continue;
    const token = conceptOf.get(word) ?? word;
    const hash = fnv1a(token);
    vector[hash % dimensions] += hash & 0x80000000 ? -1 : 1;
  }
  const norm = Math.hypot(...vector);
  // An empty text still gets a vector (a fixed one), as real models give one.
  return norm === 0 ? vector.map((_, i) => (i === 0 ? 1 : 0)) : vector.map((v) => v / norm);
}

export type EmbeddingRequest = { path: string; authorization?: string; model: string; input: string[]; dimensions?: number };

export type FakeEmbeddings = {
  /** the base URL to configure (LORE_EMBEDDINGS_URL); the client posts to `${url}/embeddings` */
  url: string;
  requests: EmbeddingRequest[];
  /** an HTTP status to answer every request with (the provider is down), or false to answer normally */
  failing: number | false;
  /** answers this status to a request holding this text (a text the provider refuses), or none */
  refuse?: { text: string; status: number };
  /** failures quote the key the request carried, as OpenAI's 401 does ("Incorrect API key provided: sk-…") */
  echoKey?: boolean;
  close(): Promise<void>;
};

export async function startFakeEmbeddings(): Promise<FakeEmbeddings> {
  const requests: EmbeddingRequest[] = [];
  const fake = { requests, failing: false } as FakeEmbeddings;
  const server: Server = createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    const body = JSON.parse(text || '{}') as { model?: string; input?: string | string[]; dimensions?: number };
    const input = typeof body.input === 'string' ? [body.input] : (body.input ?? []);
    requests.push({ path: req.url ?? '', authorization: req.headers.authorization, model: body.model ?? '', input, dimensions: body.dimensions });
    const fail = (status: number, message: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message, type: 'invalid_request_error' } }));
    };
    if (req.method !== 'POST' || !req.url?.endsWith('/embeddings')) return fail(404, 'not found');
    const key = req.headers.authorization?.replace(/^Bearer /, '');
    if (fake.failing) return fail(fake.failing, fake.echoKey ? `Incorrect API key provided: ${key}. You can find your API key at https://platform.example.com/api-keys.` : 'the fake provider is down');
    if (fake.refuse && input.includes(fake.refuse.text)) return fail(fake.refuse.status, 'this input is refused');
    const dimensions = body.dimensions ?? defaultDimensions;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        object: 'list',
        data: input.map((t, index) => ({ object: 'embedding', index, embedding: embedText(t, dimensions) })),
        model: body.model,
        usage: { prompt_tokens: input.length, total_tokens: input.length },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.url = `http://127.0.0.1:${port}/v1`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
