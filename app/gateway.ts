// The running gateway: store, services and HTTP server, with an orderly shutdown.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../src/config.ts';
import { listen } from './httpServer.ts';
import { openRuntime, type Runtime } from '../src/runtime.ts';
import { createApp } from './server.ts';

export type Gateway = { runtime: Runtime; server: Server; url: string; close(): Promise<void> };

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
  runtime.services.graphSync?.start();
  const { port } = server.address() as AddressInfo;
  return {
    runtime,
    server,
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closed;
      await runtime.services.graphSync?.stop();
      await runtime.close();
    },
  };
}
