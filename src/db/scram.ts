// SCRAM-SHA-256 (RFC 5802, RFC 7677), the server's side of PostgreSQL's password exchange: the embedded store's socket
// checks that a client knows the per-start secret without the secret crossing the socket, and proves itself back.
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

export const scramMechanism = 'SCRAM-SHA-256';
const iterations = 4096;

/** What the server keeps of the secret: enough to check a proof, never the secret itself. */
export type ScramVerifier = { salt: Buffer; storedKey: Buffer; serverKey: Buffer };

const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest();
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest();

export function scramVerifier(secret: string): ScramVerifier {
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(secret.normalize('NFKC'), salt, iterations, 32, 'sha256');
  return { salt, storedKey: sha256(hmac(salted, 'Client Key')), serverKey: hmac(salted, 'Server Key') };
}

export class ScramRefused extends Error {}

function attributes(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of text.split(',')) {
    const match = /^([a-zA-Z])=(.*)$/s.exec(part);
    if (!match || found.has(match[1])) throw new ScramRefused('malformed SCRAM message');
    found.set(match[1], match[2]);
  }
  return found;
}

/** One client's exchange: client-first → server-first, client-final → server-final (or ScramRefused). */
export class ScramExchange {
  private gs2Header = '';
  private clientFirstBare = '';
  private serverFirst = '';
  private nonce = '';

  constructor(private readonly verifier: ScramVerifier) {}

  first(clientFirst: string): string {
    // Channel binding needs TLS, which a Unix socket does not have: "n" (no binding) or "y" (the client could bind,
    // and sees the server cannot) are the two headers a client may send here.
    const match = /^([ny]),(?:a=[^,]*)?,(.*)$/s.exec(clientFirst);
    if (!match) throw new ScramRefused('SCRAM channel binding is not offered on this socket');
    this.gs2Header = clientFirst.slice(0, clientFirst.length - match[2].length);
    this.clientFirstBare = match[2];
    const clientNonce = attributes(this.clientFirstBare).get('r');
    if (!clientNonce || !/^[\x21-\x2b\x2d-\x7e]+$/.test(clientNonce)) throw new ScramRefused('malformed SCRAM nonce');
    this.nonce = clientNonce + randomBytes(18).toString('base64');
    this.serverFirst = `r=${this.nonce},s=${this.verifier.salt.toString('base64')},i=${iterations}`;
    return this.serverFirst;
  }

  final(clientFinal: string): string {
    const at = clientFinal.lastIndexOf(',p=');
    if (!this.serverFirst || at < 0) throw new ScramRefused('malformed SCRAM message');
    const withoutProof = clientFinal.slice(0, at);
    const fields = attributes(withoutProof);
    if (fields.get('c') !== Buffer.from(this.gs2Header).toString('base64') || fields.get('r') !== this.nonce) {
      throw new ScramRefused('SCRAM channel binding or nonce does not match');
    }
    const proof = Buffer.from(clientFinal.slice(at + 3), 'base64');
    const authMessage = `${this.clientFirstBare},${this.serverFirst},${withoutProof}`;
    const signature = hmac(this.verifier.storedKey, authMessage);
    if (proof.length !== signature.length) throw new ScramRefused('wrong secret');
    const clientKey = Buffer.from(proof.map((byte, i) => byte ^ signature[i]));
    if (!timingSafeEqual(sha256(clientKey), this.verifier.storedKey)) throw new ScramRefused('wrong secret');
    return `v=${hmac(this.verifier.serverKey, authMessage).toString('base64')}`;
  }
}
