// What an audit entry says about a write: the ids it touched (targets) and a small, secret-free summary of its
// arguments. Both are bounded, whatever the size of the request or its answer.

export const maxTargets = 50;
/** how deep the arguments (their input objects' fields) and the answer (nested rows, lists of hits) are searched for ids */
const argsDepth = 1;
const resultDepth = 4;
/** how deep the summary keeps objects; below, only how many keys they have */
const summaryDepth = 3;
const maxSummaryKeys = 20;
const maxSummaryItems = 10;
const maxSummaryChars = 120;

const idShape = /^[A-Za-z0-9_-]{1,100}$/;
/** Every entry is its account's already; the field would only repeat it. */
const notTargets = new Set(['accountId']);

const secretName = /secret|password|passphrase|token|credential|api_?key|llm_?key|provider_?key|authorization/i;
/** Prose (passages, chapter text, source content): only its length is kept. */
const proseName = /^(text|content|passage|body|source)$|(Text|Content|Passage|Body)$/;
const lorePrefix = 'sk_lore_';
const loreKeyAnywhere = /sk_lore_[0-9A-Za-z]*/g;
// jsonb and text[] refuse U+0000 and lone surrogates; a cut must not leave half a pair either.
const unstorable = /[\0\p{Cs}]/gu;

/** The ids a write touched: `id`, `…Id` and `…Ids` fields of its arguments, then of its answer; de-duplicated, capped. */
export function auditTargets(args: Record<string, unknown>, result: unknown): string[] {
  const found = new Set<string>();
  collectIds(args, argsDepth, found);
  collectIds(result, resultDepth, found);
  return [...found];
}

function collectIds(value: unknown, depth: number, found: Set<string>): void {
  if (depth < 0 || found.size >= maxTargets || value === null || typeof value !== 'object' || value instanceof Date) return;
  if (Array.isArray(value)) {
    for (const item of value) collectIds(item, depth - 1, found);
    return;
  }
  // for…in, not Object.entries: no array of pairs made for every object of the answer (the same own fields: the
  // answer's objects are plain, their prototypes hold no enumerable field).
  for (const name in value) {
    if (found.size >= maxTargets) return;
    if (notTargets.has(name) || !Object.hasOwn(value, name)) continue;
    const field = (value as Record<string, unknown>)[name];
    if (name === 'id' || name.endsWith('Id')) addId(field, found);
    else if (name.endsWith('Ids') && Array.isArray(field)) for (const id of field) addId(id, found);
    else collectIds(field, depth - 1, found);
  }
}

function addId(value: unknown, found: Set<string>): void {
  if (found.size < maxTargets && typeof value === 'string' && idShape.test(value) && !value.startsWith(lorePrefix)) found.add(value);
}

/**
 * The arguments as a small JSON: secrets left out, prose as its length, long text cut, lists of objects and deep
 * objects as their size. Absent (null) arguments are left out.
 */
export function auditSummary(args: Record<string, unknown>): Record<string, unknown> {
  return summarizeObject(args, 0);
}

function summarizeObject(object: object, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const entries = Object.entries(object).filter(([, v]) => v !== null && v !== undefined);
  for (const [name, value] of entries.slice(0, maxSummaryKeys)) {
    const key = clean(name);
    if (secretName.test(name)) out[key] = '[redacted]';
    else if (typeof value === 'string' && proseName.test(name)) out[key] = { chars: value.length };
    else out[key] = summarize(value, depth + 1);
  }
  if (entries.length > maxSummaryKeys) out['…'] = { keys: entries.length };
  return out;
}

function summarize(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return cut(value);
  if (value === null || typeof value !== 'object') return typeof value === 'number' || typeof value === 'boolean' ? value : null;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) {
    const plain = value.every((item) => item === null || typeof item !== 'object');
    if (!plain || value.length > maxSummaryItems || depth > summaryDepth) return { items: value.length };
    return value.map((item) => summarize(item, depth + 1));
  }
  if (depth > summaryDepth) return { keys: Object.keys(value).length };
  return summarizeObject(value, depth);
}

function cut(value: string): string {
  const cleaned = clean(value);
  // No longer than the cut in UTF-16 units, so in characters: kept whole without splitting it into characters.
  if (cleaned.length <= maxSummaryChars) return cleaned;
  const chars = Array.from(cleaned);
  return chars.length > maxSummaryChars ? `${chars.slice(0, maxSummaryChars).join('')}… (${chars.length} chars)` : chars.join('');
}

const cleanable = /sk_lore_|[\0\p{Cs}]/u;

function clean(value: string): string {
  // Most text holds neither: tested once rather than rewritten twice.
  return cleanable.test(value) ? value.replace(loreKeyAnywhere, '[redacted key]').replace(unstorable, '') : value;
}
