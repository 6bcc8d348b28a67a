import { useState, type FormEvent } from 'react';
import { forgetKey, gql, keepKey, signedOutCodes, ApiError } from '../api.ts';
import { ops } from '../ops.ts';

export function SignInPage({ onSignedIn }: { onSignedIn: () => void }) {
  const [key, setKey] = useState('');
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function signIn(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    keepKey(key.trim());
    try {
      await gql(ops.signIn);
      onSignedIn();
    } catch (error) {
      forgetKey();
      setProblem(error instanceof ApiError && signedOutCodes.has(error.code ?? '') ? 'That API key is not valid: check it and try again.' : (error as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" className="signin">
      <h1>Lore</h1>
      <p>Sign in with an API key (from <code>lore keys create</code>). It stays in this tab only.</p>
      <form onSubmit={signIn}>
        <label htmlFor="api-key">API key</label>
        <input id="api-key" type="password" autoComplete="off" required value={key} onChange={(e) => setKey(e.target.value)} />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      {problem && (
        <p role="alert" className="problem">
          {problem}
        </p>
      )}
    </main>
  );
}
