// The core names a bad field by its GraphQL argument path (input.from, entityId); a route whose request names the
// field otherwise (body.from, body.entity_id) renames it in the problem, so the client reads its own field names.
import type { OperationError } from '../graph/executor.ts';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function renameErrorPaths(error: OperationError, paths: Record<string, string> | undefined): OperationError {
  if (!paths) return error;
  const rename = (path: string) => {
    for (const [from, to] of Object.entries(paths)) {
      if (path === from || path.startsWith(`${from}.`)) return to + path.slice(from.length);
    }
    return path;
  };
  let message = error.message;
  for (const [from, to] of Object.entries(paths)) {
    message = message.replace(new RegExp(`(^|; )${escape(from)}(?=[.:])`, 'g'), `$1${to}`);
  }
  const errors = error.extensions.errors;
  const renamed = Array.isArray(errors)
    ? errors.map((e: { path?: unknown }) => (typeof e?.path === 'string' ? { ...e, path: rename(e.path) } : e))
    : errors;
  return { ...error, message, extensions: { ...error.extensions, ...(renamed !== undefined ? { errors: renamed } : {}) } };
}
