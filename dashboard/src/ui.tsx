// Small pieces every page uses.
import type { ReactNode } from 'react';
import { ApiError } from './api.ts';

export function Heading({ children }: { children: ReactNode }) {
  return <h1 tabIndex={-1}>{children}</h1>;
}

export function Problem({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof ApiError ? error.code : undefined;
  return (
    <p role="alert" className="problem">
      {message}
      {code && <span className="code"> ({code})</span>}
    </p>
  );
}

export function Status({ children }: { children: ReactNode }) {
  return (
    <p role="status" className="status">
      {children}
    </p>
  );
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '');

export const span = (from: string | null, until: string | null) =>
  from || until ? `${from ? `from ${from}` : 'from the start'} ${until ? `until ${until}` : 'to the end'}` : 'throughout';
