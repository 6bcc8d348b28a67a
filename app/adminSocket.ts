// The gateway's operator door for the embedded store. `lore keys …` and the rebuilds have no API (they are the
// operator's, not a key's), and while the gateway owns the store no other process may open it. So the gateway runs
// them on a Unix socket in the store's owner-only socket directory (mode 0600): only its user gets in, as only they
// could open the store themselves. Plain HTTP with JSON bodies; never on a TCP port. The CLI runs the same commands
// in its own process when no gateway runs (app/storeAccess.ts).
import { chmod, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { KeyOptions } from '../src/core/access/keys.ts';
import { LoreError } from '../src/core/errors.ts';
import type { Services } from '../src/core/services.ts';
import { isNeo4jUnavailable } from '../src/db/neo4j.ts';
import type { AdminCommand } from './adminClient.ts';

const project = (input: Record<string, unknown>) => (typeof input.project === 'string' ? input.project : undefined);

/** Runs an admin command on `services`: a LoreError for what the operator can fix, an Error with a one-line message else. */
export async function runAdminCommand(services: Services, command: AdminCommand, input: Record<string, unknown>): Promise<unknown> {
  switch (command) {
    case 'keys/create': {
      const options = input as KeyOptions & { expiresAt?: string | Date };
      return services.keys.create({ ...options, expiresAt: options.expiresAt ? new Date(options.expiresAt) : undefined });
    }
    case 'keys/rotate':
      return services.keys.rotate(String(input.id));
    case 'keys/revoke':
      await services.keys.revoke(String(input.id));
      return {};
    case 'keys/list':
      return services.keys.list();
    case 'graph/rebuild':
      if (!services.graphSync) throw new LoreError('feature_disabled', 'graph rebuild needs Neo4j: set NEO4J_URL, NEO4J_USER and NEO4J_PASSWORD');
      try {
        return await services.graphSync.rebuild(project(input));
      } catch (error) {
        if (isNeo4jUnavailable(error)) throw new Error(`Neo4j at ${services.neo4j!.url} is unavailable: ${(error as Error).message}`);
        throw error;
      }
    case 'embeddings/rebuild': {
      const only = project(input);
      if (!services.embeddingSync) throw new LoreError('feature_disabled', 'embeddings rebuild needs an embedding provider: set LORE_EMBEDDINGS_URL and LORE_EMBEDDINGS_MODEL');
      if (only && !(await services.prisma.project.findUnique({ where: { id: only }, select: { id: true } }))) throw new LoreError('not_found', `Project ${only} not found.`);
      try {
        return await services.embeddingSync.rebuild(only);
      } catch (error) {
        if (error instanceof LoreError) throw error;
        throw new Error(`${(error as Error).message}; what is not embedded stays queued, and a running gateway embeds it when the provider answers`);
      }
    }
  }
}

export type AdminSocket = { path: string; close(): Promise<void> };

const commands = new Set<string>(['keys/create', 'keys/rotate', 'keys/revoke', 'keys/list', 'graph/rebuild', 'embeddings/rebuild'] satisfies AdminCommand[]);

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
}

export async function serveAdminSocket(services: Services, socketPath: string): Promise<AdminSocket> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const send = (status: number, body: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    const command = req.url?.slice(1) ?? '';
    if (req.method !== 'POST' || !commands.has(command)) return send(404, { error: { code: 'not_found', message: `no admin command ${req.method} ${req.url}` } });
    readJson(req)
      .then((input) => runAdminCommand(services, command as AdminCommand, input))
      .then(
        (answer) => send(200, answer),
        (error: Error) => {
          if (error instanceof LoreError) return send(error.extensions.status as number, { error: { code: error.code, message: error.message } });
          services.logger.warn({ err: error, command }, 'admin command failed');
          send(500, { error: { message: error.message } });
        },
      );
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
