// The running gateway: store, services and HTTP server, with an orderly shutdown.
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../src/config.ts';
import { listen } from './httpServer.ts';
import { openRuntime, type Runtime } from '../src/runtime.ts';
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

export async function startGateway(config: Config): Promise<Gateway> {
  const runtime = await openRuntime(config);
  let server: Server;
  try {
    server = await listen(createApp(runtime.services, config).app, config.port, config.host);
  } catch (error) {
    await runtime.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new Error(`port ${config.port} on ${config.host} is already in use (set PORT to another port)`);
    throw error;
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
  const { port } = server.address() as AddressInfo;
  return {
    runtime,
    server,
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
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
      await runtime.close();
      return { forced };
    },
  };
}
