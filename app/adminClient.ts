// The CLI's side of the gateway's admin socket (app/adminSocket.ts): node:http only, so that `lore keys …` starts
// fast while a gateway runs.
import { request } from 'node:http';

export const adminSocketName = 'lore-admin.sock';

export type KeyCommand = 'create' | 'rotate' | 'revoke' | 'list';

/** A failure the gateway answered on its admin socket: the code and message of a LoreError. */
export class AdminError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The CLI's side: runs a key command on the gateway's admin socket. */
export function adminCommand<T>(socketPath: string, command: KeyCommand, input: Record<string, unknown> = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path: `/keys/${command}`, method: 'POST', headers: { 'Content-Type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          if (res.statusCode === 200) resolve(body as T);
          else reject(new AdminError(body.error?.code ?? 'internal_error', body.error?.message ?? `HTTP ${res.statusCode}`));
        } catch (error) {
          reject(error as Error);
        }
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => reject(new Error(`cannot reach the gateway's admin socket ${socketPath} (${error.code ?? error.message})`)));
    req.end(JSON.stringify(input));
  });
}
