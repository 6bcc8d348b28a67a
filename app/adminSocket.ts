// The gateway's operator door for the embedded store: `lore keys …` has no API (keys are made by whoever runs the
// store, not by a key), and while the gateway owns the store no other process may open it. So the gateway answers the
// key commands on a Unix socket in the store's owner-only socket directory (mode 0600): only its user gets in, as only
// they could open the store themselves. Plain HTTP with JSON bodies; never on a TCP port.
import { chmod, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { KeyOptions } from '../src/core/access/keys.ts';
import { LoreError } from '../src/core/errors.ts';
import type { Services } from '../src/core/services.ts';
import type { KeyCommand } from './adminClient.ts';
type Answer = { status: number; body: unknown };

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
}

async function answer(services: Services, command: string, input: Record<string, unknown>): Promise<Answer> {
  switch (command as KeyCommand) {
    case 'create': {
      const options = input as KeyOptions & { expiresAt?: string };
      return { status: 200, body: await services.keys.create({ ...options, expiresAt: options.expiresAt ? new Date(options.expiresAt) : undefined }) };
    }
    case 'rotate':
      return { status: 200, body: await services.keys.rotate(String(input.id)) };
    case 'revoke':
      await services.keys.revoke(String(input.id));
      return { status: 200, body: {} };
    case 'list':
      return { status: 200, body: await services.keys.list() };
    default:
      return { status: 404, body: { error: { code: 'not_found', message: `no admin command ${command}` } } };
  }
}

export type AdminSocket = { path: string; close(): Promise<void> };

export async function serveAdminSocket(services: Services, socketPath: string): Promise<AdminSocket> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const send = ({ status, body }: Answer) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    const command = /^\/keys\/(\w+)$/.exec(req.url ?? '')?.[1];
    if (req.method !== 'POST' || !command) return send({ status: 404, body: { error: { code: 'not_found', message: `no admin route ${req.method} ${req.url}` } } });
    readJson(req)
      .then((input) => answer(services, command, input))
      .then(send, (error: Error) => {
        if (error instanceof LoreError) return send({ status: error.extensions.status as number, body: { error: { code: error.code, message: error.message } } });
        services.logger.error({ err: error }, 'admin command failed');
        send({ status: 500, body: { error: { code: 'internal_error', message: error.message } } });
      });
  });
  await rm(socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  await chmod(socketPath, 0o600);
  return {
    path: socketPath,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(socketPath, { force: true });
    },
  };
}
