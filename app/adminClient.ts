// The CLI's side of the gateway's admin socket (app/adminSocket.ts): node:http only, so that `lore keys …` starts
// fast while a gateway runs.
import { request } from 'node:http';

export const adminSocketName = 'lore-admin.sock';

/** The operator's commands, which no API key may run: keys, and rebuilding what is derived from the canon. */
export type AdminCommand = 'keys/create' | 'keys/rotate' | 'keys/revoke' | 'keys/list' | 'graph/rebuild' | 'embeddings/rebuild';

/** A failure the gateway answered on its admin socket: a LoreError's code (none for another error) and message. */
export class AdminError extends Error {
  constructor(
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** Runs an admin command on the gateway's admin socket. */
export function adminCommand<T>(socketPath: string, command: AdminCommand, input: Record<string, unknown> = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path: `/${command}`, method: 'POST', headers: { 'Content-Type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      // The gateway stopped (kill -9) while it answered.
      res.on('error', (error: NodeJS.ErrnoException) => {
        const unknown = command === 'keys/list' ? '' : '; whether it was applied is unknown';
        reject(new Error(`the Lore gateway stopped answering on its admin socket ${socketPath} (${error.code ?? error.message}) during ${command}${unknown}: run the command again`));
      });
      res.on('end', () => {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          if (res.statusCode === 200) resolve(body as T);
          else reject(new AdminError(body.error?.code, body.error?.message ?? `HTTP ${res.statusCode}`));
        } catch (error) {
          reject(error as Error);
        }
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => reject(new Error(`cannot reach the gateway's admin socket ${socketPath} (${error.code ?? error.message})`)));
    req.end(JSON.stringify(input));
  });
}
