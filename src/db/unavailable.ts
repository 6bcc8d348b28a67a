// Whether an error means the store could not be reached (the connection refused, closed or timed out), as opposed to
// a statement it refused. Such an error is the store's, not the caller's: every surface answers it 503
// store_unavailable with Retry-After (storeUnavailable in src/core/errors.ts), never as a failure of the request.

/** Node's socket errors, pg's SQLSTATE classes 08 (connection) and 57P (shutdown), Prisma's driver-adapter codes. */
const codes = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ENOENT', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
  '08000', '08001', '08003', '08004', '08006', '57P01', '57P02', '57P03', '53300',
  'P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037',
]);
const kinds = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
// pg says these without a code.
const messages = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection closed|connect ECONNREFUSED/i;

export function isStoreUnreachable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 6) return false;
  const e = error as { code?: unknown; kind?: unknown; message?: unknown; cause?: unknown; originalError?: unknown; meta?: { driverAdapterError?: unknown }; errors?: unknown };
  if (typeof e.code === 'string' && codes.has(e.code)) return true;
  if (typeof e.kind === 'string' && kinds.has(e.kind)) return true;
  if (typeof e.message === 'string' && messages.test(e.message)) return true;
  const inner = [e.cause, e.originalError, e.meta?.driverAdapterError, ...(Array.isArray(e.errors) ? e.errors : [])];
  return inner.some((cause) => isStoreUnreachable(cause, depth + 1));
}
