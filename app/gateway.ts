// The running gateway: store, services and HTTP server, with an orderly shutdown.
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Config } from '../src/config.ts';
import type { EmbeddedClaim } from '../src/db/database.ts';
import { prepareDataDir } from '../src/db/dataDir.ts';
import { claimStore, StoreHeldError, writeOwnerRecord, type Holder } from '../src/db/storeLock.ts';
import { listen } from './httpServer.ts';
import { openRuntime, type Runtime } from '../src/runtime.ts';
import { adminSocketName } from './adminClient.ts';
import { serveAdminSocket, type AdminSocket } from './adminSocket.ts';
import { createApp } from './server.ts';

export type Gateway = {
  runtime: Runtime;
  server: Server;
  url: string;
  /**
   * Stops accepting connections, lets the requests in flight finish (cut off after `graceMs`), then stops the graph
   * sync worker and closes the store. Resolves to whether requests had to be cut off.
   */
  close(options?: { graceMs?: number }): Promise<{ forced: boolean }>;
};

/**
 * The embedded store's long-lived owner: a gateway holds the store's lock for as long as it runs. One that finds another
 * gateway holding it refuses to start (StoreHeldError); one that finds a command holding it waits for it (`onWait`).
 */
async function claimAsGateway(config: Config, onWait?: (line: string) => void): Promise<EmbeddedClaim | undefined> {
  if (config.databaseUrl) return undefined;
  const dataDir = await prepareDataDir(config.dataDir);
  const holder: Holder = { role: 'gateway', pid: process.pid, command: 'lore serve' };
  const claim = await claimStore(dataDir, holder, { onWait });
  if (claim.kind === 'gateway') throw new StoreHeldError(`the data directory ${dataDir} is already served by the gateway at ${claim.gateway.url}`);
  return { dataDir, lock: claim.lock, holder };
}

export async function startGateway(config: Config, options: { onWait?: (line: string) => void } = {}): Promise<Gateway> {
  const embedded = await claimAsGateway(config, options.onWait);
  const runtime = await openRuntime(config, undefined, { embedded });
  let server: Server;
  let admin: AdminSocket | undefined;
  try {
    server = await listen(createApp(runtime.services, config).app, config.port, config.host);
  } catch (error) {
    await runtime.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new Error(`port ${config.port} on ${config.host} is already in use (set PORT to another port)`);
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  if (embedded) {
    try {
      // Recorded once it listens: the CLI and the embedded MCP server find the gateway here and go through it.
      admin = await serveAdminSocket(runtime.services, path.join(runtime.db.socketDir!, adminSocketName));
      await writeOwnerRecord(embedded.dataDir, { ...embedded.holder, socket: runtime.db.socketDir, url, admin: admin.path });
    } catch (error) {
      server.close();
      await admin?.close();
      await runtime.close();
      throw error;
    }
  }
  // Requests in flight, so that a shutdown waits for them and then closes their connections instead of keeping them alive.
  const inFlight = new Set<ServerResponse>();
  let closing = false;
  server.prependListener('request', (_req, res: ServerResponse) => {
    inFlight.add(res);
    if (closing) res.setHeader('Connection', 'close');
    res.once('close', () => inFlight.delete(res));
    // A response whose headers went out before the shutdown leaves an idle keep-alive connection behind.
    res.once('finish', () => closing && setImmediate(() => server.closeIdleConnections()));
  });
  runtime.services.graphSync?.start();
  runtime.services.embeddingSync?.start();
  runtime.services.chapterNotices?.start();
  return {
    runtime,
    server,
    url,
    async close({ graceMs = Infinity } = {}) {
      closing = true;
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      // server.close() stops accepting and closes idle keep-alive connections; it calls back once every connection is gone.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      let forced = false;
      const cutOff = Number.isFinite(graceMs)
        ? setTimeout(() => {
            forced = true;
            server.closeAllConnections();
          }, graceMs)
        : undefined;
      await closed;
      clearTimeout(cutOff);
      await runtime.services.graphSync?.stop();
      await runtime.services.embeddingSync?.stop();
      await runtime.services.chapterNotices?.stop();
      await admin?.close();
      await runtime.close();
      return { forced };
    },
  };
}
