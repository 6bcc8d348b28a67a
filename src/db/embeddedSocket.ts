// The embedded store's only door: PGlite served on a Unix socket in an owner-only directory, to clients that prove
// they know the per-start secret (SCRAM-SHA-256, as PostgreSQL asks for a password), and never on a TCP port.
//
// PGlite is one PostgreSQL backend: one session that every connection shares. Connections take turns: a connection
// holds the session from its first message until PostgreSQL is ready for a new query outside a transaction, so
// transactions and extended-query exchanges never interleave. Whenever the session passes to another client it is
// reset (DISCARD ALL; the owner's own connections count as one client, see ownerToken), so a setting one client makes (`SET search_path = ''`, `SET default_transaction_read_only = on`,
// a role, a prepared statement, a temporary table) ends with its turn and never reaches the gateway's queries. A
// connection that keeps the session in the middle of a turn without sending anything, while others wait, is cut off.
import { timingSafeEqual } from 'node:crypto';
import { chmod, rm } from 'node:fs/promises';
import net from 'node:net';
import { EventEmitter } from 'node:events';
import type { MessagePort } from 'node:worker_threads';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PGlite } from '@electric-sql/pglite';
import { ScramExchange, ScramRefused, scramMechanism, scramVerifier, type ScramVerifier } from './scram.ts';

/** pg and psql find a server's socket in a directory under this name (port 5432, the default). */
export const socketFileName = '.s.PGSQL.5432';

export type EmbeddedSocketOptions = {
  /** an owner-only directory (0700) for the socket */
  socketDir: string;
  secret: string;
  /** how long a connection may hold the session mid-turn without sending anything while others wait */
  idleTurnLimitMs?: number;
  authTimeoutMs?: number;
  maxConnections?: number;
  /**
   * Drawn by the owner at each start and known only to its process: its own connections send it as their
   * application_name and share one session without a reset between them, so that its pool's connections can take turns
   * back to back (one of them always has the next statement queued) instead of one connection waiting on the owner's
   * thread between statements.
   */
  ownerToken?: string;
};

export type EmbeddedSocket = {
  socketPath: string;
  /** Resolves once no connection has run anything on the store for `quietMs` (or after `maxMs`): see `SessionTurns.quiet`. */
  quiet(quietMs: number, maxMs: number): Promise<void>;
  /**
   * Serves a connection of the owner's own process over a message port (portStream.ts) as over the socket (the same
   * secret, the same turns): its messages and answers then cross between threads without a system call each way.
   */
  attach(port: MessagePort): void;
  close(): Promise<void>;
};

const sslRequest = 80877103;
const gssEncRequest = 80877104;
const cancelRequest = 80877102;
// A startup packet, SASL messages: small. Query messages may be large (an import's bind parameters).
const maxStartupBytes = 10_000;

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const cstring = (text: string) => Buffer.from(`${text}\0`);
const authentication = (code: number, data = Buffer.alloc(0)) => message('R', Buffer.concat([int32(code), data]));
const fatal = (code: string, text: string) =>
  message('E', Buffer.concat([cstring(`SFATAL`), cstring('VFATAL'), cstring(`C${code}`), cstring(`M${text}`), Buffer.from([0])]));
const simpleQuery = (sql: string) => message('Q', cstring(sql));
const syncMessage = message('S', Buffer.alloc(0));
// Ends a COPY from the client that was left open; outside a COPY, PostgreSQL ignores it.
const copyFailMessage = message('f', cstring('the connection closed'));
/** The startup packet PGlite sees, whatever the client sent: no client's options reach the shared session. */
const canonicalStartup = (() => {
  const params = Buffer.concat([cstring('user'), cstring('postgres'), cstring('database'), cstring('postgres'), Buffer.from([0])]);
  return Buffer.concat([int32(params.length + 8), int32(196608), params]);
})();

/** Complete messages out of a byte stream, without copying a large message once per chunk it arrives in. */
class MessageReader {
  private chunks: Buffer[] = [];
  private length = 0;

  push(data: Buffer) {
    this.chunks.push(data);
    this.length += data.length;
  }

  private peek(n: number): Buffer | undefined {
    if (this.length < n) return undefined;
    if (this.chunks[0].length < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0].subarray(0, n);
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    this.chunks = all.length > n ? [all.subarray(n)] : [];
    this.length -= n;
    return all.subarray(0, n);
  }

  /** A startup-phase packet (length first, no type byte). */
  untyped(limit: number): Buffer | undefined | 'too large' {
    const head = this.peek(4);
    if (!head) return undefined;
    const size = head.readInt32BE(0);
    if (size < 8 || size > limit) return 'too large';
    return this.length >= size ? this.take(size) : undefined;
  }

  /** A typed message (type byte, then length). */
  typed(limit = Infinity): Buffer | undefined | 'too large' {
    const head = this.peek(5);
    if (!head) return undefined;
    const size = head.readInt32BE(1);
    if (size < 4 || size + 1 > limit) return 'too large';
    return this.length >= size + 1 ? this.take(size + 1) : undefined;
  }
}

/** What a connection is read from and answered on: a socket of the Unix socket, or a message port (portSocket). */
type ClientSocket = Pick<net.Socket, 'write' | 'end' | 'destroy' | 'writable' | 'on'>;

type Connection = {
  socket: ClientSocket;
  reader: MessageReader;
  phase: 'startup' | 'sasl-initial' | 'sasl-final' | 'ready' | 'closed';
  exchange: ScramExchange;
  pending: Buffer[];
  /** whose settings it runs with: its own, or the owner's (ownerSession) */
  session: object;
  /** In its turn, on the owner's session: the shared statement its unnamed statement stands for (SharedStatements). */
  unnamedAs?: string;
};

const ownerSession = {};

/** Whether PGlite's answer ended with ReadyForQuery, idle (not in a transaction): the end of a turn. */
const endsIdle = (tail: Buffer) => tail.length === 6 && tail[0] === 0x5a && tail.readInt32BE(1) === 5 && tail[5] === 0x49;
// Only these messages end with ReadyForQuery: a Query, a Sync, and the end of a COPY from the client.
const turnEnders = new Set(['Q', 'S', 'c', 'f'].map((c) => c.charCodeAt(0)));

type Batch = { bytes: Buffer; lastType: number };
/** Of PGlite's answer to a batch: whether it opens with ParseComplete, and whether it ends the turn (endsIdle). */
type Answer = { parsed: boolean; idle: boolean };

const parseComplete = message('1', Buffer.alloc(0));
const [parseType, bindType, queryType] = ['P', 'B', 'Q'].map((c) => c.charCodeAt(0));
/** How many statements the owner's session keeps prepared before it lets them all go and starts over. */
const maxSharedStatements = 500;

/**
 * Whether a statement spells out a list of values as parameters: Prisma's `IN ($2,$3,…)`, a createMany's rows
 * (`VALUES (…), ($12,…`). Those are not shared: the generic plan PostgreSQL settles on after five runs is made for the
 * list's length, not its values, and it stays while the table grows under it (PGlite runs no autovacuum, whose ANALYZE
 * would have it planned again): an import's `"key" IN (…)` and `"fromId" IN (…)` into an existing project took 223 and
 * 141 ms a run shared, 49 and 18 ms unshared (5,000 entities, on a loaded machine), which made a 20,000-entity import
 * 69 -> 104 s. And each length is another text, run a few times at most.
 */
const spellsOutList = (text: string) => /\bIN \(\$\d+,|\), \(\$\d+/.test(text);

/**
 * PGlite parses and plans every unnamed statement anew, and the owner's pool sends only unnamed ones (its connections
 * share one session, where names would clash). So the owner's statements are prepared here once, each distinct text
 * (with its parameter types) under a name of ours, and every later Parse of that text by any of the owner's
 * connections is answered at once and its Bind pointed at that name: PostgreSQL plans it as it plans any prepared
 * statement (custom plans first, a generic one where it costs no more). A client other than the owner gets the session
 * only after DISCARD ALL, which drops them; `forget` then starts over.
 */
class SharedStatements {
  /** each text seen, with its statement's name, or null: not shared (spellsOutList) */
  private readonly names = new Map<string, string | null>();
  private next = 0;

  get full() {
    return this.names.size >= maxSharedStatements;
  }

  forget() {
    this.names.clear();
  }

  /**
   * The batch as the session runs it, and what to answer before the session's answer. Only a Parse of the unnamed
   * statement that opens a batch is shared (pg sends each query's Parse first), so that its ParseComplete, when the
   * session does not run it, goes first.
   */
  rewrite(connection: Connection, messages: Buffer[]): { messages: Buffer[]; prefix?: Buffer; prepared?: { text: string; name: string } } {
    let prefix: Buffer | undefined;
    let prepared: { text: string; name: string } | undefined;
    const out = messages.map((m, i) => {
      if (m[0] === queryType) connection.unnamedAs = undefined;
      else if (m[0] === parseType && m[5] === 0) {
        connection.unnamedAs = undefined;
        if (i > 0) return m;
        const text = m.subarray(6).toString('latin1');
        const name = this.names.get(text);
        if (name === null) return m;
        if (name === undefined && spellsOutList(text)) {
          this.names.set(text, null);
          return m;
        }
        if (name) {
          connection.unnamedAs = name;
          prefix = parseComplete;
          return undefined;
        }
        prepared = { text, name: `lore_shared_${(this.next++).toString(36)}` };
        connection.unnamedAs = prepared.name;
        return message('P', Buffer.concat([cstring(prepared.name), m.subarray(6)]));
      } else if (m[0] === bindType && connection.unnamedAs) {
        const portalEnd = m.indexOf(0, 5);
        if (m[portalEnd + 1] === 0) return message('B', Buffer.concat([m.subarray(5, portalEnd + 1), cstring(connection.unnamedAs), m.subarray(portalEnd + 2)]));
      }
      return m;
    });
    return { messages: out.filter((m): m is Buffer => m !== undefined), prefix, prepared };
  }

  /** Once PGlite answered the named Parse that opened the batch: kept if it succeeded. */
  prepared(statement: { text: string; name: string }, answer: Answer) {
    if (answer.parsed) this.names.set(statement.text, statement.name);
  }
}

// What PostgreSQL answers only at the next Sync or Flush: a client sending them waits for more of its own messages.
const deferred = new Set(['P', 'B', 'D', 'E', 'C'].map((c) => c.charCodeAt(0)));

/**
 * How many of the messages a connection has sent so far to run in one call (0: none yet): PGlite runs consecutive
 * messages (a query's Parse, Bind, Describe, Execute and Sync) in one pass, and each call costs as much again as a
 * short statement, so a batch waits for the message that ends it (pg writes a query's messages one by one). The
 * startup packet goes alone: PGlite reads a call that starts with one as that packet only.
 */
function batchLength(connection: Connection): number {
  const { pending } = connection;
  if (pending.length === 0) return 0;
  if (pending[0][0] === 0) return 1;
  let length = 0;
  for (let i = 0; i < pending.length && pending[i][0] !== 0; i++) if (!deferred.has(pending[i][0])) length = i + 1;
  return length;
}

const batch = (messages: Buffer[]): Batch => ({ bytes: messages.length === 1 ? messages[0] : Buffer.concat(messages), lastType: messages.at(-1)![0] });

const [describeType, executeType, syncType, closeType, flushType, readyType] = ['D', 'E', 'S', 'C', 'H', 'Z'].map((c) => c.charCodeAt(0));
const extendedTypes = new Set([parseType, bindType, describeType, executeType, syncType, closeType, flushType]);
const transactionControl = /^\s*(BEGIN|START|COMMIT|END|ROLLBACK|ABORT|SAVEPOINT|RELEASE|PREPARE|SET|RESET|DISCARD|DEALLOCATE|LISTEN|UNLISTEN)\b/i;
/** How many of the owner's connections' batches go to PGlite in one call at most. */
const maxJoined = 8;

/**
 * Whether a batch is statements of the extended protocol that end with a Sync and cannot leave the session otherwise
 * than they found it (no transaction control, no setting, no named statement of the client's): such batches from the
 * owner's connections can run back to back in one call to PGlite, each answered as if run alone, since PostgreSQL
 * recovers from an error at the next Sync.
 */
function joinable(messages: Buffer[]): boolean {
  if (messages.at(-1)![0] !== syncType) return false;
  for (const m of messages) {
    if (!extendedTypes.has(m[0])) return false;
    if (m[0] === parseType && (m[5] !== 0 || transactionControl.test(m.subarray(6, 6 + 64).toString('latin1')))) return false;
    if (m[0] === bindType && m[m.indexOf(0, 5) + 1] !== 0) return false;
  }
  return true;
}

/** PGlite's answer to joined batches, cut after each batch's last ReadyForQuery (one per Sync); undefined if it does not add up. */
function splitAnswer(answer: Buffer, syncs: number[]): Buffer[] | undefined {
  const parts: Buffer[] = [];
  let start = 0;
  let at = 0;
  let seen = 0;
  for (const count of syncs) {
    while (seen < count) {
      if (at + 5 > answer.length) return undefined;
      if (answer[at] === readyType) seen++;
      at += 1 + answer.readInt32BE(at + 1);
    }
    parts.push(answer.subarray(start, at));
    start = at;
    seen = 0;
  }
  return at === answer.length ? parts : undefined;
}

/** Runs the connections' messages on PGlite one turn at a time, resetting the session between connections. */
class SessionTurns {
  private holder?: Connection;
  /** whose settings the session carries now */
  private last?: object;
  private readonly waiting: Connection[] = [];
  private readonly statements = new SharedStatements();
  private running = false;
  private idleTimer?: NodeJS.Timeout;
  /** when PGlite last finished a message */
  private lastRun = 0;

  constructor(
    private readonly db: PGlite,
    private readonly idleTurnLimitMs: number,
    private readonly cutOff: (connection: Connection) => void,
  ) {}

  submit(connection: Connection) {
    if (connection !== this.holder && !this.waiting.includes(connection)) this.waiting.push(connection);
    void this.pump();
  }

  closed(connection: Connection) {
    const at = this.waiting.indexOf(connection);
    if (at >= 0) this.waiting.splice(at, 1);
    void this.pump();
  }

  private async pump() {
    if (this.running) return;
    this.running = true;
    try {
      for (;;) {
        let connection: Connection;
        if (this.holder?.phase === 'closed') {
          await this.abandonTurn();
          continue;
        }
        if (this.holder) {
          if (batchLength(this.holder) === 0) {
            this.armIdleTimer();
            return;
          }
          connection = this.holder;
        } else {
          // Between turns, a turn of the event loop: the messages other connections sent meanwhile queue up (a message
          // port's arrive as tasks), so that their batches can join this one (runJoined).
          await new Promise((resolve) => setImmediate(resolve));
          const next = this.waiting.shift();
          if (!next) return;
          // not yet a whole batch: it comes back with its next message
          if (next.phase === 'closed' || batchLength(next) === 0) continue;
          connection = this.holder = next;
          connection.unnamedAs = undefined;
          // between turns, outside any transaction
          if (this.last === connection.session && connection.session === ownerSession && this.statements.full) {
            await this.run(simpleQuery('DEALLOCATE ALL'));
            this.statements.forget();
          }
        }
        clearTimeout(this.idleTimer);
        if (this.last !== connection.session) {
          await this.run(simpleQuery('DISCARD ALL'));
          this.statements.forget();
          this.last = connection.session;
        }
        if (connection.session === ownerSession && this.joinWaiting(connection)) {
          await this.runJoined(connection);
          continue;
        }
        const taken = connection.pending.splice(0, batchLength(connection));
        const { messages, prefix, prepared } = connection.session === ownerSession ? this.statements.rewrite(connection, taken) : { messages: taken };
        const sent = batch(messages);
        const answer = await this.run(sent, connection, prefix);
        if (prepared) this.statements.prepared(prepared, answer);
        if (turnEnders.has(sent.lastType) && answer.idle && !this.db.isInTransaction()) {
          this.holder = undefined;
          if (connection.pending.length > 0) this.waiting.push(connection);
        }
      }
    } finally {
      this.running = false;
    }
  }

  /** Whether the holder's batch and the next waiting one of the owner's connections can go in one call (joinable). */
  private joinWaiting(holder: Connection): boolean {
    const next = this.waiting[0];
    return next !== undefined && next.session === ownerSession && next.phase === 'ready' && !this.db.isInTransaction() &&
      joinable(holder.pending.slice(0, batchLength(holder))) && batchLength(next) > 0 && joinable(next.pending.slice(0, batchLength(next)));
  }

  /**
   * Runs the holder's batch and those of the owner's connections waiting behind it (while joinable) in one call to
   * PGlite: each call costs about as much again as a short statement. Each connection gets its own part of the answer,
   * as if its batch had run alone, and its turn ends there.
   */
  private async runJoined(holder: Connection) {
    const joined = [holder];
    while (joined.length < maxJoined) {
      const next = this.waiting[0];
      if (!next || next.session !== ownerSession || next.phase !== 'ready' || batchLength(next) === 0 || !joinable(next.pending.slice(0, batchLength(next)))) break;
      joined.push(this.waiting.shift()!);
    }
    const runs = joined.map((connection) => {
      connection.unnamedAs = undefined;
      const taken = connection.pending.splice(0, batchLength(connection));
      return { connection, syncs: taken.filter((m) => m[0] === syncType).length, ...this.statements.rewrite(connection, taken) };
    });
    this.holder = undefined;
    const answer = await this.call(Buffer.concat(runs.flatMap((r) => r.messages)));
    const parts = answer && !this.db.isInTransaction() ? splitAnswer(answer, runs.map((r) => r.syncs)) : undefined;
    if (this.db.isInTransaction()) await this.run(simpleQuery('ROLLBACK'));
    runs.forEach((run, i) => {
      const part = parts?.[i];
      // PGlite failed, or an answer that does not add up: these connections cannot go on (the pool opens new ones).
      if (!part) return void run.connection.socket.destroy();
      if (run.prepared) this.statements.prepared(run.prepared, { parsed: part.length >= 5 && part[0] === parseComplete[0], idle: true });
      this.send(run.connection, run.prefix ? Buffer.concat([run.prefix, part]) : part);
      if (run.connection.pending.length > 0 && !this.waiting.includes(run.connection)) this.waiting.push(run.connection);
    });
  }

  /**
   * A long writer (an import) calls this between its slices: PGlite runs one statement at a time, so while a slice runs,
   * every other connection's statements queue behind it. Waiting until no connection has used the store for a moment
   * lets the requests that queued behind the slice run all their statements, not only their first, before the next slice.
   */
  async quiet(quietMs: number, maxMs: number): Promise<void> {
    const deadline = performance.now() + maxMs;
    for (;;) {
      const since = performance.now() - this.lastRun;
      const busy = this.running || this.holder !== undefined || this.waiting.length > 0;
      if (!busy && since >= quietMs) return;
      const left = deadline - performance.now();
      if (left <= 0) return;
      await sleep(Math.min(left, busy ? quietMs : quietMs - since));
    }
  }

  /** A connection that left mid-turn: its unfinished exchange and transaction go with it. */
  private async abandonTurn() {
    await this.run(copyFailMessage);
    await this.run(syncMessage);
    if (this.db.isInTransaction()) await this.run(simpleQuery('ROLLBACK'));
    this.holder = undefined;
  }

  private armIdleTimer() {
    clearTimeout(this.idleTimer);
    const holder = this.holder!;
    // The owner's transactions wait on its own thread; they are as trusted as the store's owner.
    if (this.waiting.length === 0 || holder.session === ownerSession) return;
    this.idleTimer = setTimeout(() => {
      if (this.holder !== holder || batchLength(holder) > 0 || this.waiting.length === 0) return;
      this.cutOff(holder);
      void this.pump();
    }, this.idleTurnLimitMs);
    this.idleTimer.unref();
  }

  private send(connection: Connection, bytes: Buffer) {
    if (connection.phase === 'ready' && connection.socket.writable) connection.socket.write(bytes);
  }

  /**
   * Runs messages; PGlite's answer goes to the connection (none: discarded) in one write, not one per row, after
   * `prefix` (what the session was spared: see SharedStatements). Returns what the turns need of the answer, read
   * before it goes: a message port moves the answer's memory to the other thread.
   */
  private async run(input: Buffer | Batch, connection?: Connection, prefix?: Buffer): Promise<Answer> {
    const answer = await this.call(Buffer.isBuffer(input) ? input : input.bytes);
    if (!answer) {
      // PGlite itself failed on the message: the connection cannot go on.
      if (connection) connection.socket.destroy();
      return { parsed: false, idle: false };
    }
    const read: Answer = { parsed: answer.length >= 5 && answer[0] === parseComplete[0], idle: endsIdle(answer.subarray(-6)) };
    if (connection) this.send(connection, prefix ? Buffer.concat([prefix, answer]) : answer);
    return read;
  }

  /** PGlite's whole answer to `bytes` (undefined: PGlite itself failed on them). */
  private async call(bytes: Buffer): Promise<Buffer | undefined> {
    // PGlite's views are into its own memory, which the next message overwrites: copied, each into memory of its own
    // (not Buffer's shared pool), which a message port can then move to the owner's thread (portSocket).
    const chunks: Buffer[] = [];
    try {
      await this.db.runExclusive(() =>
        this.db.execProtocolRawStream(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), {
          onRawData: (data) => void chunks.push(Buffer.from(data.slice().buffer)),
        }),
      );
    } catch {
      return undefined;
    } finally {
      this.lastRun = performance.now();
    }
    return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  }
}

/** A message port as the connection's socket: each write goes as one message, its bytes moved, not copied again. */
function portSocket(port: MessagePort): ClientSocket {
  const socket = new EventEmitter() as EventEmitter & { writable: boolean };
  socket.writable = true;
  const close = () => {
    if (!socket.writable) return;
    socket.writable = false;
    port.close();
  };
  port.on('message', (data: ArrayBuffer) => socket.emit('data', Buffer.from(data)));
  port.once('close', () => {
    socket.writable = false;
    socket.emit('close');
  });
  const write = (bytes: Buffer | string) => {
    if (!socket.writable) return false;
    const data = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes;
    // A view of its own memory, moved to the other thread: PGlite's answers are copies already (run).
    const own = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength && !(data.buffer instanceof SharedArrayBuffer) ? data : new Uint8Array(data);
    port.postMessage(own.buffer, [own.buffer as ArrayBuffer]);
    return true;
  };
  return Object.assign(socket, {
    write,
    end(bytes?: Buffer | string) {
      if (bytes !== undefined) write(bytes);
      close();
      return socket;
    },
    destroy() {
      close();
      return socket;
    },
  }) as unknown as ClientSocket;
}

export async function serveEmbeddedSocket(db: PGlite, options: EmbeddedSocketOptions): Promise<EmbeddedSocket> {
  const { socketDir, secret, idleTurnLimitMs = 10_000, authTimeoutMs = 10_000, maxConnections = 64, ownerToken } = options;
  const token = ownerToken === undefined ? undefined : Buffer.from(ownerToken);
  /** Whether a startup packet's application_name is the owner's token. */
  const isOwner = (packet: Buffer) => {
    const fields = packet.subarray(8).toString('latin1').split('\0');
    const at = fields.findIndex((field, i) => i % 2 === 0 && field === 'application_name');
    const name = at >= 0 ? Buffer.from(fields[at + 1] ?? '', 'latin1') : undefined;
    return token !== undefined && name !== undefined && name.length === token.length && timingSafeEqual(name, token);
  };
  const verifier: ScramVerifier = scramVerifier(secret);
  const connections = new Set<Connection>();
  const cutOff = (connection: Connection) => {
    if (connection.socket.writable) connection.socket.write(fatal('25P03', 'terminating connection: it held the embedded store idle mid-transaction while others waited'));
    connection.socket.destroy();
    connection.phase = 'closed';
  };
  const turns = new SessionTurns(db, idleTurnLimitMs, cutOff);

  const refuse = (connection: Connection, code: string, text: string) => {
    if (connection.socket.writable) connection.socket.end(fatal(code, text));
    connection.phase = 'closed';
  };

  function onData(connection: Connection) {
    for (;;) {
      if (connection.phase === 'closed') return;
      if (connection.phase === 'startup') {
        const packet = connection.reader.untyped(maxStartupBytes);
        if (packet === undefined) return;
        if (packet === 'too large') return refuse(connection, '08P01', 'invalid startup packet');
        const code = packet.readInt32BE(4);
        if ((code === sslRequest || code === gssEncRequest) && packet.length === 8) {
          connection.socket.write('N');
          continue;
        }
        // PGlite has no backend to signal; a cancel request is dropped as PostgreSQL drops one it cannot match.
        if (code === cancelRequest) return void connection.socket.destroy();
        if (code >> 16 !== 3) return refuse(connection, '0A000', 'unsupported frontend protocol');
        if (isOwner(packet)) connection.session = ownerSession;
        connection.socket.write(authentication(10, Buffer.concat([cstring(scramMechanism), Buffer.from([0])])));
        connection.phase = 'sasl-initial';
        continue;
      }
      const next = connection.reader.typed(connection.phase === 'ready' ? Infinity : maxStartupBytes);
      if (next === undefined) return;
      if (next === 'too large') return refuse(connection, '08P01', 'invalid message length');
      if (connection.phase === 'ready') {
        // A client's Terminate: the connection ends; its turn, if any, is abandoned when the socket closes.
        if (next[0] === 0x58) return void connection.socket.end();
        connection.pending.push(next);
        turns.submit(connection);
        continue;
      }
      if (next[0] !== 0x70) return refuse(connection, '28000', 'the embedded store needs the secret (SCRAM-SHA-256)');
      try {
        const body = next.subarray(5);
        if (connection.phase === 'sasl-initial') {
          const end = body.indexOf(0);
          if (end < 0 || body.subarray(0, end).toString() !== scramMechanism) throw new ScramRefused('unsupported SASL mechanism');
          const size = body.readInt32BE(end + 1);
          const serverFirst = connection.exchange.first(body.subarray(end + 5, end + 5 + size).toString());
          connection.socket.write(authentication(11, Buffer.from(serverFirst)));
          connection.phase = 'sasl-final';
          continue;
        }
        const serverFinal = connection.exchange.final(body.toString());
        connection.socket.write(authentication(12, Buffer.from(serverFinal)));
        connection.phase = 'ready';
        // PGlite answers the startup itself: AuthenticationOk, the session's parameters, ReadyForQuery.
        connection.pending.push(canonicalStartup);
        turns.submit(connection);
      } catch (error) {
        const why = error instanceof ScramRefused ? error.message : 'malformed SASL message';
        return refuse(connection, '28P01', `password authentication failed (${why})`);
      }
    }
  }

  const accept = (socket: ClientSocket) => {
    const connection: Connection = { socket, reader: new MessageReader(), phase: 'startup', exchange: new ScramExchange(verifier), pending: [], session: {} };
    socket.on('error', () => socket.destroy());
    if (connections.size >= maxConnections) return refuse(connection, '53300', 'too many connections to the embedded store');
    connections.add(connection);
    setTimeout(() => {
      if (connection.phase !== 'ready') socket.destroy();
    }, authTimeoutMs).unref();
    socket.on('data', (data) => {
      connection.reader.push(data);
      onData(connection);
    });
    socket.on('close', () => {
      connection.phase = 'closed';
      connection.pending = [];
      connections.delete(connection);
      turns.closed(connection);
    });
  };
  const server = net.createServer(accept);

  const socketPath = path.join(socketDir, socketFileName);
  await rm(socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  await chmod(socketPath, 0o600);
  return {
    socketPath,
    quiet: (quietMs, maxMs) => turns.quiet(quietMs, maxMs),
    attach: (port) => accept(portSocket(port)),
    async close() {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const connection of connections) connection.socket.destroy();
      await stopped;
      await rm(socketPath, { force: true });
    },
  };
}
