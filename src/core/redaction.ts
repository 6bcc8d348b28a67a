// Provider error messages sometimes echo the credential they were given ("Incorrect API key provided: sk-…"), and such
// text reaches logs. Whatever looks like a key is cut out before it is kept or written anywhere.

export const redacted = '[redacted]';

/** A value is never a key shorter than this: an empty or one-letter "secret" would blank out ordinary text. */
const minKnownSecretChars = 6;
/** A run of token characters this long, mixing upper case, lower case and digits, is taken for a key (ids and hex are not mixed-case). */
const minOpaqueTokenChars = 32;

const keyShapes: [RegExp, string][] = [
  // Prefixed keys: OpenAI/Anthropic/Lore (sk-…, sk_lore_…), Hugging Face, Groq, GitHub, GitLab, Slack, AWS, Google.
  [/\b(?:sk|pk|rk|hf|gsk|ghp|gho|ghs|ghu|ghr|glpat|xox[abprs])[-_][^\s"'\\,;)}\]]{3,}[^\s"'\\,;)}\].]/g, redacted],
  [/\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, redacted],
  [/\bAIza[0-9A-Za-z_-]{20,}/g, redacted],
  // A credential after its scheme or its label: "Bearer …", "api_key=…", "password: …", "\"token\":\"…\"".
  [/\b(Bearer|Basic|Token)(\s+)[^\s"'\\,;]+/gi, `$1$2${redacted}`],
  [/\b(api[-_ ]?key|access[-_ ]?token|secret|password|passwd|token|authorization|x-api-key|x-llm-key)\b(\\?["']?\s*[:=]\s*\\?["']?)(?!\[redacted\]|(?:Bearer|Basic|Token)\s)[^\s"'\\,;&]+/gi, `$1$2${redacted}`],
  // The password of a URL: scheme://user:password@host.
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@"'\\]+:)[^\s@/"'\\]+@/gi, `$1${redacted}@`],
];
const opaqueToken = new RegExp(`(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{${minOpaqueTokenChars},}(?![A-Za-z0-9_-])`, 'g');
const mixedCase = (token: string) => /[a-z]/.test(token) && /[A-Z]/.test(token) && /[0-9]/.test(token);

/**
 * `text` with every key-shaped part replaced by "[redacted]": the `known` secrets wherever they appear (a provider's
 * key may have any shape), prefixed keys, a credential after "Bearer" or a label such as "api_key=", a URL's password,
 * and long mixed-case tokens.
 */
export function redactSecrets(text: string, known: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of known) if (secret && secret.length >= minKnownSecretChars) out = out.replaceAll(secret, redacted);
  for (const [shape, replacement] of keyShapes) out = out.replace(shape, replacement);
  return out.replace(opaqueToken, (token) => (mixedCase(token) ? redacted : token));
}
