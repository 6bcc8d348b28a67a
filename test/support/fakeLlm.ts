// A stand-in LLM provider on loopback speaking the real wire formats (OpenAI chat completions, Anthropic messages),
// answering from a script, and recording what it was sent.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ScriptedReply =
  | { object: unknown }
  | { raw: string }
  | { status: number; error?: string }
  | { delayMs: number; object: unknown };

export type RecordedRequest = { path: string; headers: IncomingMessage['headers']; body: any };

export type FakeLlm = {
  url: string;
  requests: RecordedRequest[];
  /** replies used in order; when they run out, `fallback` answers */
  script(...replies: ScriptedReply[]): void;
  fallback: ScriptedReply;
  /** the most requests it was answering at one time since the last reset of this field */
  maxInFlight: number;
  close(): Promise<void>;
};

export async function startFakeLlm(): Promise<FakeLlm> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const fake: Partial<FakeLlm> = { requests, fallback: { object: { conflicts: [] } }, maxInFlight: 0 };
  let inFlight = 0;
  const server: Server = createServer(async (req, res) => {
    inFlight++;
    fake.maxInFlight = Math.max(fake.maxInFlight!, inFlight);
    res.once('close', () => inFlight--);
    let text = '';
    for await (const chunk of req) text += chunk;
    const body = text ? JSON.parse(text) : undefined;
    requests.push({ path: req.url ?? '', headers: req.headers, body });
    const reply = queue.shift() ?? fake.fallback!;
    if ('delayMs' in reply) await new Promise((r) => setTimeout(r, reply.delayMs));
    if ('status' in reply) {
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: reply.error ?? 'scripted failure', type: 'invalid_request_error' } }));
      return;
    }
    const content = 'raw' in reply ? reply.raw : JSON.stringify(reply.object);
    const promptTokens = Math.ceil(text.length / 4);
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url?.endsWith('/messages')) {
      const tool = body?.tools?.[0]?.name;
      let input: unknown;
      try {
        input = JSON.parse(content);
      } catch {
        input = content;
      }
      res.end(
        JSON.stringify({
          id: `msg_${requests.length}`,
          type: 'message',
          role: 'assistant',
          model: body?.model,
          content: tool ? [{ type: 'tool_use', id: `toolu_${requests.length}`, name: tool, input }] : [{ type: 'text', text: content }],
          stop_reason: tool ? 'tool_use' : 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: promptTokens, output_tokens: 20 },
        }),
      );
      return;
    }
    res.end(
      JSON.stringify({
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body?.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: promptTokens, completion_tokens: 20, total_tokens: promptTokens + 20 },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    script: (...replies: ScriptedReply[]) => void queue.push(...replies),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }) as FakeLlm;
}
