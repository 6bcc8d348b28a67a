// The canon bundle: how users put canon in (GraphQL importBundle, `lore import`). Checked whole before anything is written.
import { z } from 'zod';
import { factText, projectDescription, projectName, storableJson, text } from '../validation.ts';

export const entityTypes = ['character', 'location', 'object', 'event', 'rule', 'promise'] as const;

const key = z.string().min(1).max(100).regex(/^[A-Za-z0-9_.:-]+$/, 'must be letters, digits, _ . : or -');
const label = text().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

export const bundleSchema = z
  .object({
    project: z.object({ name: projectName, description: projectDescription.optional() }),
    entities: z
      .array(
        z.object({
          key,
          type: z.enum(entityTypes),
          name: label,
          aliases: z.array(label).max(100).default([]),
          state: storableJson(z.record(z.string(), z.unknown())).default({}),
          facts: z.array(factText).max(1000).default([]),
          status: z.enum(['approved', 'suggested']).default('approved'),
          confidence: z.number().min(0).max(1).optional(),
        }),
      )
      .max(50_000)
      .default([]),
    relationships: z
      .array(
        z.object({
          from: key,
          to: key,
          kind: z.string().trim().min(1).max(64).regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'must be a word such as sibling_of'),
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
  .superRefine((bundle, ctx) => {
    const duplicates = (items: string[], path: (i: number) => (string | number)[], what: string) => {
      const seen = new Set<string>();
      items.forEach((item, i) => {
        if (seen.has(item)) ctx.addIssue({ code: 'custom', path: path(i), message: `duplicate ${what} ${item}` });
        seen.add(item);
      });
    };
    duplicates(bundle.entities.map((e) => e.key), (i) => ['entities', i, 'key'], 'entity key');
    duplicates(bundle.chapters.map((c) => c.id), (i) => ['chapters', i, 'id'], 'chapter id');
    duplicates(bundle.timeline.map((t) => t.chapter), (i) => ['timeline', i, 'chapter'], 'timeline chapter');
  });

export type CanonBundle = z.infer<typeof bundleSchema>;
