// The owner's connections to its embedded store, as pg's stream: a message port to the store's thread instead of a
// Unix socket. The store answers them exactly as on its socket (embeddedSocket.ts attach: the same secret, the same
// turns); only the transport differs. Over the socket, writing each query and each answer was a system call on each
// thread (a sixth of the owner's thread and of the store's under a read load); a message moves its bytes to the other
// thread, and wakes it once for however many messages are waiting.
import { Duplex } from 'node:stream';
import { MessageChannel, type MessagePort } from 'node:worker_threads';

/** Bytes in memory of their own (not Buffer's shared pool), so that they can be moved rather than copied again. */
function owned(chunks: readonly Uint8Array[]): Uint8Array {
  const total = chunks.reduce((sum, c) => sum + c.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** What pg calls on its stream beyond a Duplex's own methods, answered for a port. */
export class PortStream extends Duplex {
  private port?: MessagePort;

  /** `open`: hands the other end of a new channel to the store's thread. */
  constructor(private readonly open: (port: MessagePort) => void) {
    super({ allowHalfOpen: false });
  }

  connect(): this {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    port1.on('message', (data: ArrayBuffer) => this.push(Buffer.from(data)));
    // The store's thread closed it (or ended): like a socket the server closed.
    port1.once('close', () => {
      this.push(null);
      this.destroy();
    });
    this.open(port2);
    process.nextTick(() => this.emit('connect'));
    return this;
  }

  private post(bytes: Uint8Array) {
    this.port?.postMessage(bytes.buffer, [bytes.buffer as ArrayBuffer]);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void) {
    this.post(owned([chunk]));
    done();
  }

  // pg corks the stream around a query's messages: they go as one message.
  override _writev(chunks: { chunk: Buffer }[], done: (error?: Error | null) => void) {
    this.post(owned(chunks.map((c) => c.chunk)));
    done();
  }

  override _read() {}

  override _final(done: (error?: Error | null) => void) {
    this.port?.close();
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void) {
    this.port?.close();
    done(error);
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  ref(): this {
    this.port?.ref();
    return this;
  }

  unref(): this {
    this.port?.unref();
    return this;
  }
}
