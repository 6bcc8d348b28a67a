// The embedded store's own thread: PGlite and its socket (embeddedSocket.ts) run here, in a worker thread of the owner
// (pglite.ts), so a statement, however long, never blocks the thread that serves HTTP. The owner's pg pool reaches it
// through the socket like any client, or through a message port of its own (portStream.ts); this thread's messages
// otherwise only start it, ask it to quiet down, and close it.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { serveEmbeddedSocket } from './embeddedSocket.ts';

export type StoreThreadData = { pgdata: string; socketDir: string; secret: string; ownerToken: string };
export type ToStoreThread =
  | { type: 'quiet'; id: number; quietMs: number; maxMs: number }
  | { type: 'connect'; port: MessagePort }
  | { type: 'close' };
export type FromStoreThread =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | { type: 'quiet'; id: number }
  | { type: 'closed'; error?: string };

const port = parentPort!;
const { pgdata, socketDir, secret, ownerToken } = workerData as StoreThreadData;
const post = (message: FromStoreThread) => port.postMessage(message);

let db: PGlite | undefined;
try {
  db = await PGlite.create({ dataDir: pgdata, extensions: { pg_trgm, vector } });
  const door = await serveEmbeddedSocket(db, { socketDir, secret, ownerToken });
  const opened = db;
  port.on('message', (message: ToStoreThread) => {
    if (message.type === 'quiet') {
      void door.quiet(message.quietMs, message.maxMs).then(() => post({ type: 'quiet', id: message.id }));
      return;
    }
    if (message.type === 'connect') return door.attach(message.port);
    // Clients first, then PGlite, which checkpoints: the data directory is left consistent.
    void door
      .close()
      .then(() => opened.close())
      .then(
        () => post({ type: 'closed' }),
        (error: Error) => post({ type: 'closed', error: error.message }),
      )
      .finally(() => port.close());
  });
  post({ type: 'ready' });
} catch (error) {
  await db?.close().catch(() => undefined);
  post({ type: 'failed', message: (error as Error).message });
  port.close();
}
