// The canon bundle: how users put canon in (GraphQL importBundle, `lore import`). Checked whole before anything is written.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { z } from 'zod';
import { factText, projectDescription, projectName, storableJson, text } from '../validation.ts';

export const entityTypes = ['character', 'location', 'object', 'event', 'rule', 'promise'] as const;

/** An entity key (also a chapter id): unique in a project. */
export const key = z.string().min(1).max(100).regex(/^[A-Za-z0-9_.:-]+$/, 'must be letters, digits, _ . : or -');
/** A relationship's kind: one word. */
export const relationshipKind = z.string().trim().min(1).max(64).regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'must be a word such as sibling_of');
const label = text().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const approval = z.enum(['approved', 'suggested']);
const stateValues = storableJson(z.record(z.string(), z.unknown()));

/** An entity that knows a fact: its key, and from when (a chapter id; inside it, after a line); from the start when absent. */
const knower = z
  .object({ entity: key, from: key.optional(), line: z.number().int().min(1).max(1_000_000).optional() })
  .refine((k) => k.from !== undefined || k.line === undefined, { message: 'a line needs from: the chapter it is in', path: ['from'] });

/**
 * A fact: its text alone (timeless, with the entity's status), or with its story time (`from` a chapter id, inclusive;
 * `until` one, exclusive) and a status of its own.
 */
const factObject = z.object({
  text: factText,
  from: key.optional(),
  until: key.optional(),
  status: approval.optional(),
  /** who knows it, from when (`from` a chapter id, `line` a line of it they learn it at); absent: stored knowledge stays */
  known_by: z.array(knower).max(200).optional(),
  /** nobody knows it until someone learns it (known_by); absent with known_by: not secret */
  secret: z.boolean().optional(),
});
// Chosen by the item's type rather than by z.union, whose error for an object would not name the bad field.
const bundleFact = z.unknown().transform((item, ctx): string | z.infer<typeof factObject> => {
  const parsed = typeof item === 'string' ? factText.safeParse(item) : factObject.safeParse(item);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  return z.NEVER;
});

/**
 * A point inside the starting chapter: its line (1-based), or an anchor, a short phrase of the chapter's text that is
 * looked up whenever the chapter is read, so it follows the text through edits (src/core/canon/storyPoints.ts).
 */
export const storyPoint = { line: z.number().int().min(1).max(1_000_000).optional(), anchor: text().trim().min(3).max(300).optional() };

/** State values that hold for part of the story: from a chapter (or a point inside it), until a chapter, or both. */
const stateChange = z
  .object({ from: key.optional(), ...storyPoint, until: key.optional(), state: stateValues })
  .refine((c) => c.from !== undefined || c.until !== undefined, { message: 'must have from or until (timeless values go in state)', path: ['from'] })
  .refine((c) => c.from !== undefined || (c.line === undefined && c.anchor === undefined), { message: 'a line or anchor needs from: the chapter it is in', path: ['from'] })
  .refine((c) => Object.keys(c.state).length > 0, { message: 'must set at least one value', path: ['state'] });

export const promiseStatuses = ['open', 'paid', 'dropped'] as const;

/** A promise's ledger line: the chapters that set it up and pay it off, the entity keys it involves, its status. */
const promiseLine = z.object({
  set_up_in: key.optional(),
  paid_off_in: key.optional(),
  involves: z.array(key).max(200).default([]),
  /** absent: paid when it has a payoff, else open */
  status: z.enum(promiseStatuses).optional(),
});

const bundleEntity = z.object({
  key,
  type: z.enum(entityTypes),
  name: label,
  aliases: z.array(label).max(100).default([]),
  state: stateValues.default({}),
  facts: z.array(bundleFact).max(1000).default([]),
  /** absent: the entity's stored timed values stay as they are; a list (even empty) replaces them */
  stateChanges: z.array(stateChange).max(1000).optional(),
  status: approval.default('approved'),
  confidence: z.number().min(0).max(1).optional(),
  /** promises only: the ledger line */
  promise: promiseLine.optional(),
});
const maxEntities = 50_000;

const bundleShape = z
  .object({
    project: z.object({ name: projectName, description: projectDescription.optional() }),
    entities: z.array(bundleEntity).max(maxEntities).default([]),
    relationships: z
      .array(
        z.object({
          from: key,
          to: key,
          kind: relationshipKind,
          weight: z.number().finite().default(1),
        }),
      )
      .max(500_000)
      .default([]),
    chapters: z
      .array(
        z.object({
          id: key,
          title: text().max(300).default(''),
          ordinal: z.number().int().min(0).max(1_000_000),
          text: text().max(5_000_000).default(''),
        }),
      )
      .max(10_000)
      .default([]),
    timeline: z
      .array(
        z.object({
          chapter: key,
          beats: z.array(z.object({ summary: text().trim().min(1).max(2000), entities: z.array(key).max(200).default([]) })).max(1000),
        }),
      )
      .default([]),
  })
type BundleIssue = { path: (string | number)[]; message: string };

/** What the bundle's fields cannot say on their own: keys, chapter ids and ordinals unique, a repeated fact saying the same. */
function crossCheck(bundle: z.infer<typeof bundleShape>, addIssue: (issue: BundleIssue) => void): void {
  const duplicates = (items: string[], path: (i: number) => (string | number)[], what: string) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      if (seen.has(item)) addIssue({ path: path(i), message: `duplicate ${what} ${item}` });
      seen.add(item);
    });
  };
  duplicates(bundle.entities.map((e) => e.key), (i) => ['entities', i, 'key'], 'entity key');
  bundle.entities.forEach((e, i) => {
    if (e.promise && e.type !== 'promise') addIssue({ path: ['entities', i, 'promise'], message: 'only a promise has a ledger line' });
  });
  duplicates(bundle.chapters.map((c) => c.id), (i) => ['chapters', i, 'id'], 'chapter id');
  // Each place in the reading order holds one chapter, so as_of, from and until name one point of the story.
  duplicates(bundle.chapters.map((c) => String(c.ordinal)), (i) => ['chapters', i, 'ordinal'], 'chapter ordinal');
  duplicates(bundle.timeline.map((t) => t.chapter), (i) => ['timeline', i, 'chapter'], 'timeline chapter');
  // A live fact is unique per entity and text: the same text twice must say the same thing.
  bundle.entities.forEach((e, i) => {
    const seen = new Map<string, string>();
    e.facts.forEach((item, j) => {
      const fact = bundleFactOf(item, e.status);
      const said = JSON.stringify([fact.from, fact.until, fact.status, fact.known_by, fact.secret]);
      if (seen.has(fact.text) && seen.get(fact.text) !== said) {
        addIssue({ path: ['entities', i, 'facts', j], message: 'the same fact text twice, with another span or status' });
      }
      seen.set(fact.text, said);
    });
  });
}

export const bundleSchema = bundleShape.superRefine((bundle, ctx) => crossCheck(bundle, (issue) => ctx.addIssue({ code: 'custom', ...issue })));

export type CanonBundle = z.infer<typeof bundleSchema>;

/** Entities checked between two turns of the event loop: a few milliseconds of checking. */
const entitiesPerTurn = 200;
const bundleFields = Object.keys(bundleShape.shape);
const withoutEntities = bundleShape.extend({ entities: z.array(z.unknown()).max(maxEntities).default([]) });

/**
 * bundleSchema.safeParse, the same answer and the same issues in the same order, but a long list of entities is
 * checked a few hundred at a time with the event loop given back in between: checking 20,000 entities at once held
 * every other request of the process for over 100 ms (on the embedded store, every tenant's).
 */
export async function parseBundle(value: unknown): Promise<{ success: true; data: CanonBundle } | { success: false; error: z.ZodError }> {
  const entities = typeof value === 'object' && value !== null ? (value as { entities?: unknown }).entities : undefined;
  if (!Array.isArray(entities) || entities.length <= entitiesPerTurn || entities.length > maxEntities) return bundleSchema.safeParse(value);
  const issues: z.core.$ZodIssue[] = [];
  const parsed: z.infer<typeof bundleEntity>[] = [];
  for (let at = 0; at < entities.length; at += entitiesPerTurn) {
    await nextTurn();
    const part = z.array(bundleEntity).safeParse(entities.slice(at, at + entitiesPerTurn));
    if (part.success) parsed.push(...part.data);
    else issues.push(...part.error.issues.map((issue) => ({ ...issue, path: ['entities', at + Number(issue.path[0]), ...issue.path.slice(1)] })));
  }
  const rest = withoutEntities.safeParse(value);
  if (!rest.success) issues.push(...rest.error.issues);
  if (issues.length > 0) {
    // zod reports a bundle's issues field by field, in the schema's order
    const order = (issue: z.core.$ZodIssue) => bundleFields.indexOf(String(issue.path[0]));
    return { success: false, error: new z.ZodError(issues.sort((a, b) => order(a) - order(b))) };
  }
  const bundle = { ...rest.data!, entities: parsed };
  const refined: z.core.$ZodIssue[] = [];
  crossCheck(bundle, (issue) => refined.push({ code: 'custom', input: value, ...issue }));
  return refined.length > 0 ? { success: false, error: new z.ZodError(refined) } : { success: true, data: bundle };
}
export type BundleKnower = z.infer<typeof knower>;
export type BundleFact = { text: string; from?: string; until?: string; status: z.infer<typeof approval>; known_by?: BundleKnower[]; secret?: boolean };

/** A bundle's fact item as an object: a bare text is timeless and takes the entity's status. */
export function bundleFactOf(item: z.infer<typeof bundleFact>, entityStatus: z.infer<typeof approval>): BundleFact {
  return typeof item === 'string' ? { text: item, status: entityStatus } : { ...item, status: item.status ?? entityStatus };
}

/** The bundle's entities with the facts that say who knows them (known_by or secret), as objects. */
export function knowingEntities(bundle: Pick<CanonBundle, 'entities'>): { key: string; facts: BundleFact[] }[] {
  return bundle.entities.flatMap((e) => {
    const facts = e.facts.filter((f): f is Exclude<typeof f, string> => typeof f !== 'string' && (f.known_by !== undefined || f.secret !== undefined));
    return facts.length > 0 ? [{ key: e.key, facts: facts.map((f) => bundleFactOf(f, e.status)) }] : [];
  });
}

/** The entity keys the bundle's facts name as knowers. */
export function knowerKeys(bundle: Pick<CanonBundle, 'entities'>): string[] {
  return bundle.entities.flatMap((e) => e.facts.flatMap((f) => (typeof f === 'string' ? [] : (f.known_by ?? []).map((k) => k.entity))));
}
