// Field rules shared by every surface: REST composes them into its request schemas (and so its OpenAPI document),
// the GraphQL core checks its arguments with them.
import { z } from 'zod';
import { LoreError } from './errors.ts';

// PostgreSQL stores neither U+0000 nor a lone surrogate (it has no UTF-8 form; Prisma's engine rejects it too), so text
// holding one is refused here, with the field's name, instead of failing in the database.
const unstorable = /[\0\p{Cs}]/u;
const unstorableMessage = 'must be Unicode text without NUL characters or unpaired surrogates';

// In the OpenAPI document: JSON Schema patterns cannot name a lone surrogate (validators refuse the range), so the
// pattern states the NUL rule; surrogates are left to the JSON encoders, which pair them.
export const storablePattern = '^[^\\u0000]*$';
// The white space String.prototype.trim removes, spelt out: `\s` means other sets in other regex dialects.
const trimmed = '\\u0009-\\u000D\\u0020\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF';
const nonBlankPattern = `^[^\\u0000]*[^\\u0000${trimmed}][^\\u0000]*$`;

/** A string PostgreSQL can store. */
export const text = () => z.string().refine((value) => !unstorable.test(value), unstorableMessage).meta({ pattern: storablePattern });

/** Text trimmed of surrounding white space that must keep something: at most `max` characters once trimmed. */
export const nonBlankText = (max: number) =>
  text().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`).meta({ pattern: nonBlankPattern });

/** How deep free-form JSON (an entity's state) may nest: the database's JSON reader stops at 128 levels. */
export const maxJsonDepth = 64;

/**
 * `schema`, for free-form JSON the database must store as given: strings and keys without U+0000 or lone surrogates
 * (a jsonb column refuses them too), finite numbers, no __proto__ key, nested at most maxJsonDepth levels. Walked with a stack of its own, so no depth of input
 * can exhaust the call stack.
 */
export const storableJson = <T extends z.ZodType>(schema: T) =>
  // Checked before `schema` parses it: a record copied key by key has already lost a __proto__ key.
  z.preprocess((value, ctx) => {
    const problem = jsonProblem(value);
    if (problem) ctx.issues.push({ code: 'custom', path: problem.path, message: problem.message, input: value });
    return value;
  }, schema);

function jsonProblem(root: unknown): { path: (string | number)[]; message: string } | undefined {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: root, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (unstorable.test(value)) return { path, message: unstorableMessage };
      continue;
    }
    // JSON.parse reads 1e400 as Infinity, which would be stored as null.
    if (typeof value === 'number' && !Number.isFinite(value)) return { path, message: 'must be a finite number' };
    if (value === null || typeof value !== 'object') continue;
    if (path.length >= maxJsonDepth) return { path, message: `must be nested at most ${maxJsonDepth} levels deep` };
    const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((item, i) => [i, item]) : Object.entries(value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entries[i];
      if (typeof key === 'string' && unstorable.test(key)) return { path: [...path, key], message: unstorableMessage };
      // An object copied key by key would set its prototype instead of keeping the key.
      if (key === '__proto__') return { path: [...path, key], message: 'must not use the key __proto__' };
      stack.push({ value: item, path: [...path, key] });
    }
  }
  return undefined;
}

export const projectName = nonBlankText(80);
export const projectDescription = text().max(4000, 'must be at most 4000 characters');
export const initialScope = text().max(200, 'must be at most 200 characters');
export const resourceId = z.string().min(1).max(100).regex(/^[A-Za-z0-9_-]+$/, 'must be an id');
export const pageLimit = z.number().int('must be an integer').min(1, 'must be at least 1').max(100, 'must be at most 100');
export const cursor = resourceId;
export const searchQuery = nonBlankText(200);
export const recallQuery = text().trim().max(200, 'must be at most 200 characters');
export const graphDepth = z.number().int('must be an integer').min(1, 'must be at least 1').max(3, 'must be at most 3');
export const factText = nonBlankText(2000);
export const idempotencyKey = text().min(1).max(255);

export const defaultPageLimit = 20;

export type FieldError = { path: string; message: string };

export function describeIssues(error: z.ZodError, prefix = ''): FieldError[] {
  return error.issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter(Boolean).join('.') || '(root)',
    message: issue.message,
  }));
}

/** Parses with a zod schema or fails with a validation_error naming each bad field. */
export function parseOrFail<T extends z.ZodType>(schema: T, value: unknown, code: 'validation_error' | 'invalid_bundle' = 'validation_error'): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw invalid(result.error, code);
}

/** The validation_error (or invalid_bundle) naming each field a zod parse found bad. */
export function invalid(error: z.ZodError, code: 'validation_error' | 'invalid_bundle' = 'validation_error'): LoreError {
  const errors = describeIssues(error);
  const summary = errors.slice(0, 5).map((e) => `${e.path}: ${e.message}`).join('; ');
  return new LoreError(code, `${summary}${errors.length > 5 ? `; and ${errors.length - 5} more` : ''}`, { errors });
}
/** Longest passage a conflict check accepts (about 8,000 words). */
export const passageText = nonBlankText(50_000);
export const chapterRef = z.string().min(1).max(100).regex(/^[A-Za-z0-9_.:-]+$/, 'must be a chapter id');
/** a line of a chapter (1-based): story time inside the chapter */
export const chapterLine = z.number().int('must be an integer').min(1, 'must be at least 1').max(1_000_000, 'must be at most 1000000');
/** Chapter ordinals, as bundles and chapter writes take them. */
export const maxChapterOrdinal = 1_000_000;
export const chapterOrdinal = z.number().int('must be an integer').min(0, 'must be at least 0').max(maxChapterOrdinal, `must be at most ${maxChapterOrdinal}`);
/** The source text a fact comes from (approve's content). */
export const sourceContent = nonBlankText(20_000);
/** A chapter written on its own (putChapter): as a bundle's chapter takes them. */
export const chapterTitle = text().max(300, 'must be at most 300 characters');
export const chapterText = text().max(5_000_000, 'must be at most 5000000 characters');
export const factStatus = z.enum(['approved', 'suggested']);
/** Why a fact is retired, kept with the decision. */
export const retireReason = nonBlankText(2000);
/** A brief's token budget: enough for its heading at least, and no more than a large context window. */
export const briefBudget = z.number().int('must be an integer').min(100, 'must be at least 100').max(200_000, 'must be at most 200000');
export const defaultBriefBudget = 2000;
export const briefFormats = ['json', 'markdown'] as const;
/** Entity ids a brief may be given, besides its text. */
export const briefEntityIds = z.array(resourceId).max(100, 'must hold at most 100 ids');
/** Chapters an open promise may wait before the ledger marks it at risk. */
export const atRiskAfter = z.number().int('must be an integer').min(1, 'must be at least 1').max(100_000, 'must be at most 100000');
/**
 * Who knows a fact, from when (authoring): an entity id, and the chapter id (and a line of it) it learns the fact at. A
 * line is a place in its chapter: without `from` it places nothing and is not used (as a passage check's line).
 */
export const knowerInput = z
  .object({ entityId: resourceId, from: chapterRef.nullish(), line: chapterLine.nullish() })
  .transform((k) => (k.from ? k : { ...k, line: undefined }));
export const knownByInput = z.array(knowerInput).max(200, 'must hold at most 200 knowers');
