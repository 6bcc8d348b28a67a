// The one way the dashboard talks to Lore: POST /graphql with the caller's key from this tab's sessionStorage.
const storageKey = 'lore.apiKey';

export const apiKey = () => sessionStorage.getItem(storageKey);
export const keepKey = (key: string) => sessionStorage.setItem(storageKey, key);
export const forgetKey = () => sessionStorage.removeItem(storageKey);

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Runs an operation; resolves to its data, or rejects with the first error (its message and extensions.code). */
export async function gql<T>(document: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<T> {
  const key = apiKey();
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...(key && { Authorization: `Bearer ${key}` }), ...headers },
    body: JSON.stringify({ query: document, variables }),
  });
  const body = (await response.json().catch(() => null)) as { data?: T; errors?: { message: string; extensions?: Record<string, unknown> }[] } | null;
  const error = body?.errors?.[0];
  if (error) throw new ApiError(error.message, error.extensions?.code as string | undefined, error.extensions);
  if (!response.ok || !body?.data) throw new ApiError(`Lore answered ${response.status}.`, undefined);
  return body.data;
}

export const signedOutCodes = new Set(['AUTH_INVALID_KEY', 'AUTH_MISSING_KEY', 'AUTH_REVOKED_KEY', 'AUTH_EXPIRED_KEY']);
